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
        if isinstance(widget, TurnView):
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
        self._pruned = Static("", id="pruned")  # says how many earlier entries are hidden
        self._pruned_shown = 0  # the count it says

    def compose(self) -> list[Widget]:  # type: ignore[override]
        return [self._pruned]

    def on_mount(self) -> None:
        self.anchor()

    @property
    def shown(self) -> list[Widget]:
        """The mounted entry widgets, oldest first."""
        return list(self._widgets)

    def show(self, entries: Sequence[Entry]) -> None:
        """Bring the mounted widgets in line with `entries` (only what changed is touched).

        The newest `limit` entries are shown. An entry that is the same object as before
        at the same index keeps its widget untouched; one that changed is updated in its
        widget, or given a new widget when its kind changed. Going back (replay) keeps
        the widgets of the entries that are still there.
        """
        if entries is self.entries or not self.is_attached:
            return  # (detached: the app is closing, and nothing more will be seen)
        old, widgets, first = self.entries, self._widgets, self.first_shown
        start = max(len(entries) - self.limit, 0)
        if old and entries and entries[0] is old[0]:
            # The same run or conversation: keep the widgets of entries still in the window.
            keep_from = min(max(start - first, 0), len(widgets))
            keep_to = max(min(len(entries) - first, len(widgets)), keep_from)
        else:
            keep_from = keep_to = 0  # another conversation, or a new one
        gone, kept = widgets[:keep_from] + widgets[keep_to:], widgets[keep_from:keep_to]
        if gone:
            self.remove_children(gone)
        first = first + keep_from if kept else start
        for index, widget in enumerate(kept):
            position = first + index  # below len(old): widgets were made for `old`
            if entries[position] is old[position]:
                continue
            if not _update(widget, entries[position]):
                replacement = _widget_for(entries[position], self.expanded)
                self.mount(replacement, after=widget)
                widget.remove()
                kept[index] = replacement
        # Entries that came into the window: earlier ones (going back), then newer ones.
        earlier = [_widget_for(entry, self.expanded) for entry in entries[start:first]]
        if earlier:
            self.mount_all(earlier, before=kept[0])
        newer = [_widget_for(entry, self.expanded) for entry in entries[first + len(kept) :]]
        if newer:
            self.mount_all(newer)
        self._widgets = earlier + kept + newer
        self.first_shown = start
        self.entries = entries
        if start != self._pruned_shown:  # updating the line costs a layout of the list
            self._pruned_shown = start
            self._pruned.set_class(start > 0, "shown")
            self._pruned.update(f"… {start:,} earlier entries not shown")

    def clear_entries(self) -> None:
        """Remove every entry (a new conversation)."""
        self.expanded.clear()
        self.show(())

    def to_top(self) -> None:
        """Show the start of the conversation: its first entry, at once (no animation)."""
        self.scroll_home(animate=False, immediate=True)

    def to_bottom(self) -> None:
        """Show the newest entry and follow new ones again."""
        self.anchor()

    def focused_card(self) -> ToolCard | None:
        """The tool card that has focus, if any."""
        focused = self.screen.focused
        return focused if isinstance(focused, ToolCard) else None
