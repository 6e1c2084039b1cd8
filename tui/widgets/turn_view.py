"""An assistant turn: its label, its text (Markdown when answer or cut short), its tool cards.

An answer that cites lines the run never read shows those citations flagged and a note;
a decline, or an answer that read nothing, says so in a note too.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Markdown, Static

from tui.render import answer_notes, mark_unread, shown, turn_label
from tui.state import TurnEntry
from tui.terminal import visible
from tui.widgets.tool_card import ToolCard


class TurnView(Vertical):
    """Shows one `TurnEntry`; parallel tool calls of the turn are grouped under it.

    Entries change faster than widgets mount, so `set_entry` may come before the view
    has composed or mounted its children: until it is mounted it only keeps the entry,
    and on mount it brings the children up to date. It holds its own children rather
    than querying for them, since they are not there before compose.
    """

    DEFAULT_CSS = """
    TurnView { height: auto; }
    TurnView > .label { height: auto; }
    TurnView > .text { height: auto; }
    TurnView > .unread-note { height: auto; display: none; }
    TurnView.unread > .unread-note { display: block; }
    """

    def __init__(self, entry: TurnEntry, *, expanded: set[str]) -> None:
        super().__init__(classes="answer" if entry.answer else "partial" if entry.partial else "")
        self.set_class(self._noted(entry), "unread")
        self.entry = entry
        self._expanded = expanded
        self._mounted = False
        self._shown = entry  # what the children show (set again in compose)
        self._label = Static(classes="label")
        self._text: Markdown | None = None
        self._note = Static(classes="unread-note")
        self._cards: list[ToolCard] = []

    def compose(self) -> ComposeResult:
        # The label and plain text share one widget: fewer widgets, faster long replays.
        entry = self._shown = self.entry
        self._label.update(self._head(entry))
        yield self._label
        if entry.markdown:
            self._text = Markdown(self._markdown(entry), classes="text")
            yield self._text
            self._note.update(answer_notes(entry.unread, entry.outcome))
            yield self._note
        self._cards = [ToolCard(card, expanded=self._expanded) for card in entry.cards]
        yield from self._cards

    def on_mount(self) -> None:
        self._mounted = True
        self._show()  # the entry may have changed since compose

    @staticmethod
    def _noted(entry: TurnEntry) -> bool:
        """Whether the answer has a note under it: unread citations, a decline, ..."""
        return bool(entry.unread) or entry.outcome != "answered"

    @staticmethod
    def _head(entry: TurnEntry) -> Text:
        head = turn_label(entry.step, entry.streaming)
        if entry.body and not entry.markdown:
            head.append("\n")
            head.append(shown(entry.text))
        return head

    @staticmethod
    def _markdown(entry: TurnEntry) -> str:
        return visible(mark_unread(entry.text, entry.unread))

    def can_update(self, entry: TurnEntry) -> bool:
        """Whether `entry` can be shown in place (Markdown text needs its own widget)."""
        return entry.markdown == self.entry.markdown and entry.answer == self.entry.answer

    def set_entry(self, entry: TurnEntry) -> None:
        """Show a newer version of the turn: more text, new cards, finished cards."""
        self.entry = entry
        if self._mounted:
            self._show()

    def _show(self) -> None:
        """Bring the children in line with `self.entry`."""
        entry, old = self.entry, self._shown
        if entry is old:
            return
        self._shown = entry
        if (entry.step, entry.streaming, entry.body) != (old.step, old.streaming, old.body):
            self._label.update(self._head(entry))
        seen = (entry.body, entry.unread, entry.outcome)
        if self._text is not None and seen != (old.body, old.unread, old.outcome):
            self._text.update(self._markdown(entry))
            self._note.update(answer_notes(entry.unread, entry.outcome))
            self.set_class(self._noted(entry), "unread")
        for widget, card in zip(self._cards, entry.cards, strict=False):
            widget.set_card(card)
        new = [ToolCard(card, expanded=self._expanded) for card in entry.cards[len(self._cards) :]]
        if new:
            self._cards.extend(new)
            self.mount_all(new)
