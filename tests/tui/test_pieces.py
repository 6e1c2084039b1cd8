"""Each kind of piece on its own: exact lines at a width, its bar apart, its height."""

from __future__ import annotations

import io

from rich.console import Console

from tests.tui.conftest import plain
from tui.transcript.entries import Card, NoticeEntry, SystemEntry
from tui.transcript.pieces import (
    ANSWER_BAR,
    PARTIAL_BAR,
    AnswerNotes,
    Blank,
    EntryLine,
    Label,
    Line,
    MarkdownChunk,
    Pen,
    Piece,
    PlainChunk,
    PlainNote,
    ToolCard,
)

WIDTH = 40


def pen() -> Pen:
    console = Console(file=io.StringIO(), width=WIDTH, color_system=None)
    return Pen(console, console.options)


def shown(piece: Piece, width: int = WIDTH) -> list[str]:
    """What a piece shows at `width`: its bar before each line, as the layout reads it."""
    lines: list[Line] = piece.lines(pen(), width)
    assert piece.height(pen(), width) == len(lines)
    return [plain([*piece.bar, *line]) for line in lines]


def test_each_piece_shows_its_lines_at_a_width() -> None:
    assert shown(Blank(ANSWER_BAR)) == ["▌"]
    assert shown(EntryLine(SystemEntry("You answer questions " * 5))) == [
        "system You answer questions You answer …"
    ]
    assert shown(EntryLine(NoticeEntry("retrying", "warning"))) == ["retrying"]
    assert shown(Label(3, streaming=True)) == ["assistant · step 3  …"]
    assert shown(Label(0, streaming=False, bar=PARTIAL_BAR)) == ["▌ assistant · earlier"]
    assert shown(PlainNote(5_000, bar=ANSWER_BAR))[0] == "▌ … past 20,000 characters the text is"
    assert shown(AnswerNotes((), "declined", ("a.pdf:1-2 (p. 1)",)))[0] == "pages: a.pdf:1-2 (p. 1)"


def test_a_chunk_of_text_leaves_its_margin_whatever_its_bar() -> None:
    words = "word " * 20
    assert shown(PlainChunk(words)) == ["word " * 6 + "word"] * 2 + ["word " * 5 + "word"]
    assert shown(PlainChunk(words)) == [line[2:] for line in shown(PlainChunk(words, ANSWER_BAR))]
    assert shown(MarkdownChunk("**Bold** text", bar=ANSWER_BAR)) == ["▌ Bold text"]
    # Its bar is put before its lines, not drawn: the answer keeps the lines drawn as it streamed.
    assert MarkdownChunk("text", bar=ANSWER_BAR) == MarkdownChunk("text")
    assert MarkdownChunk("text", ("a.md:1-2",)) != MarkdownChunk("text")


def test_a_markdown_chunk_after_a_blank_line_keeps_one_above_it() -> None:
    assert shown(MarkdownChunk("Next paragraph.", gap=True)) == ["", "Next paragraph."]
    assert shown(MarkdownChunk("- item", gap=True)) == ["", " • item"]  # a list brings its own
    assert shown(MarkdownChunk("Next paragraph.")) == ["Next paragraph."]


def test_a_tool_card_says_by_its_bar_how_the_call_went() -> None:
    done = Card("c1", "read_doc", '{"path": "a.md"}', "line one\nline two", duration_s=0.01)
    failed = Card("c2", "read_doc", "{}", "no such file", error=True)
    repeat = Card("c3", "read_doc", "{}", "same", repeat_of=2)
    assert shown(ToolCard(done)) == [
        '  │ ▸ read_doc(path="a.md")  10 ms',
        "  │   line one",
        "  │   line two",
    ]
    assert shown(ToolCard(done, outer=ANSWER_BAR))[0].startswith("▌   │ ▸ read_doc")
    assert shown(ToolCard(failed))[0].endswith("error") and ToolCard(failed).call_id == "c2"
    assert shown(ToolCard(repeat))[0] == "  ╎ ▸ read_doc()  ↻ repeat of step 2"
    long = Card("c4", "read_doc", "{}", "x" * 800)
    assert ToolCard(long).cost == 0 and ToolCard(long, expanded=True).cost == 100
