"""The Model seam: what the loop needs from any model."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Protocol

from agent.events import Usage
from agent.messages import Message

ToolSchema = dict[str, Any]
"""A tool as sent to the model: {"type": "function", "function": {...}}."""


@dataclass(frozen=True)
class Delta:
    """Streamed assistant text, as it arrives."""

    text: str


@dataclass(frozen=True)
class Retry:
    """The call failed transiently; the model waits `delay_s` and tries again."""

    attempt: int
    delay_s: float
    reason: str


@dataclass(frozen=True)
class Notice:
    """Something the user should know about how the endpoint is being asked, in one line."""

    text: str


@dataclass(frozen=True)
class Reply:
    """The complete assistant message of one call, with its usage. Always the last chunk."""

    message: Message
    usage: Usage
    finish_reason: str | None = None


Chunk = Delta | Retry | Notice | Reply


class Model(Protocol):
    """A chat model that can call tools.

    `query` yields any number of `Delta`, `Retry` and `Notice` chunks, then exactly one
    `Reply`.
    It raises an `agent.errors.ModelError` for failures the run cannot recover from.
    It should return promptly once `cancel` is set (the loop stops reading it then).
    Text is yielded as it arrives: making it pleasant to watch is the UI's business.
    """

    name: str

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]: ...

    def cancel(self) -> None:
        """Stop any request in flight, so a blocked `query` returns without a reply.

        Safe from any thread, and a no-op when nothing is in flight (the next `query`
        runs normally). A model that cannot cut a call short leaves it to finish.
        """
        ...


class KnowsContext(Protocol):
    """A model that knows how many tokens its context holds (None: unknown)."""

    context_window: int | None


def estimate_tokens(text: str) -> int:
    """A rough token count for text (about four characters a token)."""
    return (len(text) + 3) // 4


def estimate_usage(
    messages: Sequence[Message], tools: Sequence[ToolSchema], reply: Message
) -> Usage:
    """Estimated usage for a call whose server reported none."""
    prompt = sum(map(attrgetter("ascii_tokens"), messages))
    prompt += estimate_tokens(json.dumps(list(tools))) if tools else 0
    completion = reply.ascii_tokens
    return Usage(prompt_tokens=prompt, completion_tokens=completion, estimated=True)
