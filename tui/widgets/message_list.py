"""The scrolling message list: a bounded window of the entries mounted, every one reachable."""

from __future__ import annotations

from collections.abc import Sequence

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.events import Click
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


class PageLine(Static):
    """A line saying how many entries are left out above or below; a click shows them."""

    def __init__(self, id: str, page: int) -> None:
        super().__init__("", id=id)
        self.page = page  # -1: earlier, +1: later

    def on_click(self, event: Click) -> None:
        event.stop()
        parent = self.parent
        if isinstance(parent, MessageList):
            parent.page(self.page)


class MessageList(VerticalScroll):
    """Mounts at most `limit` entries, a window on them, and says how many are left out.

    The window follows the newest entries while scrolled to the bottom (Textual's anchor),
    and stops following once the user scrolls up. Every entry stays reachable: ctrl+up
    and ctrl+down (or a click on the line saying what is left out) move the window by
    half its size, Home goes to the first entry and End back to the newest.

    The list keeps its own record of the widgets it mounted, in order, one per entry
    from `first_shown` on. Its children cannot serve: mounting and removing widgets
    finish later, so right after an update the children may still hold widgets being
    removed, and the next update can come before that.
    """

    DEFAULT_CSS = """
    MessageList > PageLine { height: 1; color: $text-muted; display: none; }
    MessageList > PageLine.shown { display: block; }
    MessageList > PageLine:hover { color: $text; text-style: underline; }
    """
    BINDINGS = [
        Binding("ctrl+up", "page(-1)", "Earlier", show=False),
        Binding("ctrl+down", "page(1)", "Later", show=False),
    ]

    def __init__(self, *, limit: int | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.limit = limit if limit is not None else MAX_MOUNTED
        self.entries: Sequence[Entry] = ()
        self.first_shown = 0  # index in `entries` of the first mounted entry
        self.end: int | None = None  # the window ends before this entry (None: the newest)
        self.expanded: set[str] = set()
        self._widgets: list[Widget] = []  # the widget of entries[first_shown + i] at i
        self._pruned = PageLine("pruned", -1)  # says how many earlier entries are left out
        self._later = PageLine("later", 1)  # and how many later ones, once paged back
        self._pruned_shown = 0  # the count it says
        self._later_shown = 0

    def compose(self) -> list[Widget]:  # type: ignore[override]
        return [self._pruned, self._later]

    def on_mount(self) -> None:
        self.anchor()

    @property
    def shown(self) -> list[Widget]:
        """The mounted entry widgets, oldest first."""
        return list(self._widgets)

    def _window(self, count: int) -> tuple[int, int]:
        """The entries shown of `count`: [start, end)."""
        end = count if self.end is None else min(max(self.end, min(self.limit, count)), count)
        return max(end - self.limit, 0), end

    def show(self, entries: Sequence[Entry], *, moved: bool = False) -> None:
        """Bring the mounted widgets in line with `entries` (only what changed is touched).

        The window's entries are shown (the newest `limit` unless paged back). An entry
        that is the same object as before at the same index keeps its widget untouched;
        one that changed is updated in its widget, or given a new widget when its kind
        changed. Going back (replay, paging) keeps the widgets still in the window.
        """
        if (entries is self.entries and not moved) or not self.is_attached:
            return  # (detached: the app is closing, and nothing more will be seen)
        old, widgets, first = self.entries, self._widgets, self.first_shown
        start, end = self._window(len(entries))
        if old and entries and entries[0] is old[0]:
            # The same run or conversation: keep the widgets of entries still in the window.
            keep_from = min(max(start - first, 0), len(widgets))
            keep_to = max(min(end - first, len(widgets)), keep_from)
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
        newer = [_widget_for(entry, self.expanded) for entry in entries[first + len(kept) : end]]
        if newer:
            self.mount_all(newer, before=self._later)
        self._widgets = earlier + kept + newer
        self.first_shown = start
        self.entries = entries
        if start != self._pruned_shown:  # updating the line costs a layout of the list
            self._pruned_shown = start
            self._pruned.set_class(start > 0, "shown")
            self._pruned.update(f"… {start:,} earlier entries not shown (ctrl+up or click)")
        later = len(entries) - end
        if later != self._later_shown:
            self._later_shown = later
            self._later.set_class(later > 0, "shown")
            self._later.update(f"… {later:,} later entries not shown (ctrl+down or click)")

    def page(self, direction: int) -> None:
        """Move the window half its size earlier (-1) or later (+1)."""
        start, end = self._window(len(self.entries))
        end += direction * max(self.limit // 2, 1)
        self.end = None if end >= len(self.entries) else end
        self.show(self.entries, moved=True)
        if direction < 0:
            self.scroll_home(animate=False, immediate=True)
        elif self.end is None:
            self.anchor()

    def action_page(self, direction: int) -> None:
        """Show earlier (-1) or later (+1) entries."""
        self.page(direction)

    def clear_entries(self) -> None:
        """Remove every entry (a new conversation)."""
        self.expanded.clear()
        self.end = None
        self.show(())

    def to_top(self) -> None:
        """Show the start of the conversation: its first entry, at once (no animation)."""
        if self.first_shown > 0:
            self.end = min(self.limit, len(self.entries))
            self.show(self.entries, moved=True)
        self.scroll_home(animate=False, immediate=True)

    def to_bottom(self) -> None:
        """Show the newest entry and follow new ones again."""
        if self.end is not None:
            self.end = None
            self.show(self.entries, moved=True)
        self.anchor()

    def focused_card(self) -> ToolCard | None:
        """The tool card that has focus, if any."""
        focused = self.screen.focused
        return focused if isinstance(focused, ToolCard) else None
