from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from agent.readers.base import NotText
from agent.readers.names import not_a_doc, skipped_summary
from agent.readers.registry import doc_lines, doc_suffix, heading_style
from agent.readers.unzip import gunzip
from agent.tools.citations import find_citations
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
from tests.agent.test_search_html_pages import SPHINX


def test_a_plain_page_without_marked_content_keeps_its_body() -> None:
    page = (
        "<html><head><title>T</title><style>p{}</style></head><body>"
        "<nav>menu</nav><h3>Notes</h3>Loose text<br>next line<p>A &amp; B</p>"
        "<script>alert(1)</script></body></html>"
    )
    assert doc_lines(page.encode(), "notes.html") == [
        "### Notes",
        "",
        "Loose text",
        "next line",
        "",
        "A & B",
    ]


def test_long_html_paragraphs_are_wrapped_like_a_source() -> None:
    page = "<p>" + " ".join(f"word{n}" for n in range(60)) + "</p>"
    lines = doc_lines(page.encode(), "a.html")
    assert len(lines) > 1 and all(len(line) <= 100 for line in lines)
    assert " ".join(lines).split() == [f"word{n}" for n in range(60)]


def test_html_charset_and_byte_order_marks() -> None:
    latin = '<meta charset="iso-8859-1"><p>caf\xe9</p>'.encode("latin-1")
    assert doc_lines(latin, "a.html") == ["café"]
    assert doc_lines("\ufeff# Título\n".encode(), "a.md") == ["# Título"]
    assert doc_lines("line\n".encode("utf-16"), "a.txt") == ["line"]


def test_lines_split_as_an_editor_numbers_them() -> None:
    assert doc_lines(b"a\r\nb\rc\x0cstill c\n\nd", "a.md") == ["a", "b", "c\x0cstill c", "", "d"]
    assert doc_lines(b"bad \xff byte\n", "a.txt") == ["bad \ufffd byte"]


def test_gzipped_docs_read_as_their_inner_type() -> None:
    assert doc_lines(gzip.compress(b"# Title\ntext\n"), "NEWS.md.gz") == ["# Title", "text"]
    html = gzip.compress(b"<h2>Part</h2><p>text</p>")
    assert doc_lines(html, "page.html.gz") == ["## Part", "", "text"]
    two_members = gzip.compress(b"one\n") + gzip.compress(b"two\n")
    assert doc_lines(two_members, "a.txt.gz") == ["one", "two"]
    assert heading_style("x.rst.gz") == "rst" and doc_suffix("X.HTML.GZ") == ".html"


def test_gzip_bombs_broken_gzips_and_binary_files_are_not_text() -> None:
    with pytest.raises(NotText, match="unzips to more than 1 MB"):
        gunzip(gzip.compress(b"0" * (2 * 1024 * 1024)), limit=1024 * 1024)
    with pytest.raises(NotText, match="not a valid gzip file"):
        doc_lines(b"plain bytes", "a.md.gz")
    with pytest.raises(NotText, match="cut short"):
        doc_lines(gzip.compress(b"x" * 1000)[:20], "a.md.gz")
    with pytest.raises(NotText, match="binary"):
        doc_lines(b"\x89PNG\r\n\x1a\n\0\0\0", "image.md")


def test_which_names_are_docs() -> None:
    assert not_a_doc("guide/intro.md") is None
    assert not_a_doc("README.txt.gz") is None
    assert not_a_doc("logo.png") == "unknown type"
    assert not_a_doc("changelog.gz") == "unknown type"
    assert not_a_doc("genindex.html") == "generated"
    assert not_a_doc("api/genindex-all.html") == "generated"
    assert not_a_doc("_sources/intro.rst.txt") == "generated"
    assert not_a_doc("topics/search.html", built=lambda folder: folder != "topics") is None


def test_a_page_named_like_a_builders_search_page_is_a_doc_outside_the_build_root(
    tmp_path: Path,
) -> None:
    root = tmp_path / "html"
    (root / "_static").mkdir(parents=True)
    (root / "topics" / "db").mkdir(parents=True)
    (root / "search.html").write_text("<h1>Search</h1><p>Please activate JavaScript.</p>")
    (root / "genindex.html").write_text("<h1>Index</h1>")
    (root / "topics" / "db" / "search.html").write_text("<h1>Search</h1><p>Full-text search.</p>")
    corpus = Corpus.open(root)
    assert corpus.paths() == ["topics/db/search.html"]
    assert corpus.passed_over() == {"search.html": "generated", "genindex.html": "generated"}


def test_the_skipped_summary_counts_by_reason() -> None:
    skipped = {
        "a.png": "unknown type",
        "b.png": "unknown type",
        "c.js": "unknown type",
        "d.css": "unknown type",
        "e.svg": "unknown type",
        "data.txt": "binary",
    }
    assert skipped_summary(skipped) == (
        "6 files skipped: 5 of unknown type (2 .png, 1 .css, 1 .js, …); 1 binary (data.txt)"
    )


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "_static").mkdir(parents=True)
    (root / "timeouts.html").write_text(SPHINX)
    (root / "NEWS.md.gz").write_bytes(gzip.compress(b"# News\n\n## 2.0\n\nPool timeout added.\n"))
    (root / "data.txt").write_bytes(b"\0\1\2binary")
    (root / "_static" / "doctools.js").write_text("var x;")
    (root / "genindex.html").write_text("<h1>Index</h1>")
    return root


def call(ctx: DocsContext, name: str, raw: str) -> tuple[str, bool]:
    outcome = docs_registry().call(name, raw, [ctx])
    return outcome.output, outcome.error


def test_the_docs_tools_and_citations_count_the_same_lines(mixed: Path) -> None:
    corpus = Corpus.open(mixed)
    ctx = DocsContext(corpus)
    assert call(ctx, "list_docs", "{}") == (
        "(2 docs; 2 files skipped: 1 generated (genindex.html); 1 of unknown type (1 .js))\n"
        "(skipped data.txt: binary)\n"
        "NEWS.md.gz  (5 lines)  News\n"
        "timeouts.html  (13 lines)  Timeouts",
        False,
    )
    assert call(ctx, "grep_docs", '{"keyword": "pool"}') == (
        "(skipped data.txt: binary)\n"
        "NEWS.md.gz:5: Pool timeout added.\n"
        "timeouts.html:5: ## Pool timeout\n"
        "timeouts.html:8: - pool: waiting for a connection",
        False,
    )
    output, error = call(ctx, "read_doc", '{"path": "timeouts.html", "start": 5, "end": 5}')
    assert (output, error) == ("timeouts.html lines 5-5 of 13\n   5| ## Pool timeout", False)
    assert call(ctx, "read_doc", '{"path": "data.txt"}') == (
        "error: cannot read data.txt: binary; call list_docs to see the files",
        True,
    )
    cited = find_citations("See timeouts.html:5-13 and NEWS.md.gz:3-5 and x.html:1", corpus)
    assert [(c.path, c.start, c.end, c.valid) for c in cited] == [
        ("timeouts.html", 5, 13, True),
        ("NEWS.md.gz", 3, 5, True),
        ("x.html", 1, 1, False),
    ]


def test_an_unreadable_doc_is_counted_not_fatal(mixed: Path) -> None:
    (mixed / "gone.md").write_text("# Gone\n")
    ctx = DocsContext(Corpus.open(mixed))
    (mixed / "gone.md").unlink()  # after the scan: reading it fails
    output, error = call(ctx, "list_docs", "{}")
    assert not error
    assert output.splitlines()[:2] == [
        "(2 docs; 2 files skipped: 1 generated (genindex.html); 1 of unknown type (1 .js))",
        "(skipped 2 docs that could not be read — binary: data.txt; it no longer exists: gone.md)",
    ]
    grep = call(ctx, "grep_docs", '{"keyword": "gone"}')[0].splitlines()
    assert grep[0].startswith("(skipped 2 docs") and grep[1].startswith("no matches")


def test_a_doc_read_in_several_ranges_is_turned_into_text_once_while_unchanged(
    mixed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = Corpus.open(mixed)
    reads: list[str] = []
    real_read = corpus.read

    def read(rel: str) -> object:
        reads.append(rel)
        return real_read(rel)

    monkeypatch.setattr(corpus, "read", read)
    first = corpus.lines("timeouts.html", 1, 3)
    assert corpus.lines("timeouts.html", 5, 5) == ["## Pool timeout"]
    assert corpus.lines("timeouts.html", 1, 3) == first and reads == ["timeouts.html"]
    ctx = DocsContext(corpus)
    shown, error = call(ctx, "read_doc", '{"path": "timeouts.html", "start": 5, "end": 5}')
    assert not error and corpus.line_count("timeouts.html") == 13
    assert reads == ["timeouts.html"]  # read_doc and the line count use the same text
    page = mixed / "timeouts.html"
    page.write_text(page.read_text().replace("Pool timeout", "Pool limit"))
    assert corpus.lines("timeouts.html", 5, 5) == ["## Pool limit"]
    assert reads == ["timeouts.html", "timeouts.html"]
