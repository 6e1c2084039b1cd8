"""The live screen: ask questions, watch the run, cancel it, start over."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Input

from agent import AgentError, DocsIndex, Session, TextDelta
from tui.conversation import Conversation
from tui.messages import (
    AgentEvent,
    ConversationReset,
    IndexProgressed,
    IndexReady,
    RunBegan,
    RunFailed,
)
from tui.render import indexing_label
from tui.screens.base import Command, TraceScreen
from tui.state import ViewState, reduce
from tui.widgets.header_bar import HeaderBar
from tui.widgets.message_list import MessageList
from tui.widgets.status_bar import StatusBar

TEXT_REDRAW_S = 0.05  # streamed text is drawn at most this often, however small its pieces


class _Closing(Exception):
    """Raised in the indexing thread when the screen goes away."""


class ChatScreen(TraceScreen):
    """Shows the events of a `Conversation` whose worker thread owns the session.

    The view follows the events only: what it shows is what a replay of the trace shows.
    """

    CSS_PATH = "chat.tcss"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel run"),
        Binding("ctrl+n", "new", "New chat"),
        Binding("ctrl+o", "open_trace", "Traces"),
        Binding("ctrl+y", "copy", "Copy"),
        Binding("ctrl+s", "export", "Export"),
    ]

    def __init__(
        self,
        session: Session,
        *,
        docs: str,
        model: str,
        mode: str,
        question: str | None = None,
        index: DocsIndex | None = None,
    ) -> None:
        super().__init__()
        self.conversation = Conversation(session, self.post_message)
        self.trace_dir = session.trace_dir
        self.trace: Path | None = None  # the trace of the latest run
        self.max_steps = session.agent.max_steps
        self.docs, self.model, self.mode = docs, model, mode
        self.question = question
        self.index = index
        self.indexing: tuple[int, int] | None = None  # files done and to do, while indexing
        self._index_stop = threading.Event()
        self._started = 0.0
        self.state = self._fresh_state()

    def _fresh_state(self) -> ViewState:
        return ViewState(max_steps=self.max_steps)

    def compose(self) -> ComposeResult:
        yield HeaderBar(docs=self.docs, model=self.model, mode=self.mode)
        yield MessageList(id="messages")
        yield StatusBar()
        yield Input(
            placeholder="Ask a question about the docs and press Enter", id="question", compact=True
        )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self.render_state()
        self.set_interval(0.2, self._tick)
        self.run_worker(self.conversation.serve, thread=True, group="agent", exit_on_error=False)
        if self.index is not None:
            self._prepare_index(self.index)
        if self.question:
            self.ask(self.question)

    @work(thread=True, group="index", exit_on_error=False)
    def _prepare_index(self, index: DocsIndex) -> None:
        # A search waits for this; the screen shows progress from the messages.
        shown = -1

        def progress(done: int, total: int) -> None:
            nonlocal shown
            if self._index_stop.is_set():
                raise _Closing  # the app is quitting: stop indexing (the update rolls back)
            if done * 100 // total != shown:
                shown = done * 100 // total
                self.post_message(IndexProgressed(done, total))

        try:
            notice = index.prepare(progress).notice
        except _Closing:
            return
        except Exception as exc:  # a bug below us: one line, and searches will say more
            notice = f"the search index failed: {type(exc).__name__}: {exc}"
        self.post_message(IndexReady(notice))

    def on_index_progressed(self, message: IndexProgressed) -> None:
        self.indexing = (message.done, message.total)
        self.schedule_render()

    def on_index_ready(self, message: IndexReady) -> None:
        self.indexing = None
        if message.notice:
            self.notify(message.notice, severity="warning", timeout=8)
        self.schedule_render()

    def header_extra(self) -> str:
        return indexing_label(*self.indexing) if self.indexing else ""

    def on_unmount(self) -> None:
        self._index_stop.set()
        self.conversation.close()  # the worker thread ends and the run's trace is closed

    @on(Input.Submitted, "#question")
    def _submitted(self, event: Input.Submitted) -> None:
        question = event.value.strip()
        if question:
            self.ask(question)

    def ask(self, question: str) -> None:
        """Start a run of `question`, continuing the conversation."""
        if self.state.busy:
            self.notify("a run is in progress: press Escape to cancel it", severity="warning")
            return
        self.query_one(Input).clear()
        self._started = time.monotonic()
        self.query_one(MessageList).anchor()
        self.conversation.ask(question)

    def on_run_began(self, message: RunBegan) -> None:
        self.trace = message.trace

    def on_agent_event(self, message: AgentEvent) -> None:
        self.state = reduce(self.state, message.event)
        if isinstance(message.event, TextDelta):
            self.schedule_render(within=TEXT_REDRAW_S)
        else:
            self.schedule_render()

    def on_run_failed(self, message: RunFailed) -> None:
        self.notify(message.error, title="the run failed", severity="error")

    def on_conversation_reset(self, message: ConversationReset) -> None:
        self.state = self._fresh_state()
        self.query_one(MessageList).clear_entries()
        self.render_state()

    def action_cancel(self) -> None:
        """Cancel the running run: its events end `cancelled` at once."""
        if self.state.busy:
            self.conversation.cancel()

    def action_new(self) -> None:
        """Start a fresh conversation (cancelling the running run first)."""
        self.action_cancel()
        self.conversation.reset()
        self.query_one(Input).focus()

    def action_open_trace(self) -> None:
        """Pick a recent trace and replay it."""
        from tui.screens.trace_picker import TracePicker

        self.app.push_screen(TracePicker(self.trace_dir), self._replay)

    def _replay(self, path: Path | None) -> None:
        if path is None:
            return
        from agent import read_trace
        from tui.screens.replay import ReplayScreen

        try:
            trace = read_trace(path)
        except AgentError as exc:
            self.notify(str(exc), title="cannot replay", severity="error")
            return
        self.app.push_screen(ReplayScreen(trace, path=path, standalone=False))

    def action_copy(self) -> None:
        """Copy the answer, or the focused card's whole text."""
        self.copy_text()

    def action_export(self) -> None:
        """Export the latest run as Markdown beside its trace."""
        self.export_run()

    def export_source(self) -> tuple[Path | None, str]:
        if self.state.busy:
            return None, "a run is in progress: export it once it ends (Escape cancels it)"
        if self.trace is None:
            return None, "nothing to export yet: ask a question first"
        return self.trace, ""

    def _tick(self) -> None:
        if self.state.busy:
            self.render_state()

    def clock(self) -> float | None:
        return time.monotonic() - self._started if self.state.busy else None

    def trace_label(self) -> str | None:
        return str(self.trace) if self.trace is not None else f"traces in {self.trace_dir}"

    def commands(self) -> Iterator[Command]:
        yield ("Ask", "Move to the question box", self.query_one(Input).focus)
        yield ("Cancel run", "Stop the running question (Escape)", self.action_cancel)
        yield ("New conversation", "Forget the earlier turns (ctrl+n)", self.action_new)
        yield ("Open recent trace", "Replay a saved run (ctrl+o)", self.action_open_trace)
        yield ("Copy", "Copy the answer or the focused card (ctrl+y)", self.action_copy)
        yield from self.export_commands()
