"""The transcript's entries: the system prompt, a question, an assistant turn with its
tool-call cards, and a notice about the run. Frozen values, built by `tui.state`'s reducer
and drawn by the widgets."""

from __future__ import annotations

from dataclasses import dataclass

from tui.outcomes import NoticeLevel
from tui.persistent import TextParts


@dataclass(frozen=True)
class Card:
    """One tool call: its arguments, and once finished its whole result."""

    call_id: str
    name: str
    arguments: str
    output: str | None = None
    error: bool = False
    duration_s: float | None = None
    repeat_of: int | None = None
    """The step that already made this exact call: the tool was not run again."""

    @property
    def running(self) -> bool:
        return self.output is None


@dataclass(frozen=True)
class SystemEntry:
    """The system prompt (shown collapsed to one line)."""

    text: str


@dataclass(frozen=True)
class UserEntry:
    """A question the user asked."""

    text: str


@dataclass(frozen=True)
class TurnEntry:
    """An assistant turn: its text (streamed or whole) and the tool calls it made."""

    step: int
    body: TextParts = TextParts()
    cards: tuple[Card, ...] = ()
    streaming: bool = True
    answer: bool = False
    unread: tuple[str, ...] = ()
    """The answer's citations (`path:start-end`) of lines the run's results never showed."""
    pages: tuple[str, ...] = ()
    """The answer's citations of a PDF's lines with their pages: `manual.pdf:40-52 (p. iv)`."""
    outcome: str = "answered"
    """How the answer turned out (`agent.run_outcome`): answered, declined, read_nothing."""
    partial: bool = False  # a reply cut short (cancelled, failed, interrupted) mid-stream

    @property
    def text(self) -> str:
        """The turn's text so far."""
        return str(self.body)

    @property
    def markdown(self) -> bool:
        """Whether the text is shown as Markdown: the answer, or a reply cut short."""
        return self.answer or self.partial


@dataclass(frozen=True)
class NoticeEntry:
    """A line about the run itself: a retry, a limit, a cancellation, an error."""

    text: str
    level: NoticeLevel = "info"


Entry = SystemEntry | UserEntry | TurnEntry | NoticeEntry
