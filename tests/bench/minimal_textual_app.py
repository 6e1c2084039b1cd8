"""The floor for the TUI's first frame: a bare Textual app with a header, an input and a footer.

Run by `bench_first_frame.py` the same way it runs `docsagent`, in a pseudo-terminal.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Input


class Minimal(App[None]):
    TITLE = "docsagent"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Ask a question about the docs and press Enter")
        yield Footer()


if __name__ == "__main__":
    Minimal().run()
