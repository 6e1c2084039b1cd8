"""The notice line under the header: standing notices (offline model, search index, settings)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

from tui.render import notice_text


class NoticeBar(Widget):
    """Shows `notice_text` for the notices that hold for the whole session; hidden when none.

    Notices stay here rather than in toasts, so they never cover the answer or a dialog.
    """

    DEFAULT_CSS = """
    NoticeBar { height: auto; padding: 0 1; background: $warning 15%; display: none; }
    NoticeBar.shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.notices: tuple[str, ...] = ()

    def show(self, notices: Sequence[str]) -> None:
        """Show `notices` (one line each, wrapped when the terminal is narrow)."""
        notices = tuple(notices)
        if notices != self.notices:
            self.notices = notices
            self.set_class(bool(notices), "shown")
            self.refresh(layout=True)

    def render(self) -> Text:
        return notice_text(self.notices)
