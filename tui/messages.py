"""Messages from the agent worker to the UI: the worker only ever posts these.

They are for the screen that runs the worker alone, so they do not bubble up to the app.
"""

from __future__ import annotations

from pathlib import Path

from textual.message import Message


class RunBegan(Message, bubble=False):
    """A question's run is starting; its trace is written to `trace`."""

    def __init__(self, trace: Path | None) -> None:
        super().__init__()
        self.trace = trace


class EventsArrived(Message, bubble=False):
    """Core events are waiting: the screen takes every one waiting at once (`Conversation.take`).

    One message stands for all events put before it is handled, so however fast a model
    streams, the screen handles one message per turn of its loop, not one per piece.
    """


class RunFailed(Message, bubble=False):
    """The run raised; `error` is one line for the user (the events already ended it)."""

    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class IndexProgressed(Message):
    """The search index has indexed `done` of the `total` files it is updating."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done = done
        self.total = total


class IndexReady(Message):
    """The search index is up to date; `notice` is a line for the user, if any.

    `examples` are questions drawn from the docs' headings, for the start screen.
    """

    def __init__(self, notice: str | None, examples: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.notice = notice
        self.examples = examples


class ConversationReset(Message, bubble=False):
    """The conversation was forgotten, after every event of the runs before it.

    `cancelled`: a run was under way when the user asked for the new conversation.
    """

    def __init__(self, cancelled: bool = False) -> None:
        super().__init__()
        self.cancelled = cancelled
