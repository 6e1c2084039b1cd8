"""An assistant turn: its label, its text (Markdown once it is the answer) and its tool cards."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Markdown, Static

from tui.render import turn_label
from tui.state import TurnEntry
from tui.widgets.tool_card import ToolCard


class TurnView(Vertical):
    """Shows one `TurnEntry`; parallel tool calls of the turn are grouped under it."""

    DEFAULT_CSS = """
    TurnView { height: auto; }
    TurnView > .label { height: auto; }
    TurnView > .text { height: auto; }
    """

    def __init__(self, entry: TurnEntry, *, expanded: set[str]) -> None:
        super().__init__(classes="answer" if entry.answer else "")
        self.entry = entry
        self._expanded = expanded

    def compose(self) -> ComposeResult:
        # The label and plain text share one widget: fewer widgets, faster long replays.
        entry = self.entry
        yield Static(self._head(entry), classes="label")
        if entry.answer:
            yield Markdown(entry.text, classes="text")
        for card in entry.cards:
            yield ToolCard(card, expanded=self._expanded)

    @staticmethod
    def _head(entry: TurnEntry) -> Text:
        head = turn_label(entry.step, entry.streaming)
        if entry.text and not entry.answer:
            head.append("\n")
            head.append(entry.text)
        return head

    def can_update(self, entry: TurnEntry) -> bool:
        """Whether `entry` can be shown in place (the answer needs a Markdown widget)."""
        return entry.answer == self.entry.answer

    def set_entry(self, entry: TurnEntry) -> None:
        """Show a newer version of the turn: more text, new cards, finished cards."""
        old, self.entry = self.entry, entry
        labels = self.query_children(".label")
        if entry == old or not labels:
            return  # not composed yet: `compose` will show the newest entry
        labels.first(Static).update(self._head(entry))
        if entry.answer and entry.text != old.text:
            self.query_one(".text", Markdown).update(entry.text)
        cards = list(self.query_children(ToolCard))
        for widget, card in zip(cards, entry.cards, strict=False):
            widget.set_card(card)
        new = [ToolCard(card, expanded=self._expanded) for card in entry.cards[len(cards) :]]
        if new:
            self.mount_all(new)
