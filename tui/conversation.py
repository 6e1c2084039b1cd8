"""The agent worker: one thread owns the session; the screen sends it commands and one cancel."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from textual.message import Message

from agent import AgentError, Event, RunFinished, Session
from tui.commands.options import explain
from tui.messages import ConversationReset, EventsArrived, RunBegan, RunFailed
from tui.state import ViewState, reduce_all

_CLOSE = object()


@dataclass(frozen=True)
class _Reset:
    cancelled: bool  # a run was under way when the reset was asked for


class Conversation:
    """Runs questions and resets one after another on the worker thread, posting what happens.

    The screen never touches the session: `ask` and `reset` queue a command, `cancel`
    ends the running question (its events then end `cancelled`), `close` stops the worker.
    Commands run in order, so a reset after a run waits until that run has ended.

    A run's events wait in an outbox the screen empties with `take` (or `reduce`); the
    worker posts `EventsArrived` only when the outbox was empty, so the screen's queue holds
    at most one such message however fast the events come (a model streaming thousands of
    pieces a second would otherwise queue a message per piece, ahead of the user's keys).
    """

    def __init__(self, session: Session, post: Callable[[Message], object]) -> None:
        self._session = session
        self._post = post
        self._inbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._closed = False
        self._outbox: list[Event] = []
        self._outbox_lock = threading.Lock()
        # A run's last events are reduced off the screen's thread: checking the answer's
        # citations parses its Markdown, a third of a second for 200 KB, and keys wait.
        self._reducer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="docsagent-reduce")

    def start(self) -> None:
        """Start the worker thread."""
        # A daemon thread of its own, not a Textual thread worker: those run in asyncio's
        # default executor, which the app's shutdown waits for, so quitting waited for a
        # run stuck on a hung endpoint. Quitting closes the run's trace (`close`) instead.
        threading.Thread(target=self.serve, name="docsagent-run", daemon=True).start()

    def ask(self, question: str) -> None:
        """Queue a run of `question`, continuing the conversation."""
        self._inbox.put(question)

    def reset(self, *, cancelled: bool = False) -> None:
        """Queue forgetting the earlier turns; `ConversationReset` is posted once done
        (`cancelled`: a run under way was cancelled for it, and the message says so)."""
        self._inbox.put(_Reset(cancelled))

    def cancel(self) -> None:
        """End the running question now (from the UI thread)."""
        self._session.cancel()

    def close(self) -> None:
        """Stop the worker: the running question is cancelled, queued commands are dropped."""
        self._closed = True
        self._inbox.put(_CLOSE)
        self._reducer.shutdown(wait=False)
        self._session.close()  # the running question's trace ends, even if no one reads on

    def take(self) -> list[Event]:
        """The events waiting, oldest first (from the UI thread, on `EventsArrived`)."""
        with self._outbox_lock:
            events, self._outbox = self._outbox, []
        return events

    async def reduce(self, state: ViewState) -> tuple[ViewState, list[Event]]:
        """`state` with the events waiting folded in, and those events (on `EventsArrived`).

        The events that end a run are folded on the reducer's thread; the screen's next
        messages wait for this (in order), and keys go to the question box meanwhile.
        """
        events = self.take()
        if not events:
            return state, events
        if any(isinstance(e, RunFinished) for e in events) and not self._closed:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._reducer, reduce_all, events, state), events
        return reduce_all(events, state), events

    def _put(self, event: Event) -> None:
        with self._outbox_lock:
            self._outbox.append(event)
            wake = len(self._outbox) == 1
        if wake:
            self._post(EventsArrived())

    def serve(self) -> None:
        """The worker thread's body: handle commands until `close`."""
        while (command := self._inbox.get()) is not _CLOSE and not self._closed:
            if isinstance(command, _Reset):
                self._session.reset()
                self._post(ConversationReset(command.cancelled))
            elif isinstance(command, str):
                self._run(command)

    def _run(self, question: str) -> None:
        try:
            events = self._session.ask(question)
            if self._closed:  # closed while the run was starting: `close` may have missed it
                self._session.cancel()
            self._post(RunBegan(self._session.last_trace))
            for event in events:
                self._put(event)
        except AgentError as exc:
            self._post(RunFailed(explain(exc)))
        except Exception as exc:  # a bug below us: one line, not a traceback
            self._post(RunFailed(f"{type(exc).__name__}: {exc}"))
