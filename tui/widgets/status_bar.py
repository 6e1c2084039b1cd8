"""The status bar: step, tool calls, tokens, elapsed time and where the trace is."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from tui.render import status_text
from tui.state import ViewState


class StatusBar(Widget):
    """Renders `status_text`; `elapsed_s` is the running clock until the run reports its own."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = ViewState()
        self.elapsed_s: float | None = None
        self.trace: str | None = None

    def show(
        self, state: ViewState, *, elapsed_s: float | None = None, trace: str | None = None
    ) -> None:
        """Render `state` with the given clock and trace path."""
        self.state, self.elapsed_s, self.trace = state, elapsed_s, trace
        self.refresh()

    def render(self) -> Text:
        return status_text(
            self.state, elapsed_s=self.elapsed_s, trace=self.trace, width=self.size.width
        )
