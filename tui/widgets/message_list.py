"""The scrolling message list: mounts a bounded tail of the view's entries."""

from __future__ import annotations

from collections.abc import Sequence

from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from tui.state import Entry, TurnEntry
from tui.widgets.entry_line import EntryLine
from tui.widgets.tool_card import ToolCard
from tui.widgets.turn_view import TurnView

MAX_MOUNTED = 100


def _widget_for(entry: Entry, expanded: set[str]) -> Widget:
    if isinstance(entry, TurnEntry):
        return TurnView(entry, expanded=expanded)
    return EntryLine(entry)


def _update(widget: Widget, entry: Entry) -> bool:
    """Show `entry` in `widget` in place; False when a new widget is needed."""
    if isinstance(entry, TurnEntry):
        if isinstance(widget, TurnView) and widget.can_update(entry):
            widget.set_entry(entry)
            return True
        return False
    if isinstance(widget, EntryLine):
        widget.set_entry(entry)
        return True
    return False


class MessageList(VerticalScroll):
    """Mounts at most `limit` entries (the newest) and says how many earlier ones are hidden.

    It follows new entries while scrolled to the bottom (Textual's anchor) and stops
    following once the user scrolls up.

    The list keeps its own record of the widgets it mounted, in order, one per entry
    from `first_shown` on. Its children cannot serve: mounting and removing widgets
    finish later, so right after an update the children may still hold widgets being
    removed, and the next update can come before that.
    """

    DEFAULT_CSS = """
    MessageList > #pruned { height: 1; color: $text-muted; display: none; }
    MessageList > #pruned.shown { display: block; }
    """

    def __init__(self, *, limit: int | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.limit = limit if limit is not None else MAX_MOUNTED
        self.entries: Sequence[Entry] = ()
        self.first_shown = 0  # index in `entries` of the first mounted entry
        self.expanded: set[str] = set()
        self._widgets: list[Widget] = []  # the widget of entries[first_shown + i] at i
        self._pruned_shown = 0  # the count the "earlier entries" line says

    def compose(self) -> list[Widget]:  # type: ignore[override]
        return [Static("", id="pruned")]

    def on_mount(self) -> None:
        self.anchor()

    @property
    def shown(self) -> list[Widget]:
        """The mounted entry widgets, oldest first."""
        return list(self._widgets)

    def show(self, entries: Sequence[Entry]) -> None:
        """Bring the mounted widgets in line with `entries` (only what changed is touched).

        An entry that is the same object as before at the same index is skipped; one that
        changed is updated in its widget, or given a new widget when its kind changed.
        """
        if entries is self.entries:
            return
        old = self.entries
        start = max(len(entries) - self.limit, 0)
        if len(entries) < len(old) or (old and entries and entries[0] is not old[0]):
            # Going back or starting over: positions no longer match, so rebuild.
            self._drop(len(self._widgets))
            old = ()
            self.first_shown = start
        elif start > self.first_shown:
            # Pruning: drop the widgets of the entries that scroll out of the window.
            self._drop(start - self.first_shown)
            self.first_shown = start
        widgets = self._widgets
        for index, widget in enumerate(widgets):
            position = self.first_shown + index
            if position < len(old) and entries[position] is old[position]:
                continue
            if not _update(widget, entries[position]):
                replacement = _widget_for(entries[position], self.expanded)
                self.mount(replacement, after=widget)
                widget.remove()
                widgets[index] = replacement
        unmounted = entries[self.first_shown + len(widgets) :]
        if unmounted:
            new = [_widget_for(entry, self.expanded) for entry in unmounted]
            self.mount_all(new)
            widgets.extend(new)
        self.entries = entries
        if self.first_shown != self._pruned_shown:  # updating it costs a layout of the list
            self._pruned_shown = self.first_shown
            pruned = self.query_one("#pruned", Static)
            pruned.set_class(self.first_shown > 0, "shown")
            pruned.update(f"… {self.first_shown:,} earlier entries not shown")

    def _drop(self, count: int) -> None:
        """Remove the widgets of the first `count` shown entries."""
        gone, self._widgets = self._widgets[:count], self._widgets[count:]
        if gone:
            self.remove_children(gone)

    def clear_entries(self) -> None:
        """Remove every entry (a new conversation)."""
        self.expanded.clear()
        self.show(())

    def focused_card(self) -> ToolCard | None:
        """The tool card that has focus, if any."""
        focused = self.screen.focused
        return focused if isinstance(focused, ToolCard) else None
