"""EPUB books and man pages: `make bench`.

- the man and EPUB readers are linear: time(2n) / time(n) at most 2.6 on the shapes that
  would make them quadratic (escapes that never close, a table of contents of many
  entries, a chapter's text broken by many tags);
- real files, fetched once into the cache folder with `apt-get download` (never
  installed): Debian's `debmake-doc` EPUB and GNU tar's man page (`tar.1.gz`) each answer
  a question offline with a verified citation of the right lines. Without its data the
  benchmark fails: it never passes by skipping.
"""

from __future__ import annotations

import io
import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from agent.readers import epub, man
from agent.tools.citations import Citation, find_citations
from agent.tools.corpus import Corpus
from tests.agent.test_offline import converse
from tests.agent.test_readers_books import BOOK, CONTAINER
from tests.bench.test_bench_hostile import assert_linear

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "docsagent-bench"


def _book(nav: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("META-INF/container.xml", CONTAINER)
        for name, data in {**BOOK, "OEBPS/nav.xhtml": nav}.items():
            book.writestr(name, data)
    return out.getvalue()


SHAPES = {
    "man escapes never closed": lambda n: (r"\[" * n + r"\f(" * n + r"\h'" * n).encode(),
    "man tags": lambda n: (".TP\n\\fB\\-x\\fR\ntext \\(em more\n" * n).encode(),
    "man quoted arguments": lambda n: ('.BR "' + 'a ""b"" ' * n).encode(),
    "epub table of contents": lambda n: _book('<a href="text/ch1.xhtml">T</a>' * n),
    "epub broken text": lambda n: _book("<text>a</b>" * n),
}
N = 20_000


@pytest.mark.parametrize("name", SHAPES)
def test_each_book_reader_is_linear_under_doubling(name: str) -> None:
    read = epub.read if name.startswith("epub") else man.read
    small, large = SHAPES[name](N), SHAPES[name](2 * N)
    assert_linear(f"reader {name}", N, lambda: read(small), lambda: read(large))


def unpacked(package: str) -> Path:
    """A Debian package's files, downloaded and unpacked into the cache folder once."""
    folder = CACHE / package
    if (folder / "usr").is_dir():
        return folder
    debs = CACHE / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    try:
        if not list(debs.glob(f"{package}_*.deb")):
            subprocess.run(
                ["apt-get", "download", package], cwd=debs, capture_output=True, timeout=300
            )
        found = sorted(debs.glob(f"{package}_*.deb"))
        if not found:
            pytest.fail(f"cannot download the Debian package {package} (apt-get download)")
        subprocess.run(["dpkg-deb", "-x", str(found[-1]), str(folder)], check=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.fail(f"cannot unpack the Debian package {package}: {exc}")
    return folder


def answered(file: Path, folder: Path, question: str) -> tuple[str, list[Citation], list[str]]:
    """The offline answer to `question` with `file` alone in `folder` as the docs, its valid
    citations, and the file's text lines."""
    folder.mkdir()
    (folder / file.name).write_bytes(file.read_bytes())
    answer, _ = converse(folder, question)
    corpus = Corpus.open(folder)
    cited = [c for c in find_citations(answer, corpus) if c.valid]
    return answer, cited, corpus.read(file.name).text.split("\n")


def test_a_real_epub_answers_with_a_verified_citation(tmp_path: Path) -> None:
    book = unpacked("debmake-doc") / "usr/share/doc/debmake-doc/debmake-doc.en.epub"
    _, cited, text = answered(book, tmp_path / "books", "How do I configure quilt?")
    first = cited[0] if cited else None
    shown = text[first.start - 1 : first.end] if first else []
    print(
        f"\nreal EPUB (debmake-doc): {len(text):,} lines; first citation "
        f"{first.path if first else None}:{first.start if first else 0}-"
        f"{first.end if first else 0} (target: a valid citation of the lines on dquilt)"
    )
    assert first is not None and any("dquilt" in line for line in shown)


def test_a_real_man_page_answers_which_flag_of_tar_keeps_permissions(tmp_path: Path) -> None:
    page = unpacked("tar") / "usr/share/man/man1/tar.1.gz"
    answer, cited, text = answered(page, tmp_path / "man1", "Which flag of tar keeps permissions?")
    flags = [f"{c.path}:{c.start}-{c.end}" for c in cited]
    right = [
        c for c in cited if any("--preserve-permissions" in t for t in text[c.start - 1 : c.end])
    ]
    print(
        f"\nreal man page (tar.1.gz): cited {flags} "
        "(target: one of them holds -p, --preserve-permissions)"
    )
    assert right, answer
