"""A tool call card: one line for the call, a few lines of its result; Enter expands it."""

from __future__ import annotations

from textual.binding import Binding
from textual.events import Click
from textual.widgets import Static

from tui.render import card_text, card_view
from tui.state import Card


class ToolCard(Static, can_focus=True):
    """Shows one `Card`; Enter or a click toggles between the preview and the whole result."""

    BINDINGS = [Binding("enter", "toggle_card", "Expand/collapse")]

    def __init__(self, card: Card, *, expanded: set[str]) -> None:
        super().__init__(classes="error" if card.error else "")
        self.set_class(card.repeat_of is not None, "repeat")
        self.card = card
        self._expanded = expanded  # shared with the list, so it survives re-mounts

    @property
    def expanded(self) -> bool:
        return self.card.call_id in self._expanded

    @property
    def full_text(self) -> str:
        """The call and its whole result, for the clipboard."""
        return card_text(self.card, expanded=True).plain

    def on_mount(self) -> None:
        self._show()

    def set_card(self, card: Card) -> None:
        """Show a newer version of the card (e.g. its result arrived)."""
        if card != self.card:
            self.card = card
            self.set_class(card.error, "error")
            self.set_class(card.repeat_of is not None, "repeat")
            self._show()

    def action_toggle_card(self) -> None:
        """Expand or collapse the result."""
        if self.expanded:
            self._expanded.discard(self.card.call_id)
        else:
            self._expanded.add(self.card.call_id)
        self._show()

    def on_click(self, event: Click) -> None:
        event.stop()
        self.focus()
        self.action_toggle_card()

    def _show(self) -> None:
        self.set_class(self.expanded, "expanded")
        self.update(card_view(self.card, expanded=self.expanded))
