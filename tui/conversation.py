"""The agent worker: one thread owns the session; the screen sends it commands and one cancel."""

from __future__ import annotations

import queue
from collections.abc import Callable

from textual.message import Message

from agent import AgentError, Session
from tui.messages import AgentEvent, ConversationReset, RunBegan, RunFailed
from tui.options import explain

_RESET = object()
_CLOSE = object()


class Conversation:
    """Runs questions and resets one after another on the worker thread, posting what happens.

    The screen never touches the session: `ask` and `reset` queue a command, `cancel`
    ends the running question (its events then end `cancelled`), `close` stops the worker.
    Commands run in order, so a reset after a run waits until that run has ended.
    """

    def __init__(self, session: Session, post: Callable[[Message], object]) -> None:
        self._session = session
        self._post = post
        self._inbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._closed = False

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
                self._post(AgentEvent(event))
        except AgentError as exc:
            self._post(RunFailed(explain(exc)))
        except Exception as exc:  # a bug below us: one line, not a traceback
            self._post(RunFailed(f"{type(exc).__name__}: {exc}"))
