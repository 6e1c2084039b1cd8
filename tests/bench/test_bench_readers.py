"""The format readers: `make bench`.

- each reader of marked-up text (MDX, front matter, MyST, Sphinx roles and directives) is
  linear: time(2n) / time(n) at most 2.6 on the shape that would make it quadratic;
- a real MDX docs tree (Docusaurus's own starter docs, from the npm registry's
  `create-docusaurus` package, fetched with `npm pack` into the cache folder once) reads
  with every line where the file has it, no import, export, tag or comment left outside
  code, a title for every page, and an offline question answered with a verified
  citation. Without its data the benchmark fails: it never passes by skipping.
"""

from __future__ import annotations

import os
import re
import subprocess
import tarfile
from math import isqrt
from pathlib import Path

import pytest

from agent.readers import markdown, mdx, rst
from agent.tools.citations import find_citations
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, list_docs
from tests.agent.test_offline import converse
from tests.bench.test_bench_hostile import assert_linear

PACKAGE = "create-docusaurus@3.10.2"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "docsagent-bench"


SHAPES = {
    "mdx tags": lambda n: "<Tabs><TabItem value='a'>x</TabItem>\n" * n,
    "mdx unclosed tag": lambda n: "<Tabs value={" + "{'a>b'" * n,
    "mdx backtick runs": lambda n: "<b>" + "".join(f"{'`' * k} x " for k in range(isqrt(320 * n))),
    "mdx unclosed export": lambda n: "export const a = {\n" + "  b: [1, 2],\n" * n,
    "mdx unclosed comment": lambda n: "{/* " + "text *\n" * n,
    "front matter never closed": lambda n: "---\n" + "title: x\n" * n,
    "long front matter": lambda n: "---\n" + "key: value\n  more\n" * n + "---\n# T\n",
    "myst roles never closed": lambda n: "Use " + "{func}`x " * n,
    "myst fences": lambda n: "```{note}\n:class: x\nText {func}`f`.\n```\n" * n,
}
RST_SHAPES = {
    "rst roles never closed": lambda n: "Use " + ":func:`x " * n,
    "rst directives": lambda n: ".. toctree::\n   :maxdepth: 2\n\n   a\n\n.. note:: x\n" * n,
    "rst role names": lambda n: (":" + "a" * 50) * n + ":`x",
}
N = 20_000


@pytest.mark.parametrize("name", [*SHAPES, *RST_SHAPES])
def test_each_markup_reader_is_linear_under_doubling(name: str) -> None:
    make = SHAPES.get(name) or RST_SHAPES[name]
    read = rst.read if name in RST_SHAPES else mdx.read
    if name.startswith(("front", "long front", "myst")):
        read = markdown.read
    small, large = make(N).encode(), make(2 * N).encode()
    assert_linear(f"reader {name}", N, lambda: read(small), lambda: read(large))


def docusaurus_starter() -> Path:
    """The starter site's folder (`templates/shared`), fetched with `npm pack` on first use."""
    folder = CACHE / PACKAGE.replace("@", "-")
    site = folder / "package" / "templates" / "shared"
    if site.is_dir():
        return site
    folder.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            ["npm", "pack", PACKAGE, "--pack-destination", str(folder)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.fail(f"cannot fetch {PACKAGE} with npm pack: {exc}")
    tarballs = sorted(folder.glob("*.tgz"))
    if done.returncode != 0 or not tarballs:
        pytest.fail(f"cannot fetch {PACKAGE} with npm pack: {done.stderr.strip()[-300:]}")
    with tarfile.open(tarballs[0]) as tar:
        tar.extractall(folder, filter="data")
    return site


OUTSIDE_CODE_LEFTOVERS = re.compile(r"^(?:import|export)\b|</?[A-Z][\w.]*[\s/>]|\{/\*")


def test_a_real_mdx_docs_tree_reads_as_its_markdown_and_answers_with_a_citation() -> None:
    site = docusaurus_starter()
    corpus = Corpus.open(site)
    pages = [rel for rel in corpus.paths() if rel.endswith(".mdx")]
    leftovers = []
    for rel in pages:
        raw = (site / rel).read_bytes().decode()
        lines = corpus.read(rel).text.split("\n")[: len(raw.splitlines())]
        assert len(corpus.read(rel).text.splitlines()) == len(raw.splitlines()), rel
        fence = ""
        for number, line in enumerate(lines, 1):
            mark = re.match(r"\s*(`{3,}|~{3,})", line)
            if mark and (not fence or mark[1].startswith(fence)):
                fence = "" if fence else mark[1]
                continue
            code = re.sub(r"`[^`]*`", "", line)  # inline code may show anything
            if not fence and OUTSIDE_CODE_LEFTOVERS.search(code):
                leftovers.append(f"{rel}:{number}: {line}")
    rows = list_docs(DocsContext(corpus)).splitlines()
    untitled = [row for row in rows if row.endswith("lines)")]  # no title after the count
    answer, _ = converse(site, "How do I create a blog post?")
    citations = find_citations(answer, corpus)
    cited = {c.path for c in citations if c.valid}
    print(
        f"\nreal MDX tree ({PACKAGE}): {len(pages)} pages, {len(leftovers)} lines with markup "
        f"left, {len(untitled)} pages without a title; cited {sorted(cited)} "
        "(target: 0, 0, blog/ or docs/tutorial-basics/create-a-blog-post.mdx cited)"
    )
    assert len(pages) >= 14 and leftovers == [] and untitled == []
    assert "docs/tutorial-basics/create-a-blog-post.mdx" in cited
