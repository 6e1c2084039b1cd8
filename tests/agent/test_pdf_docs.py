"""A folder of PDFs through the docs tools, the index and citations: pages everywhere."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.events import ToolCallFinished
from agent.search import DocsIndex
from agent.tools.citations import find_citations, with_pages
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, list_docs, read_doc, search_docs
from tests.pdf_support import Bookmark, pdf_bytes

PAGES = [
    ["Guide to the widget"],  # i
    ["Preface", "This guide covers the widget, version 2."],  # ii
    ["1 Installing", "Run make install to build the widget.", "1.1 Offline"],  # 1
    ["Copy the wheel files first: no network is needed when offline.", "Done."],  # 2
]
OUTLINE = [Bookmark("Preface", 1), Bookmark("Installing", 2, [Bookmark("Offline", 2)])]


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    labels = {0: "/S /r", 2: "/S /D"}
    (root / "guide.pdf").write_bytes(pdf_bytes(PAGES, labels=labels, outline=OUTLINE))
    (root / "scan.pdf").write_bytes(pdf_bytes([None, None]))
    (root / "notes.md").write_text("# Notes\n\nThe widget has no network code.\n")
    return root


def context(root: Path, cache: Path) -> DocsContext:
    corpus = Corpus.open(root)
    return DocsContext(corpus, DocsIndex(corpus, cache_dir=cache))


GUIDE = [
    "[p. i]",
    "Guide to the widget",
    "[p. ii]",
    "# Preface",
    "This guide covers the widget, version 2.",
    "[p. 1]",
    "# 1 Installing",
    "Run make install to build the widget.",
    "## 1.1 Offline",
    "[p. 2]",
    "Copy the wheel files first: no network is needed when offline.",
    "Done.",
]


def test_read_doc_shows_a_pdfs_lines_and_names_their_pages(docs: Path, tmp_path: Path) -> None:
    ctx = context(docs, tmp_path / "cache")
    shown = read_doc(ctx, "guide.pdf", 1, 20)
    numbered = [f"{n:>4}| {line}" for n, line in enumerate(GUIDE, start=1)]
    assert shown.splitlines() == ["guide.pdf lines 1-12 of 12 (p. i–2)", *numbered]
    assert read_doc(ctx, "guide.pdf", 10, 11).splitlines()[0] == (
        "guide.pdf lines 10-11 of 12 (p. 2)"
    )
    assert read_doc(ctx, "notes.md").splitlines()[0] == "notes.md lines 1-3 of 3"


def test_search_finds_a_pdfs_section_under_its_outline_with_its_page(
    docs: Path, tmp_path: Path
) -> None:
    ctx = context(docs, tmp_path / "cache")
    found = search_docs(ctx, "wheel files offline")
    assert found.splitlines()[1] == "1. guide.pdf:9-12 (p. 1–2)  1 Installing > 1.1 Offline"


def test_list_docs_names_a_scanned_pdf_and_why_it_was_skipped(docs: Path, tmp_path: Path) -> None:
    ctx = context(docs, tmp_path / "cache")
    assert list_docs(ctx).splitlines() == [
        "(skipped scan.pdf: no text: scanned pages need OCR)",
        "guide.pdf  (12 lines)  Preface",
        "notes.md  (3 lines)  Notes",
    ]


def test_the_index_keeps_a_pdfs_text_so_a_later_run_does_not_read_it_again(
    docs: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    context(docs, cache).search_index().prepare()
    for name in ("guide.pdf", "scan.pdf"):  # the same size and time, but no PDF at all now
        path = docs / name
        info = path.stat()
        path.write_bytes(b"x" * info.st_size)
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    later = context(docs, cache)  # a new run: a new corpus over the same index file
    assert read_doc(later, "guide.pdf", 1, 2).splitlines()[1:] == [
        "   1| [p. i]",
        "   2| " + GUIDE[1],
    ]
    assert "(skipped scan.pdf: no text: scanned pages need OCR)" in list_docs(later)
    os.utime(docs / "guide.pdf", ns=(1, 1))  # changed: read again, and found damaged now
    changed = context(docs, cache)
    assert "damaged: not a PDF that can be read: guide.pdf" in list_docs(changed)


def test_a_citation_of_a_pdf_names_its_pages_from_the_doc_or_from_the_run(docs: Path) -> None:
    corpus = Corpus.open(docs)
    answer = "Copy the wheels (guide.pdf:10-11); see guide.pdf:4-5 and notes.md:3."
    cited = find_citations(answer, corpus)
    assert [(c.label, c.page) for c in cited] == [
        ("guide.pdf:10-11", "2"),
        ("guide.pdf:4-5", "ii"),
        ("notes.md:3", None),
    ]
    assert [c.to_dict().get("page") for c in cited] == ["2", "ii", None]
    assert "page" not in cited[2].to_dict()  # other docs' citations keep their shape
    assert with_pages(answer, cited) == (
        "Copy the wheels (guide.pdf:10-11 (p. 2)); see guide.pdf:4-5 (p. ii) and notes.md:3."
    )
    ctx = DocsContext(corpus)
    events = [  # without the docs (a replay, an export): the pages the run's reads showed
        ToolCallFinished(
            step=1,
            tool_call_id="a",
            name="read_doc",
            output=read_doc(ctx, "guide.pdf", 8, 12),
            error=False,
            duration_s=0.0,
        ),
    ]
    without_docs = find_citations(answer, None, events)
    assert [(c.label, c.read, c.page) for c in without_docs] == [
        ("guide.pdf:10-11", True, "2"),
        ("guide.pdf:4-5", False, None),  # not read in the run: its page is not known
        ("notes.md:3", False, None),
    ]
    assert with_pages("As guide.pdf:10-11 (p. 2) says.", without_docs) == (
        "As guide.pdf:10-11 (p. 2) says."  # already named: not twice
    )
