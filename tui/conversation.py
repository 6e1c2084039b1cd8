"""The agent worker: one thread owns the session; the screen sends it commands and one cancel."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from textual.message import Message

from agent import AgentError, Event, Session
from tui.commands.options import explain
from tui.messages import ConversationReset, EventsArrived, RunBegan, RunFailed

_RESET = object()
_CLOSE = object()


class Conversation:
    """Runs questions and resets one after another on the worker thread, posting what happens.

    The screen never touches the session: `ask` and `reset` queue a command, `cancel`
    ends the running question (its events then end `cancelled`), `close` stops the worker.
    Commands run in order, so a reset after a run waits until that run has ended.

    A run's events wait in an outbox the screen empties with `take`; the worker posts
    `EventsArrived` only when the outbox was empty, so the screen's queue holds at most
    one such message however fast the events come (a model streaming thousands of pieces
    a second would otherwise queue a message per piece, ahead of the user's keys).
    """

    def __init__(self, session: Session, post: Callable[[Message], object]) -> None:
        self._session = session
        self._post = post
        self._inbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._closed = False
        self._outbox: list[Event] = []
        self._outbox_lock = threading.Lock()

    def ask(self, question: str) -> None:
        """Queue a run of `question`, continuing the conversation."""
        self._inbox.put(question)

    def reset(self) -> None:
        """Queue forgetting the earlier turns; `ConversationReset` is posted once done."""
        self._inbox.put(_RESET)

    def cancel(self) -> None:
        """End the running question now (from the UI thread)."""
        self._session.cancel()

    def close(self) -> None:
        """Stop the worker: the running question is cancelled, queued commands are dropped."""
        self._closed = True
        self._inbox.put(_CLOSE)
        self._session.close()  # the running question's trace ends, even if no one reads on

    def take(self) -> list[Event]:
        """The events waiting, oldest first (from the UI thread, on `EventsArrived`)."""
        with self._outbox_lock:
            events, self._outbox = self._outbox, []
        return events

    def _put(self, event: Event) -> None:
        with self._outbox_lock:
            self._outbox.append(event)
            wake = len(self._outbox) == 1
        if wake:
            self._post(EventsArrived())

    def serve(self) -> None:
        """The worker thread's body: handle commands until `close`."""
        while (command := self._inbox.get()) is not _CLOSE and not self._closed:
            if command is _RESET:
                self._session.reset()
                self._post(ConversationReset())
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
