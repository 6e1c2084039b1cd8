"""What each entry of the transcript looks like: its pieces, each drawn on its own.

An entry is a block of pieces (a blank line above it, a label, the chunks of a turn's
text, notes, tool cards). A piece is the unit the transcript draws and measures: a
growing answer changes only its last chunk piece, so only that one is drawn again.
Pieces that did not change keep their object (and the lines drawn for it) across
updates. Nothing here draws: `tui.transcript.layout` renders pieces at a width, on demand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from rich.theme import Theme

from tui.render import answer_notes, card_view, entry_text, mark_unread, turn_label
from tui.terminal import visible
from tui.transcript.chunks import MARKDOWN_CHARS, Chunks
from tui.transcript.entries import Card, Entry, NoticeEntry, SystemEntry, TurnEntry, UserEntry

DRAWN_CHARS = 400_000
"""Past this, a text is not drawn at all (a screen of megabytes cannot be read anyway):
the note says how much is left out; copy and export still give the whole text."""
PLAIN_COST = 8  # plain text costs about an eighth of Markdown to draw

WARN_STRIKES = Theme({"markdown.s": "bold underline yellow"})
"""Struck text in an answer that cites unread lines is a flagged citation (`mark_unread`)."""

ANSWER_BAR = [Segment("▌", Style(color="green")), Segment(" ")]
PARTIAL_BAR = [Segment("▌", Style(color="yellow", dim=True)), Segment(" ")]
CARD_BARS = {
    "": [Segment("  "), Segment("│", Style(color="blue")), Segment(" ")],
    "error": [Segment("  "), Segment("│", Style(color="red")), Segment(" ")],
    "repeat": [Segment("  "), Segment("╎", Style(color="blue", dim=True)), Segment(" ")],
}
MUTED = Style(dim=True)
TEXT_MARGIN = 2
"""Columns a turn's text leaves free, at its left for the answer's bar, else at its right:
a turn that turns out to be the answer keeps the lines drawn as it streamed."""


class WarnedMarkdown:
    """A chunk's Markdown, its struck text shown as a warning when `warn` (one theme per chunk)."""

    def __init__(self, text: str, *, warn: bool) -> None:
        self.markdown = Markdown(text, hyperlinks=False)
        self.warn = warn

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self.warn:
            yield self.markdown
            return
        with console.use_theme(WARN_STRIKES):
            yield from console.render(self.markdown, options)


def plain_note(rest: int, hidden: int = 0) -> Text:
    """The note where a long text turns to plain: how much follows, and why."""
    left_out = (
        f"; the last {hidden:,} are not drawn (ctrl+y copies the whole text)" if hidden else ""
    )
    return Text(
        f"… past {MARKDOWN_CHARS:,} characters the text is shown as plain text, so the screen "
        f"keeps up: {rest:,} more characters{left_out}",
        "dim italic",
    )


@dataclass(eq=False, slots=True)
class Piece:
    """One part of a block, drawn on its own (`line_renderable` gives what it draws).

    Renderables are made when a piece is drawn, not kept: a parsed Markdown chunk is
    hundreds of objects, and the collector walks every object kept, at every full pass.

    `key` says what it shows: a piece with an equal key and the same `source` object
    draws the same. `count` is its height in lines at `width` (an estimate until drawn
    at the current width); `lines` are kept for a few pieces near the view only.
    """

    key: tuple[object, ...]
    source: object
    renderable: RenderableType | None  # None: made from the key, source and text when drawn
    bar: list[Segment] = field(default_factory=list)
    cost: int = 0  # characters of Markdown it costs to draw, about
    card: str | None = None  # the call id, when the piece is a tool card
    style: Style | None = None
    count: int = 1
    width: int = -1
    lines: list[list[Segment]] | None = None
    text: str = ""  # a chunk's text
    gap: bool = False  # a Markdown chunk after a blank line: drawn with one above it

    def same(self, other: Piece) -> bool:
        return self.key == other.key and self.source is other.source


_BLANKS: dict[tuple[Segment, ...], Piece] = {}


def _blank(bar: list[Segment] | None = None) -> Piece:
    """A blank line: one piece per bar, shared (it draws the same wherever it is)."""
    key = tuple(bar or ())
    if key not in _BLANKS:
        _BLANKS[key] = Piece(("blank",), None, None, list(key), count=1)
    return _BLANKS[key]


@dataclass(eq=False)
class Block:
    """The pieces of one entry, and for a turn the cut of its text so far."""

    entry: Entry
    pieces: list[Piece]
    text: str = ""
    chunks: Chunks = field(default_factory=Chunks)
    bar: list[Segment] = field(default_factory=list)  # before each line of its text chunks

    @property
    def count(self) -> int:
        return sum(piece.count for piece in self.pieces)


def block_for(entry: Entry, old: Block | None, expanded: set[str]) -> Block:
    """The block showing `entry`, reusing the pieces of `old` (the entry's earlier version)."""
    if isinstance(entry, TurnEntry):
        return _turn_block(entry, old, expanded)
    line = _line_piece(entry)
    pieces = [line] if isinstance(entry, SystemEntry) else [_blank(), line]
    if old is not None and len(old.pieces) == len(pieces) and old.pieces[-1].same(line):
        return Block(entry, old.pieces)
    return Block(entry, pieces)


def _line_piece(entry: SystemEntry | UserEntry | NoticeEntry) -> Piece:
    # The system prompt is cut to one line at the width: drawn from the width it gets.
    return Piece(
        ("line", entry), entry, None, style=MUTED if isinstance(entry, SystemEntry) else None
    )


def line_renderable(piece: Piece, width: int) -> RenderableType:
    """What a piece draws at `width` (a one-line entry depends on the width)."""
    if piece.renderable is not None:
        return piece.renderable
    kind, source = piece.key[0], piece.source
    if kind == "chunk":
        markdown, unread = piece.key[3], piece.key[4]
        if not markdown:
            return Text(visible(piece.text))
        assert isinstance(unread, tuple)
        return WarnedMarkdown(visible(mark_unread(piece.text, unread)), warn=bool(unread))
    if kind == "card":
        assert isinstance(source, Card)
        return card_view(source, expanded=bool(piece.key[1]))
    if kind == "label":
        step, streaming = piece.key[1], piece.key[2]
        assert isinstance(step, int)
        return turn_label(step, bool(streaming))
    assert isinstance(source, SystemEntry | UserEntry | NoticeEntry)
    return entry_text(source, width=max(width, 20))


def _turn_block(entry: TurnEntry, old: Block | None, expanded: set[str]) -> Block:
    # The text is cut as it streamed; flagged citations are marked chunk by chunk when a
    # chunk is drawn (marking a long answer whole took a third of a second at its end).
    unread = entry.unread
    text = entry.text
    grew = old is not None and text.startswith(old.text)
    chunks = old.chunks if old is not None and grew else Chunks()
    chunks.extend(text)
    bar = ANSWER_BAR if entry.answer else PARTIAL_BAR if entry.partial else []
    reuse = {
        (p.key, id(p.source)): p
        for p in (old.pieces if old is not None else ())
        if grew or p.key[0] != "chunk"  # a text cut again: its chunks say other things
    }

    def piece(new: Piece) -> Piece:
        kept = reuse.get((new.key, id(new.source)))
        return kept if kept is not None else new

    label = ("label", entry.step, entry.streaming, bool(bar), entry.partial)
    pieces = [_blank(), piece(Piece(label, None, None, bar))]
    bounds = [*chunks.starts, len(text)]
    drawn = 0
    for start, end in zip(bounds, bounds[1:], strict=False):
        if drawn >= DRAWN_CHARS or end <= start:
            break
        markdown = chunks.plain_from is None or start < chunks.plain_from
        if not markdown and start == chunks.plain_from:
            hidden = max(len(text) - _drawn_end(bounds), 0)
            note = plain_note(len(text) - start, hidden)
            pieces += [
                _blank(bar),
                piece(Piece(("note", note.plain), None, note, bar)),
                _blank(bar),
            ]
        # Only the flagged citations a chunk may hold make it draw differently.
        flags = tuple(label for label in unread if label.split(":", 1)[0] in text[start:end])
        key = ("chunk", start, end, markdown, flags if markdown else ())
        kept = reuse.get((key, id(None)))
        if kept is None:
            cost = end - start if markdown else (end - start) // PLAIN_COST
            gap = markdown and start > 0 and _after_blank_line(text, start)
            kept = Piece(key, None, None, cost=cost, text=text[start:end], gap=gap)
        pieces.append(kept)
        drawn += end - start
    if unread or entry.outcome != "answered" or entry.pages:
        notes = answer_notes(unread, entry.outcome, entry.pages)
        pieces.append(piece(Piece(("notes", notes.plain, bool(bar)), None, notes, bar)))
    for card in entry.cards:
        kept = reuse.get((("card", card.call_id in expanded, bool(bar)), id(card)))
        pieces.append(kept or card_piece(card, expanded=card.call_id in expanded, bar=bar))
    return Block(entry, pieces, text, chunks, bar)


def _after_blank_line(text: str, start: int) -> bool:
    """Whether `text` has a blank line just before `start` (where chunks are cut): Markdown
    drawn whole puts an empty line between the blocks on either side, a chunk drawn alone
    does not."""
    before = text.rfind("\n", 0, start - 1)
    return text[start - 1] == "\n" and not text[before + 1 : start - 1].strip()


def _drawn_end(bounds: list[int]) -> int:
    """Where the drawn part of a text ends: after the chunk that reaches `DRAWN_CHARS`."""
    for end in bounds[1:]:
        if end >= DRAWN_CHARS:
            return end
    return bounds[-1]


def card_piece(card: Card, *, expanded: bool, bar: list[Segment]) -> Piece:
    """A tool card: its bar says whether it failed or repeats a call; dim when it repeats."""
    kind = "error" if card.error else "repeat" if card.repeat_of is not None else ""
    return Piece(
        ("card", expanded, bool(bar)),
        card,
        None,
        [*bar, *CARD_BARS[kind]],
        cost=len(card.output or "") // PLAIN_COST if expanded else 0,
        card=card.call_id,
        style=MUTED if kind == "repeat" else None,
    )
