"""What the live screen and the replay screen share: the view of a `ViewState`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from textual.screen import Screen
from textual.timer import Timer

from agent import AgentError
from tui.commands.share import ShareFormat, export_beside
from tui.render import card_text
from tui.state import ViewState
from tui.widgets.header_bar import HeaderBar
from tui.widgets.notice_bar import NoticeBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.transcript import Transcript

Command = tuple[str, str, Callable[[], object]]


class TraceScreen(Screen[None]):
    """A screen showing a `ViewState`: header, message list and status bar.

    Subclasses reduce events into `self.state` and call `schedule_render`; rendering
    is coalesced so a burst of events costs one update of the widgets, and a stream of
    small ones (text arriving a few characters at a time) a few updates a second.

    `notices` are the standing notices shown under the header (the app adds its own
    before the screen opens); toasts are kept for confirmations of what a key did.
    """

    def __init__(self) -> None:
        super().__init__()
        self.state = ViewState()
        self.notices: list[str] = []
        self._render_pending = False
        self._render_timer: Timer | None = None

    def stop(self) -> None:
        """Stop what the screen runs in the background (quitting); its traces are closed."""

    def on_unmount(self) -> None:
        self.stop()

    def schedule_render(self, *, within: float = 0.0) -> None:
        """Render the state once the queued messages are handled, or `within` seconds."""
        if within > 0.0:
            if self._render_timer is None and not self._render_pending:
                self._render_timer = self.set_timer(within, self._render_now)
        elif not self._render_pending:
            self._render_pending = True
            self.call_later(self._render_now)

    def _render_now(self) -> None:
        self._render_pending = False
        if self._render_timer is not None:
            self._render_timer.stop()
            self._render_timer = None
        if self.is_attached:  # not while the app is taking the screen down (quitting)
            self.render_state()

    def render_state(self) -> None:
        """Show `self.state` in the widgets."""
        self.query_one(HeaderBar).show(self.state, extra=self.header_extra())
        for bar in self.query(NoticeBar):
            bar.show(self.standing_notices())
        self.query_one(Transcript).show(self.state.entries)
        self.query_one(StatusBar).show(self.state, elapsed_s=self.clock(), trace=self.trace_label())

    def header_extra(self) -> str:
        """Text shown before the run state in the header."""
        return ""

    def standing_notices(self) -> list[str]:
        """The notices shown under the header."""
        return self.notices

    def where_traces_go(self) -> str:
        """A sentence for the help: where this screen's traces are."""
        return ""

    def clock(self) -> float | None:
        """Elapsed seconds to show while the run has not reported its own."""
        return None

    def trace_label(self) -> str | None:
        """The trace path (or folder) shown in the status bar."""
        return None

    def commands(self) -> Iterator[Command]:
        """(title, help, callback) for the command palette."""
        return iter(())

    def export_source(self) -> tuple[Path | None, str]:
        """The trace to export, or None and why there is nothing to export yet."""
        return None, "nothing to export"

    def export_run(self, format: ShareFormat = "markdown") -> Path | None:
        """Write the run's trace as Markdown (or HTML) beside the trace file; say where."""
        trace, why = self.export_source()
        if trace is None:
            self.notify(why, severity="warning")
            return None
        try:
            written = export_beside(trace, format)
        except AgentError as exc:
            self.notify(str(exc), title="cannot export", severity="error")
            return None
        except OSError as exc:
            self.notify(f"cannot write beside {trace}: {exc.strerror or exc}", severity="error")
            return None
        self.notify(f"exported the run to {written}", timeout=8)
        return written

    def export_commands(self) -> Iterator[Command]:
        """The palette's export entries."""
        yield (
            "Export as Markdown",
            "Write the run beside its trace, .md (ctrl+s)",
            self.export_run,
        )
        yield (
            "Export as HTML",
            "Write the run beside its trace as one page, .html",
            self.export_html,
        )

    def export_html(self) -> None:
        """Export the run as one self-contained HTML page beside its trace."""
        self.export_run("html")

    def action_copy(self) -> None:
        """Copy the answer, or the focused card's whole text."""
        card = self.query_one(Transcript).focused_card()
        text = card_text(card, expanded=True).plain if card is not None else self.state.last_answer
        if text is None:
            self.notify("nothing to copy yet: no answer and no focused tool card")
            return
        self.app.copy_to_clipboard(text)
        what = "tool result" if card is not None else "answer"
        self.notify(f"copied the {what} ({len(text):,} characters)")

    # The conversation's scrolling, for the screens that bind these keys.

    def action_top(self) -> None:
        """Scroll to the start of the conversation (the first question)."""
        self.query_one(Transcript).to_top()

    def action_bottom(self) -> None:
        """Scroll to the newest entry and follow the run again."""
        self.query_one(Transcript).to_bottom()

    def action_page(self, direction: int) -> None:
        """Scroll the conversation a page up or down (from the question box too)."""
        view = self.query_one(Transcript)
        if direction < 0:
            view.scroll_page_up(animate=False)
        else:
            view.scroll_page_down(animate=False)
