"""The question box: Up and Down recall earlier questions; when empty, a few keys go on."""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.widgets import Input

from tui.statefiles.history import History


class QuestionInput(Input):
    """Types every key, except that when empty it passes `shortcuts` on to the bindings.

    So `?` opens the help and `1`-`3` ask an example question from an empty box, and
    type themselves once the box holds text.
    """

    BINDINGS = [
        Binding("up", "recall_previous", "Earlier question", show=False),
        Binding("down", "recall_next", "Later question", show=False),
    ]

    def __init__(
        self, *, placeholder: str, id: str | None = None, history: History | None = None
    ) -> None:
        # Focus keeps what is typed unselected: a key typed on a card comes here (ChatScreen),
        # and the next one must not replace it.
        super().__init__(placeholder=placeholder, id=id, compact=True, select_on_focus=False)
        self.shortcuts: frozenset[str] = frozenset({"?"})
        self.history = history if history is not None else History()

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if not self.value and character in self.shortcuts:
            return False
        return super().check_consume_key(key, character)

    async def _on_key(self, event: events.Key) -> None:
        # Decided here, in the order keys were typed, not when the app first sees the key:
        # a burst of typing reaches the app before this box has taken any of it.
        # (Textual calls Input's own handler after this one, unless the default is prevented.)
        if not self.value and event.character in self.shortcuts:
            event.prevent_default()  # not typed: it goes on to the screen's and app's bindings

    def action_recall_previous(self) -> None:
        """Show the question asked before the one shown."""
        self._recall(self.history.previous(self.value))

    def action_recall_next(self) -> None:
        """Show the question asked after the one shown, or what was being typed."""
        self._recall(self.history.next())

    def _recall(self, question: str | None) -> None:
        if question is not None:
            self.value = question
            self.cursor_position = len(question)
