"""The start screen: which docs and model, and example questions drawn from the docs."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import VerticalGroup, VerticalScroll
from textual.widgets import Static

from tui.render import welcome_text
from tui.widgets.example_line import ExampleLine

HINT = "F1 or ? lists every key · ctrl+q quits"


class Welcome(VerticalScroll):
    """Shown in place of the message list until the first question.

    `show_examples` adds the example questions once the search index has found them.
    """

    DEFAULT_CSS = """
    Welcome { height: 1fr; padding: 1 2 0 2; }
    Welcome #welcome-hint { margin-top: 1; color: $text-muted; }
    """

    def __init__(self, *, docs: str, model: str, id: str | None = None) -> None:
        super().__init__(id=id, can_focus=False)
        self.docs, self.model = docs, model
        self.examples: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static(welcome_text(docs=self.docs, model=self.model), id="welcome-intro")
        yield VerticalGroup(id="examples")
        yield Static(HINT, id="welcome-hint")

    def show_examples(self, examples: Sequence[str]) -> None:
        """Offer `examples`, numbered from 1."""
        self.examples = tuple(examples)
        intro = welcome_text(docs=self.docs, model=self.model, examples=len(self.examples))
        self.query_one("#welcome-intro", Static).update(intro)
        box = self.query_one("#examples", VerticalGroup)
        box.remove_children()
        box.mount_all(ExampleLine(n, question) for n, question in enumerate(self.examples, 1))
