"""The transcript's pieces: a blank line, a one-line entry, a turn's label, a chunk of its
text (Markdown or plain), a note, a tool card; small frozen values that rich draws and wraps.

Equal pieces draw the same lines, so the layout keeps drawn lines by piece. A piece's
`bar` is put before its lines as they are read. A chunk of text leaves `TEXT_MARGIN`
columns for it whatever it is, and its bar is not part of its equality: a turn that
turns out to be the answer keeps the lines drawn as it streamed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from rich.theme import Theme

from tui.render import answer_notes, card_view, entry_text, mark_unread, turn_label
from tui.terminal import visible
from tui.transcript.chunks import MARKDOWN_CHARS
from tui.transcript.entries import Card, NoticeEntry, SystemEntry, UserEntry
from tui.transcript.plain import wrap

Line = list[Segment]
Bar = tuple[Segment, ...]

PLAIN_COST = 8  # plain text costs about an eighth of Markdown to draw
TEXT_MARGIN = 2
"""Columns a turn's text leaves free, at its left for the answer's bar, else at its right."""

WARN_STRIKES = Theme({"markdown.s": "bold underline yellow"})
"""Struck text in an answer that cites unread lines is a flagged citation (`mark_unread`)."""

ANSWER_BAR: Bar = (Segment("▌", Style(color="green")), Segment(" "))
PARTIAL_BAR: Bar = (Segment("▌", Style(color="yellow", dim=True)), Segment(" "))
CARD_BARS: dict[str, Bar] = {
    "": (Segment("  "), Segment("│", Style(color="blue")), Segment(" ")),
    "error": (Segment("  "), Segment("│", Style(color="red")), Segment(" ")),
    "repeat": (Segment("  "), Segment("╎", Style(color="blue", dim=True)), Segment(" ")),
}
MUTED = Style(dim=True)


@dataclass(frozen=True)
class Pen:
    """What every piece draws with: a rich console and its options, at any width."""

    console: Console
    options: ConsoleOptions

    def render(
        self, renderable: RenderableType, width: int, *, style: Style | None = None
    ) -> list[Line]:
        """`renderable` as lines of `width` cells (at least one), padded to it."""
        options = self.options.update_width(max(width, 1))
        return self.console.render_lines(renderable, options, style=style)


class Piece(Protocol):
    """One part of an entry, drawn and measured on its own; equal pieces draw the same."""

    @property
    def bar(self) -> Bar:
        """Put before each line as it is read (not drawn by `lines`)."""

    @property
    def call_id(self) -> str | None:
        """The call id, when the piece is a tool card."""

    @property
    def cost(self) -> int:
        """Characters of Markdown it costs to draw, about (0: next to nothing)."""

    def height(self, pen: Pen, width: int) -> int:
        """How many lines it takes in a row of `width` columns."""

    def lines(self, pen: Pen, width: int) -> list[Line]:
        """Its lines in a row of `width` columns, without its bar (put before them as read)."""


def _inside(width: int, bar: Bar) -> int:
    """The columns left at `width` once `bar` is put before a line."""
    return max(width - sum(segment.cell_length for segment in bar), 1)


class Measured:
    """A piece as tall as the lines it draws (the layout caches both, so drawing once
    to measure costs nothing more)."""

    def height(self, pen: Pen, width: int) -> int:
        return len(self.lines(pen, width))

    def lines(self, pen: Pen, width: int) -> list[Line]:
        raise NotImplementedError


@dataclass(frozen=True)
class Blank:
    """A blank line (with the turn's bar, in a turn's text)."""

    bar: Bar = ()
    call_id = None
    cost = 0

    def height(self, pen: Pen, width: int) -> int:
        return 1

    def lines(self, pen: Pen, width: int) -> list[Line]:
        inside = max(width - sum(segment.cell_length for segment in self.bar), 0)
        return [[Segment(" " * inside)]]


@dataclass(frozen=True)
class EntryLine(Measured):
    """A one-line entry: the system prompt (cut to the width, dim), a question, a notice."""

    entry: SystemEntry | UserEntry | NoticeEntry
    bar = ()
    call_id = None
    cost = 0

    def lines(self, pen: Pen, width: int) -> list[Line]:
        style = MUTED if isinstance(self.entry, SystemEntry) else None
        return pen.render(entry_text(self.entry, width=max(width, 20)), width, style=style)


@dataclass(frozen=True)
class Label(Measured):
    """The label above an assistant turn: its step, and `…` while it streams."""

    step: int
    streaming: bool
    bar: Bar = ()
    call_id = None
    cost = 0

    def lines(self, pen: Pen, width: int) -> list[Line]:
        return pen.render(turn_label(self.step, self.streaming), _inside(width, self.bar))


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


@dataclass(frozen=True)
class MarkdownChunk(Measured):
    """A chunk of a turn's text shown as Markdown, its flagged citations (`flags`) marked.

    Parsed when drawn, not kept: a parsed chunk is hundreds of objects, and the collector
    walks every object kept at every full pass.
    """

    text: str
    flags: tuple[str, ...] = ()
    gap: bool = False  # after a blank line: drawn with one above it, as Markdown drawn whole
    bar: Bar = field(default=(), compare=False)
    call_id = None

    @property
    def cost(self) -> int:
        return len(self.text)

    def lines(self, pen: Pen, width: int) -> list[Line]:
        inside = max(width - TEXT_MARGIN, 1)
        marked = visible(mark_unread(self.text, self.flags))
        drawn = pen.render(WarnedMarkdown(marked, warn=bool(self.flags)), inside)
        if self.gap and drawn and "".join(segment.text for segment in drawn[0]).strip():
            drawn.insert(0, [Segment(" " * inside)])  # lists and code bring their own
        return drawn


@dataclass(frozen=True)
class PlainChunk(Measured):
    """A chunk of a turn's text past `MARKDOWN_CHARS`, shown as plain text."""

    text: str
    bar: Bar = field(default=(), compare=False)
    call_id = None

    @property
    def cost(self) -> int:
        return len(self.text) // PLAIN_COST

    def lines(self, pen: Pen, width: int) -> list[Line]:
        return wrap(pen.console, pen.options, visible(self.text), max(width - TEXT_MARGIN, 1))


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


@dataclass(frozen=True)
class PlainNote(Measured):
    """The note where a turn's text turns plain (`plain_note`)."""

    rest: int
    hidden: int = 0
    bar: Bar = ()
    call_id = None
    cost = 0

    def lines(self, pen: Pen, width: int) -> list[Line]:
        return pen.render(plain_note(self.rest, self.hidden), _inside(width, self.bar))


@dataclass(frozen=True)
class AnswerNotes(Measured):
    """The notes under an answer (`answer_notes`): a decline, unread citations, pages."""

    unread: tuple[str, ...]
    outcome: str
    pages: tuple[str, ...] = ()
    bar: Bar = ()
    call_id = None
    cost = 0

    def lines(self, pen: Pen, width: int) -> list[Line]:
        notes = answer_notes(self.unread, self.outcome, self.pages)
        return pen.render(notes, _inside(width, self.bar))


@dataclass(frozen=True)
class ToolCard(Measured):
    """A tool card, collapsed or `expanded`: its bar says whether it failed or repeats a
    call (dim when it repeats), after `outer`, the bar of the turn it belongs to."""

    card: Card
    expanded: bool = False
    outer: Bar = ()

    @property
    def bar(self) -> Bar:
        return (*self.outer, *CARD_BARS[self._kind])

    @property
    def call_id(self) -> str:
        return self.card.call_id

    @property
    def cost(self) -> int:
        return len(self.card.output or "") // PLAIN_COST if self.expanded else 0

    @property
    def _kind(self) -> str:
        return "error" if self.card.error else "repeat" if self.card.repeat_of is not None else ""

    def lines(self, pen: Pen, width: int) -> list[Line]:
        style = MUTED if self._kind == "repeat" else None
        view = card_view(self.card, expanded=self.expanded)
        return pen.render(view, _inside(width, self.bar), style=style)
