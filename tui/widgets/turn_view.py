"""An assistant turn: its label, its text (Markdown, in chunks), its tool cards.

An answer that cites lines the run never read shows those citations flagged and a note;
a decline, or an answer that read nothing, says so in a note under it.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tui.render import answer_notes, mark_unread, turn_label
from tui.state import TurnEntry
from tui.terminal import visible
from tui.widgets.tool_card import ToolCard
from tui.widgets.turn_text import TurnText


class TurnView(Vertical):
    """Shows one `TurnEntry`; parallel tool calls of the turn are grouped under it.

    Entries change faster than widgets mount, so `set_entry` may come before the view
    has composed or mounted its children: until it is mounted it only keeps the entry,
    and on mount it brings the children up to date. It holds its own children rather
    than querying for them, since they are not there before compose.

    The text streams into the same `TurnText` it ends in, so the end of a long answer
    costs a redraw of its last chunk, not of the whole answer.
    """

    DEFAULT_CSS = """
    TurnView { height: auto; }
    TurnView > .label { height: auto; }
    TurnView > .unread-note { height: auto; display: none; }
    TurnView.unread > .unread-note { display: block; }
    """

    def __init__(self, entry: TurnEntry, *, expanded: set[str]) -> None:
        super().__init__()
        self._classes_for(entry)
        self.entry = entry
        self._expanded = expanded
        self._mounted = False
        self._shown: TurnEntry | None = None  # what the children show
        self._label = Static(classes="label")
        self.text = TurnText(classes="text")
        self._note = Static(classes="unread-note")
        self._cards: list[ToolCard] = []

    def _classes_for(self, entry: TurnEntry) -> None:
        self.set_class(entry.answer, "answer")
        self.set_class(entry.partial and not entry.answer, "partial")
        self.set_class(bool(entry.unread) or entry.outcome != "answered", "unread")

    def compose(self) -> ComposeResult:
        yield self._label
        yield self.text
        yield self._note
        self._cards = [ToolCard(card, expanded=self._expanded) for card in self.entry.cards]
        yield from self._cards

    def on_mount(self) -> None:
        self._mounted = True
        self._show()

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
        if old is None or (entry.step, entry.streaming) != (old.step, old.streaming):
            self._label.update(turn_label(entry.step, entry.streaming))
        if old is None or entry.body is not old.body or entry.unread != old.unread:
            text = visible(mark_unread(entry.text, entry.unread))
            self.text.show(text, warn=bool(entry.unread))
        if old is None or (entry.unread, entry.outcome) != (old.unread, old.outcome):
            self._note.update(answer_notes(entry.unread, entry.outcome))
        self._classes_for(entry)
        for widget, card in zip(self._cards, entry.cards, strict=False):
            widget.set_card(card)
        new = [ToolCard(card, expanded=self._expanded) for card in entry.cards[len(self._cards) :]]
        if new:
            self._cards.extend(new)
            self.mount_all(new)
