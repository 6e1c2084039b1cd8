"""Messages from the agent worker to the UI: the worker only ever posts these."""

from __future__ import annotations

from textual.message import Message

from agent import Event


class AgentEvent(Message):
    """One core event, as the agent yielded it."""

    def __init__(self, event: Event, run_id: int = 0) -> None:
        super().__init__()
        self.event = event
        self.run_id = run_id


class RunFailed(Message):
    """The run raised; `error` is one line for the user (the events already ended it)."""

    def __init__(self, error: str, run_id: int = 0) -> None:
        super().__init__()
        self.error = error
        self.run_id = run_id


class RunEnded(Message):
    """The worker finished iterating (after the last `AgentEvent`)."""

    def __init__(self, run_id: int = 0) -> None:
        super().__init__()
        self.run_id = run_id


class IndexProgressed(Message):
    """The search index has indexed `done` of the `total` files it is updating."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done = done
        self.total = total


class IndexReady(Message):
    """The search index is up to date; `notice` is a line for the user, if any."""

    def __init__(self, notice: str | None) -> None:
        super().__init__()
        self.notice = notice
