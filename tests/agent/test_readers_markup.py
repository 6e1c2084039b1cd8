"""MDX, front matter and Sphinx/MyST markup read as the text a reader of the page sees,
every line kept where the file has it (citations count raw file lines)."""

from __future__ import annotations

from pathlib import Path

from agent.readers.registry import bare, doc_lines
from agent.search import DocsIndex
from agent.tools.citations import find_citations
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, list_docs, read_doc, search_docs
from tests.agent.test_offline import converse

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "mdx-site"


def lines_of(text: str, name: str) -> list[str]:
    lines = doc_lines(text.encode(), name)
    assert len(lines) == len(text.splitlines())  # no line gained or lost
    return lines


def test_mdx_keeps_text_and_code_and_blanks_imports_exports_and_tags() -> None:
    page = (
        "import Tabs from '@theme/Tabs';\n"
        'import {\n  TabItem,\n  Note,\n} from "@/components/ui";\n'
        "export const meta = {\n  version: '1.2',\n};\n"
        "\n"
        'Read <a href="/x">the guide</a> first.\n'
        "<Tabs values={[{label: 'a>b', value: 'b'}]}>\n"
        '  <TabItem\n    value="yarn"\n  >\n'
        "    Run it in your `<Terminal>`:\n"
        "    ```bash\n    npm install <pkg>\n    ```\n"
        "  </TabItem>\n</Tabs>\n"
        "{/* a comment\n   over lines */}\n"
        "<Note>The `--global` flag installs it for everyone.</Note>\n"
        "Use <Kbd>Ctrl</Kbd>+C to stop, <https://example.com> to read more.\n"
    )
    assert lines_of(page, "a.mdx") == [
        *[""] * 9,
        "Read the guide first.",
        *[""] * 4,
        "Run it in your `<Terminal>`:",
        "```bash",
        "    npm install <pkg>",
        "```",
        "",
        "",
        "",
        "",
        "The `--global` flag installs it for everyone.",
        "Use Ctrl+C to stop, <https://example.com> to read more.",
    ]


def test_front_matter_is_a_title_and_a_summary_never_body_text() -> None:
    page = (
        "---\ntitle: 'Install the CLI'\nsidebar_label: Install\ndescription: >\n"
        "  How to install it\n  on any machine.\ntags: [cli, setup]\n---\n\nText.\n"
    )
    expected = ["# Install the CLI", "How to install it on any machine.", *[""] * 7, "Text."]
    assert lines_of(page, "a.md") == lines_of(page, "a.mdx") == expected
    labelled = "---\nsidebar_label: Config\nslug: /config\n---\nText.\n"
    assert lines_of(labelled, "a.md") == ["# Config", "", "", "", "Text."]
    own_title = "---\ntitle: Caching\ndescription: How.\n---\n\n# Caching, in depth\n"
    assert lines_of(own_title, "a.md") == ["", "How.", "", "", "", "# Caching, in depth"]
    in_code = "---\ntitle: T\n---\n```sh\n# not a heading\n```\n"
    assert lines_of(in_code, "a.md")[0] == "# T"
    never_closed = "---\ntitle: T\n\nText.\n"  # a rule, then text
    assert lines_of(never_closed, "a.md") == ["---", "title: T", "", "Text."]
    assert lines_of("text\n---\ntitle: T\n---\n", "a.md") == ["text", "---", "title: T", "---"]


def test_sphinx_roles_and_directives_read_as_their_text() -> None:
    page = (
        ".. currentmodule:: httpx\n\n.. _timeouts:\n\nTimeouts\n========\n\n"
        ".. toctree::\n   :maxdepth: 2\n\n   intro\n   usage\n\n"
        "Use :func:`get` or :py:class:`~httpx.Client`, see :ref:`the guide <guide>`.\n\n"
        ".. note:: The default is :data:`DEFAULT`.\n\n"
        ".. function:: request(method, url)\n   :noindex:\n\n   Send a request.\n\n"
        ".. code-block:: python\n   :linenos:\n\n   httpx.get(url)\n\n"
        ".. versionadded:: 0.18\n"
    )
    assert lines_of(page, "api.rst") == [
        *[""] * 4,
        "Timeouts",
        "========",
        *[""] * 7,
        "Use get or Client, see the guide.",
        "",
        "Note: The default is DEFAULT.",
        "",
        "request(method, url)",
        "",
        "",
        "   Send a request.",
        "",
        "",
        "",
        "",
        "   httpx.get(url)",
        "",
        "New in version 0.18.",
    ]


def test_myst_roles_and_directive_fences_read_as_their_text_code_untouched() -> None:
    page = (
        "(timeouts)=\n# Timeouts\n\n"
        "```{note}\n:class: dropdown\nUse {py:func}`~httpx.get`.\n```\n\n"
        "```{toctree}\n:maxdepth: 2\nintro\n```\n\n"
        "```{code-block} python\nx = {func}`kept`\n```\n\n"
        ":::{warning} Mind the gap\nText.\n:::\n\n"
        "```{eval-rst}\n.. autofunction:: httpx.get\nSee :class:`Client`.\n```\n"
    )
    assert lines_of(page, "api.md") == [
        *["", "# Timeouts", ""],
        *["Note:", "", "Use get.", "", ""],
        *["", "", "", "", ""],
        *["```python", "x = {func}`kept`", "```", ""],
        *["Warning: Mind the gap", "Text.", "", ""],
        *["", "", "See Client.", ""],
    ]


def test_a_doc_whose_text_is_its_bytes_may_be_folded_without_decoding() -> None:
    assert bare(b"# T\n\nplain {braces} text\n", "a.md")
    assert not bare(b"---\ntitle: T\n---\n", "a.md")
    assert not bare(b"Use {func}`x`.\n", "a.md")
    assert not bare(b"```{note}\nx\n```\n", "a.md")
    assert not bare(b"Text.\n", "a.mdx")
    assert bare(b"Title\n=====\n\nText::\n\n  code\n", "a.rst")
    assert not bare(b"Use :func:`x`.\n", "a.rst")
    for data, name in [(b"# T\n\nplain {braces} text\n", "a.md"), (b"T\n=\n\nA::\n", "a.rst")]:
        assert doc_lines(data, name) == data.decode().splitlines()


def test_a_docs_site_in_mdx_is_read_by_its_titles_without_imports_or_tags() -> None:
    ctx = DocsContext(Corpus.open(SITE / "docs"))
    assert list_docs(ctx).splitlines() == [
        "api/config.md  (13 lines)  Configuration reference",
        "guides/caching.mdx  (39 lines)  Caching, in depth",
        "guides/rollback.mdx  (17 lines)  Roll back a deploy",
        "intro.mdx  (34 lines)  Getting started with Skiff",
    ]
    assert search_docs(ctx, "components").startswith("no section of the docs mentions components")
    shown = read_doc(ctx, "intro.mdx", 1, 20)
    assert "   1| # Getting started with Skiff" in shown
    assert "   2| Skiff ships static sites to any object store in one command." in shown
    assert "  18|     npm install --save-dev skiff-cli" in shown  # where the file has it
    assert "import" not in shown and "<" not in shown
    index = DocsIndex(ctx.corpus)
    assert index.search("cache control header")[0].path == "guides/caching.mdx"


def test_a_question_on_the_mdx_site_is_answered_with_a_verified_citation() -> None:
    answer, _ = converse(SITE / "docs", "How do I roll back a deploy?")
    assert "> Run `skiff rollback r42`." in answer
    citations = find_citations(answer, Corpus.open(SITE / "docs"))
    assert "Source: guides/rollback.mdx:13-15" in answer
    assert {c.path for c in citations} == {"guides/rollback.mdx"}
    assert all(c.valid for c in citations)
