"""The PDF reader over small PDFs written in the test: pages, labels, outline, damage."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.readers import pdf
from agent.readers.base import NotText
from agent.readers.pages import Pages, pages_in
from agent.readers.pdf import Limits
from agent.readers.registry import doc_lines, is_paged
from tests.pdf_support import Bookmark, bomb, pdf_bytes

INTRO = ["1 Introduction", "docsagent answers questions from your docs."]
INSTALL = ["2 Installing", "Run make install.", "2.1 Offline", "No network is needed."]


def test_each_page_starts_with_its_mark_and_its_text_lines_follow() -> None:
    lines = doc_lines(pdf_bytes([INTRO, INSTALL]), "guide.pdf")
    assert lines == ["[p. 1]", *INTRO, "[p. 2]", *INSTALL]


def test_marks_hold_the_printed_page_labels_where_the_pdf_has_them() -> None:
    data = pdf_bytes([["Cover"], ["Preface"], INTRO, INSTALL], labels={0: "/S /r", 2: "/S /D"})
    lines = doc_lines(data, "guide.pdf")
    assert [line for line in lines if line.startswith("[p. ")] == [
        "[p. i]",
        "[p. ii]",
        "[p. 1]",
        "[p. 2]",
    ]
    pages = pages_in("\n".join(lines))
    assert pages.span(2, 2) == "i"
    assert pages.span(4, 7) == "ii–1"
    assert pages.span(4, 8) == "ii–2"  # line 8 is the mark that starts page 2


def test_the_outline_becomes_headings_at_the_lines_that_print_them() -> None:
    outline = [
        Bookmark("Introduction", 0),
        Bookmark("Installing", 1, [Bookmark("Offline", 1), Bookmark("Not printed", 1)]),
    ]
    lines = doc_lines(pdf_bytes([INTRO, INSTALL], outline=outline), "guide.pdf")
    assert lines == [
        "[p. 1]",
        "# 1 Introduction",
        "docsagent answers questions from your docs.",
        "[p. 2]",
        "# 2 Installing",
        "Run make install.",
        "## 2.1 Offline",
        "## Not printed",  # where the last one placed ends: no line prints it
        "No network is needed.",
    ]


def test_text_that_looks_like_a_heading_a_fence_or_a_mark_is_indented() -> None:
    page = ["# a shell comment", "```", "[p. 7]", "Title", "-----", "plain"]
    lines = doc_lines(pdf_bytes([page]), "guide.pdf")
    assert lines == [
        "[p. 1]",
        "    # a shell comment",
        "    ```",
        "    [p. 7]",
        "Title",
        "    -----",
        "plain",
    ]
    assert pages_in("\n".join(lines)) == Pages((1,), ("1",))


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (pdf_bytes([None, None]), "no text: scanned pages need OCR"),
        (pdf_bytes([INTRO], encrypt=True), "encrypted: it needs a password"),
        (pdf_bytes([INTRO, INSTALL])[:300], "damaged: not a PDF that can be read"),
        (b"%PDF-1.7\nnot really", "damaged: not a PDF that can be read"),
    ],
    ids=["scanned", "encrypted", "truncated", "garbage"],
)
def test_a_pdf_without_readable_text_is_named_in_a_few_words(data: bytes, reason: str) -> None:
    with pytest.raises(NotText) as caught:
        doc_lines(data, "scan.pdf")
    assert str(caught.value) == reason


def test_a_pdf_of_more_pages_or_text_than_the_bounds_is_too_big() -> None:
    with pytest.raises(NotText, match=r"too big: 4 pages \(at most 3 are read\)"):
        pdf.read(pdf_bytes([INTRO] * 4), Limits(pages=3))
    with pytest.raises(NotText, match=r"too big: more than 0 million characters"):
        pdf.read(pdf_bytes([INTRO] * 4), Limits(chars=100))


def test_a_decompression_bomb_ends_the_child_not_the_program() -> None:
    data = pdf_bytes([INTRO], flate_content={0: bomb(400 << 20)})
    assert len(data) < 1 << 20  # inflating to 400 MB, past the 256 MB given
    with pytest.raises(NotText, match="too big: more than 256 MB to read"):
        pdf.read(data, Limits(memory=256 << 20))


def test_a_deep_or_long_outline_is_read_to_its_bounds() -> None:
    deep = Bookmark("level 0", 0)
    at = deep
    for level in range(1, 40):
        at.children.append(Bookmark(f"level {level}", 0))
        at = at.children[0]
    many = [Bookmark(f"mark {n}", 0) for n in range(50)]
    lines = pdf.read(pdf_bytes([INTRO], outline=[deep, *many]), Limits(depth=8, marks=20))
    headings = [line for line in lines.split("\n") if line.startswith("#")]
    assert len(headings) == 20
    assert headings[:9] == [
        *(f"{'#' * min(n + 1, 6)} level {n}" for n in range(8)),  # 8 levels, the rest at 6
        "# mark 0",
    ]


def test_only_pdfs_are_paged() -> None:
    assert is_paged("manual.pdf") and is_paged("docs/Manual.PDF.gz")
    assert not is_paged("guide.md") and not is_paged("page.html")


def test_the_child_runs_this_docsagents_reader_wherever_it_was_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "agent").mkdir()  # a folder of the same name where docsagent runs
    (tmp_path / "agent" / "__init__.py").write_text("raise SystemExit('not ours')\n")
    monkeypatch.chdir(tmp_path)
    assert doc_lines(pdf_bytes([INTRO]), "guide.pdf") == ["[p. 1]", *INTRO]


def test_a_pdf_that_takes_too_long_is_named_too_slow() -> None:
    with pytest.raises(NotText, match=r"too slow: more than 1 s to read"):
        pdf.read(pdf_bytes([INTRO * 20] * 4000), Limits(cpu_seconds=1))


def test_text_beyond_ascii_comes_through_whole() -> None:
    page = ["Café naïve — ½ of the 20 € fee"]
    assert doc_lines(pdf_bytes([page]), "guide.pdf") == ["[p. 1]", *page]


def test_an_outline_that_loops_back_is_read_once() -> None:
    data = pdf_bytes([["Alpha"], ["Beta"]], outline=[Bookmark("Alpha", 0), Bookmark("Beta", 1)])
    beta = re.search(
        rb"/Title \(Beta\) /Parent \d+ 0 R /Dest \[\d+ 0 R /Fit\] /Prev (\d+) 0 R", data
    )
    assert beta is not None
    looped = data.replace(beta[0], beta[0] + b" /Next " + beta[1] + b" 0 R", 1)  # Beta -> Alpha
    assert pdf.read(looped).split("\n") == ["[p. 1]", "# Alpha", "[p. 2]", "# Beta"]
