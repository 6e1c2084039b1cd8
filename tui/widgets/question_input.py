"""The question box: an `Input` that leaves a few keys to the screen while it is empty."""

from __future__ import annotations

from textual.widgets import Input


class QuestionInput(Input):
    """Types every key, except that when empty it passes `shortcuts` on to the bindings.

    So `?` opens the help and `1`-`3` ask an example question from an empty box, and
    type themselves once the box holds text.
    """

    def __init__(self, *, placeholder: str, id: str | None = None) -> None:
        super().__init__(placeholder=placeholder, id=id, compact=True)
        self.shortcuts: frozenset[str] = frozenset({"?"})

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if not self.value and character in self.shortcuts:
            return False
        return super().check_consume_key(key, character)
