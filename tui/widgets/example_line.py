"""One example question of the start screen: its number key, its text; a click asks it."""

from __future__ import annotations

from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from tui.render import example_text


class ExampleLine(Static):
    """Shows `example_text`; clicking it posts `ExampleLine.Picked`."""

    DEFAULT_CSS = """
    ExampleLine { height: auto; }
    ExampleLine:hover { background: $boost; }
    """

    class Picked(Message):
        """An example question was clicked."""

        def __init__(self, question: str) -> None:
            super().__init__()
            self.question = question

    def __init__(self, number: int, question: str) -> None:
        super().__init__(example_text(number, question))
        self.question = question

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Picked(self.question))
