"""The header line: docs folder, model, mode and the run state."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from tui.render import header_text
from tui.state import ViewState


class HeaderBar(Widget):
    """Renders `header_text` for the current state; `extra` is a second part (replay position)."""

    DEFAULT_CSS = """
    HeaderBar { height: 1; background: $panel; }
    """

    def __init__(self, *, docs: str, model: str, mode: str = "", id: str | None = None) -> None:
        super().__init__(id=id)
        self.docs = docs
        self.model = model
        self.mode = mode
        self.state = ViewState()
        self.extra = ""

    def show(self, state: ViewState, *, extra: str = "") -> None:
        """Render `state` (the model and docs of a run replace the configured ones)."""
        self.state, self.extra = state, extra
        self.refresh()

    def render(self) -> Text:
        state = self.state
        return header_text(
            state,
            docs=state.docs or self.docs,
            model=state.model or self.model,
            mode=self.mode,
            width=self.size.width,
            extra=self.extra,
        )
