"""The transcript: every entry of the view in one scrolling widget that draws only what shows.

One line-API widget instead of a widget per entry: Textual laid out and composited every
mounted entry on each refresh, so a long session slowed every key. Here a refresh draws
the rows on screen from `tui.transcript.layout`, which knows every entry's height and keeps
drawn lines for a few screens only.

Tool cards are picked with a cursor: Tab and shift+Tab move it from card to card (past
the last, on to the question box), Enter or a click expands a card or collapses it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from textual.binding import Binding
from textual.events import Click, Resize
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.transcript.entries import Card, Entry, UserEntry
from tui.transcript.model import TranscriptModel
from tui.transcript.pieces import Pen

STEP_CHARS = 1_000
"""Markdown drawn at a time beyond what shows (a text seen whole: replay, a new width)."""
STEP_S = 0.02
"""A step of drawing (what shows first, then beyond it) stops for a refresh after this
long, so keys are taken in between (a chunk of Markdown with code takes up to a few
hundredths of a second; a key waited behind a step, a layout and a frame)."""


class Transcript(ScrollView, can_focus=True):
    """Shows a sequence of entries; follows the newest while scrolled to the bottom.

    Scrolling up stops following; End (or scrolling back to the bottom) follows again.
    """

    DEFAULT_CSS = """
    Transcript { height: 1fr; overflow-x: hidden; scrollbar-gutter: stable; }
    Transcript > .transcript--cursor { background: $accent 30%; }
    """
    COMPONENT_CLASSES = {"transcript--cursor"}
    BINDINGS = [
        Binding("enter", "toggle_card", "Expand/collapse", show=False),
        Binding("tab", "next_card", "Next card", show=False),
        Binding("shift+tab", "previous_card", "Previous card", show=False),
        Binding(
            "ctrl+up", "question(-1)", "Earlier", show=False, tooltip="Scroll to the question above"
        ),
        Binding(
            "ctrl+down", "question(1)", "Later", show=False, tooltip="Scroll to the question below"
        ),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._model: TranscriptModel | None = None
        self.entries: Sequence[Entry] = ()
        self.selected: str | None = None  # the call id of the card under the cursor
        self.following = True
        self._step_scheduled = False  # a step waits for the next refresh
        self._rewrapping = False  # the width changed and the lines are not all wrapped again

    @property
    def model(self) -> TranscriptModel:
        """The entries as blocks of pieces (made once the app's console is there)."""
        if self._model is None:
            options = self.app.console_options.update(highlight=False)
            self._model = TranscriptModel(Pen(self.app.console, options))
            self._model.update(self.entries)
        return self._model

    @property
    def settled(self) -> bool:
        """Whether the newest entries given are laid out whole at the current width."""
        model = self._model
        return model is not None and model.entries is self.entries and model.layout.settled

    # -- showing ----------------------------------------------------------------------

    def show(self, entries: Sequence[Entry]) -> None:
        """Show `entries` (only entries that changed, by identity, are laid out again)."""
        if entries is self.entries:
            return
        self.entries = entries
        if self.is_attached and self._model is not None:
            self._model.update(entries)
        self._step()

    def clear_entries(self) -> None:
        """Remove every entry (a new conversation)."""
        self.model.expanded.clear()
        self.selected = None
        self.following = True
        self.show(())

    def on_mount(self) -> None:
        self.model.update(self.entries)

    def on_resize(self, event: Resize) -> None:
        self._step()

    def _step(self, *, anchor: bool = True) -> None:
        """Lay out what shows now, and more for up to `STEP_S`; the rest after a refresh.

        Scrolled up, a new width keeps the text at the top of the view there while the
        lines above it are wrapped again (their heights change step by step).
        """
        region = self.scrollable_content_region
        if not self.is_attached or region.width <= 0:
            return
        began = time.perf_counter()  # drawing what shows counts toward the step's time
        layout = self.model.layout
        self._rewrapping = layout.width != region.width or self._rewrapping
        mark = None
        if anchor and self._rewrapping and not self.following:
            mark = layout.mark(round(self.scroll_y))
        layout.set_width(region.width)
        if self.following:
            layout.prepare_end(region.height)
        else:
            top = layout.marked(mark) if mark is not None else round(self.scroll_y)
            layout.prepare(top, region.height)
        done = layout.settled
        while not done and time.perf_counter() - began < STEP_S:
            done = layout.measure(STEP_CHARS)
        self._rewrapping = not done
        self.virtual_size = Size(region.width, layout.height)
        if self.following:
            self.scroll_to(y=self.max_scroll_y, animate=False, force=True)
        elif mark is not None and (top := layout.marked(mark)) != round(self.scroll_y):
            self.scroll_to(y=top, animate=False, force=True)
        self.refresh()
        if not done and not self._step_scheduled:
            self._step_scheduled = True
            self.call_after_refresh(self._next_step)

    def _next_step(self) -> None:
        self._step_scheduled = False
        self._step()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value >= self.max_scroll_y:
            self.following = True
        elif new_value < old_value:  # scrolled up (growth below never moves it)
            self.following = False
        if round(old_value) != round(new_value) and self._model is not None:
            layout = self._model.layout
            layout.prepare(round(new_value), self.scrollable_content_region.height)
            if layout.height != self.virtual_size.height:
                self.virtual_size = Size(self.virtual_size.width, layout.height)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        segments, piece = self.model.layout.line(round(self.scroll_y) + y)
        strip = Strip(segments).crop_extend(0, width, None)
        card = piece.call_id if piece is not None else None
        if card is not None and card == self.selected and self.has_focus:
            strip = strip.apply_style(self.get_component_rich_style("transcript--cursor"))
        return strip.apply_style(self.rich_style)

    # -- moving -----------------------------------------------------------------------

    def to_top(self) -> None:
        """Show the start of the conversation, at once."""
        self.following = False
        self.scroll_to(y=0, animate=False, force=True)

    def to_bottom(self) -> None:
        """Show the newest entry and follow new ones again."""
        self.following = True
        self._step()

    def action_question(self, direction: int) -> None:
        """Scroll to the question before (-1) or after (+1) the top of the view."""
        layout, top = self.model.layout, round(self.scroll_y)
        starts = [  # a question's line, below the blank line that sets it apart
            layout.start(i) + 1
            for i, block in enumerate(self.model.blocks)
            if isinstance(block.entry, UserEntry)
        ]
        later = [y for y in starts if y > top]
        earlier = [y for y in starts if y < top]
        if direction > 0 and later:
            self.scroll_to(y=later[0], animate=False, force=True)
        elif direction < 0 and earlier:
            self.scroll_to(y=earlier[-1], animate=False, force=True)

    # -- cards ------------------------------------------------------------------------

    def focused_card(self) -> Card | None:
        """The card under the cursor while the transcript has the focus, if any."""
        if not self.has_focus or self.selected is None:
            return None
        return self.model.card(self.selected)

    def on_focus(self) -> None:
        if self.selected is None or not self._in_view(self.selected):
            self.selected = self._card_in_view()
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def _in_view(self, call_id: str) -> bool:
        span = self.model.card_span(call_id)
        top = round(self.scroll_y)
        return span is not None and span[1] > top and span[0] < top + self.size.height

    def _card_in_view(self) -> str | None:
        """The first card in view, if any: the cursor is never put on a card out of sight."""
        top = round(self.scroll_y)
        for call_id, start, end in self.model.card_spans():
            if end > top and start < top + self.size.height:
                return call_id
        return None

    def _card_from_none(self, direction: int) -> str | None:
        """Where Tab (1) or shift+Tab (-1) puts the cursor from no card: Tab on the first
        card in view or below it, else the last above; shift+Tab on the last in view or above."""
        top = round(self.scroll_y)
        bottom = top + self.scrollable_content_region.height
        spans = self.model.card_spans()
        below = [call_id for call_id, _, end in spans if end > top]
        above = [call_id for call_id, start, _ in spans if start < bottom]
        if direction > 0 and below:
            return below[0]
        return above[-1] if above else None

    def select(self, call_id: str | None) -> None:
        """Put the cursor on the card of `call_id` and bring it into view."""
        self.selected = call_id
        span = self.model.card_span(call_id) if call_id is not None else None
        if span is not None:
            top, rows = round(self.scroll_y), self.scrollable_content_region.height
            if span[0] < top or span[1] > top + rows:
                self.scroll_to(y=span[0], animate=False, force=True)
        self.refresh()

    def action_next_card(self) -> None:
        """Move the cursor to the next tool card (past the last: the question box)."""
        self._move(1)

    def action_previous_card(self) -> None:
        """Move the cursor to the previous tool card."""
        self._move(-1)

    def _move(self, direction: int) -> None:
        cards = self.model.cards()
        if self.selected in cards:
            at = cards.index(self.selected) + direction
            if 0 <= at < len(cards):
                self.select(cards[at])
                return
        elif (card := self._card_from_none(direction)) is not None:
            self.select(card)
            return
        self.selected = None
        if direction > 0:
            self.screen.focus_next()
        else:
            self.screen.focus_previous()

    def action_toggle_card(self) -> None:
        """Expand the card under the cursor, or collapse it."""
        if self.selected is None:
            return
        self.model.toggle(self.selected)
        following, self.following = self.following, False
        self._step(anchor=False)  # the card changed height: it scrolls itself below
        span = self.model.card_span(self.selected)
        if span is not None and span[0] < round(self.scroll_y):
            self.scroll_to(y=span[0], animate=False, force=True)
        elif following and self.scroll_y >= self.max_scroll_y:
            self.following = True

    def on_click(self, event: Click) -> None:
        _, piece = self.model.layout.line(round(self.scroll_y) + event.y)
        card = piece.call_id if piece is not None else None
        if card is None:
            return
        event.stop()
        self.focus()
        self.selected = card
        self.action_toggle_card()
