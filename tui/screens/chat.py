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

from agent import AgentError, DocsIndex, RunFinished, Session, StopReason, Totals
from tui.messages import AgentEvent, IndexProgressed, IndexReady, RunEnded, RunFailed
from tui.options import explain
from tui.render import indexing_label
from tui.screens.base import Command, TraceScreen
from tui.state import ViewState, reduce
from tui.widgets.header_bar import HeaderBar
from tui.widgets.message_list import MessageList
from tui.widgets.status_bar import StatusBar

CANCEL_GRACE_S = 0.8  # show "cancelled" after this even if the model has not stopped yet


class _Closing(Exception):
    """Raised in the indexing thread when the screen goes away."""


class ChatScreen(TraceScreen):
    """Runs questions on a `Session` in a thread worker and shows the events as they come."""

    CSS_PATH = "chat.tcss"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel run"),
        Binding("ctrl+n", "new", "New chat"),
        Binding("ctrl+o", "open_trace", "Traces"),
        Binding("ctrl+y", "copy", "Copy"),
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
        self.session = session
        self.docs, self.model, self.mode = docs, model, mode
        self.question = question
        self.index = index
        self.indexing: tuple[int, int] | None = None  # files done and to do, while indexing
        self._index_stop = threading.Event()
        self.run_id = 0
        self.running = False  # what the view says
        self.worker_busy = False  # whether the worker thread is still iterating
        self._reset_pending = False
        self._cancel = threading.Event()
        self._started = 0.0
        self.state = self._fresh_state()

    def _fresh_state(self) -> ViewState:
        return ViewState(max_steps=self.session.agent.max_steps)

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
        self._cancel.set()
        self.session.close()  # quitting: the run's trace ends now, whatever the run is doing

    def _stop(self) -> None:
        self._cancel.set()
        if self.worker_busy:
            self.session.cancel()  # also cuts short a model read that is blocked

    @on(Input.Submitted, "#question")
    def _submitted(self, event: Input.Submitted) -> None:
        question = event.value.strip()
        if question:
            self.ask(question)

    def ask(self, question: str) -> None:
        """Start a run of `question`, continuing the conversation."""
        if self.running:
            self.notify("a run is in progress: press Escape to cancel it", severity="warning")
            return
        if self.worker_busy:
            self.notify("the cancelled run is still stopping; try again in a moment")
            return
        self.query_one(Input).clear()
        self.run_id += 1
        self.running = self.worker_busy = True
        self._cancel = threading.Event()
        self._started = time.monotonic()
        self.query_one(MessageList).anchor()
        # A daemon thread rather than a Textual thread worker (those are joined when the
        # app exits): a run stuck in a tool call or a read must never hold up quitting.
        worker = threading.Thread(
            target=self._run,
            args=(question, self._cancel, self.run_id),
            name="docsagent-run",
            daemon=True,
        )
        worker.start()

    def _run(self, question: str, cancel: threading.Event, run_id: int) -> None:
        # The worker only posts messages; the screen reduces them on its own thread.
        try:
            for event in self.session.ask(question, cancel=cancel):
                self.post_message(AgentEvent(event, run_id))
        except AgentError as exc:
            self.post_message(RunFailed(explain(exc), run_id))
        except Exception as exc:  # a bug below us: one line, not a traceback
            self.post_message(RunFailed(f"{type(exc).__name__}: {exc}", run_id))
        finally:
            self.post_message(RunEnded(run_id))

    def on_agent_event(self, message: AgentEvent) -> None:
        if message.run_id != self.run_id:
            return  # a cancelled run that we stopped waiting for
        self.state = reduce(self.state, message.event)
        if isinstance(message.event, RunFinished):
            self.running = False
        self.schedule_render()

    def on_run_failed(self, message: RunFailed) -> None:
        if message.run_id != self.run_id:
            return
        self.notify(message.error, title="the run failed", severity="error")
        if self.state.busy:  # the run did not get to end itself
            self._finish("error", message.error)

    def on_run_ended(self, message: RunEnded) -> None:
        self.worker_busy = False
        if self._reset_pending:  # only now has the session stopped updating its history
            self._reset_pending = False
            self.session.reset()
        if message.run_id == self.run_id and self.running:
            self.running = False
            self.schedule_render()

    def _finish(self, reason: StopReason, error: str) -> None:
        state = self.state
        totals = Totals(steps=state.step, tool_calls=state.tool_calls, usage=state.usage)
        event = totals.finish(reason, elapsed_s=time.monotonic() - self._started, error=error)
        self.state = reduce(self.state, event)
        self.running = False
        self.schedule_render()

    def action_cancel(self) -> None:
        """Cancel the running run."""
        if not self.running:
            return
        self._stop()
        run_id = self.run_id
        self.set_timer(CANCEL_GRACE_S, lambda: self._give_up(run_id))

    def _give_up(self, run_id: int) -> None:
        if self.running and self.run_id == run_id:
            self.run_id += 1  # ignore the rest of that run; its trace still ends cleanly
            self._finish("cancelled", "the model is still stopping")

    def action_new(self) -> None:
        """Start a fresh conversation."""
        if self.worker_busy:
            self._stop()
            self._reset_pending = True
        else:
            self.session.reset()
        self.run_id += 1
        self.running = False
        self.state = self._fresh_state()
        self.query_one(MessageList).clear_entries()
        self.render_state()
        self.query_one(Input).focus()

    def action_open_trace(self) -> None:
        """Pick a recent trace and replay it."""
        from tui.screens.trace_picker import TracePicker

        self.app.push_screen(TracePicker(self.session.trace_dir), self._replay)

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

    def _tick(self) -> None:
        if self.running:
            self.render_state()

    def clock(self) -> float | None:
        return time.monotonic() - self._started if self.running else None

    def trace_label(self) -> str | None:
        last = self.session.last_trace
        return str(last) if last is not None else f"traces in {self.session.trace_dir}"

    def commands(self) -> Iterator[Command]:
        yield ("Ask", "Move to the question box", self.query_one(Input).focus)
        yield ("Cancel run", "Stop the running question (Escape)", self.action_cancel)
        yield ("New conversation", "Forget the earlier turns (ctrl+n)", self.action_new)
        yield ("Open recent trace", "Replay a saved run (ctrl+o)", self.action_open_trace)
        yield ("Copy", "Copy the answer or the focused card (ctrl+y)", self.action_copy)
