"""A one-line entry of the message list: the system prompt, a question or a notice."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from tui.render import entry_text
from tui.state import NoticeEntry, SystemEntry, UserEntry

LineEntry = SystemEntry | UserEntry | NoticeEntry


class EntryLine(Widget):
    """Renders one `SystemEntry`, `UserEntry` or `NoticeEntry`."""

    DEFAULT_CSS = """
    EntryLine { height: auto; }
    """

    def __init__(self, entry: LineEntry) -> None:
        super().__init__(classes=type(entry).__name__.removesuffix("Entry").lower())
        self.entry = entry

    def set_entry(self, entry: LineEntry) -> None:
        """Show `entry` instead."""
        if entry != self.entry:
            self.entry = entry
            self.refresh(layout=True)

    def render(self) -> Text:
        return entry_text(self.entry, width=max(self.size.width, 20))
