"""Typed, frozen events: the core's only output.

A run yields, in order::

    RunStarted
    MessageAppended (system, on a new conversation) MessageAppended (user)
    per step:
        ModelRequested  [TextDelta ...]  [RetryScheduled ...]  ModelReplied
        MessageAppended (assistant)
        per tool call: ToolCallStarted  ToolCallFinished  MessageAppended (tool)
    RunFinished

The same events drive the TUI, the `ask` printer, the trace writer and replay.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from agent.messages import Message

StopReason = Literal["answered", "max_steps", "budget", "cancelled", "error"]


@dataclass(frozen=True)
class Usage:
    """Token usage of one model call (or a sum); `estimated` when not reported by the server."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.estimated or other.estimated,
        )


@dataclass(frozen=True)
class RunStats:
    """Totals of a run."""

    steps: int = 0
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    elapsed_s: float = 0.0
    cost_usd: float | None = None


@dataclass(frozen=True)
class Event:
    """Base of every event; `kind` names the event in traces."""

    kind: ClassVar[str] = "event"


@dataclass(frozen=True)
class RunStarted(Event):
    """A run began: the question, what answers it, and any earlier turns of the conversation."""

    kind: ClassVar[str] = "run_started"
    question: str
    model: str
    max_steps: int
    docs: str = ""
    endpoint: str | None = None
    history: tuple[Message, ...] = ()


@dataclass(frozen=True)
class MessageAppended(Event):
    """A message joined the conversation (each message is announced exactly once)."""

    kind: ClassVar[str] = "message"
    step: int
    message: Message


@dataclass(frozen=True)
class ModelRequested(Event):
    """The model is being called for `step` with `n_messages` messages."""

    kind: ClassVar[str] = "model_request"
    step: int
    n_messages: int


@dataclass(frozen=True)
class TextDelta(Event):
    """A piece of streamed assistant text."""

    kind: ClassVar[str] = "text_delta"
    step: int
    text: str


@dataclass(frozen=True)
class RetryScheduled(Event):
    """The model call failed transiently and will be tried again after `delay_s`."""

    kind: ClassVar[str] = "retry"
    step: int
    attempt: int
    delay_s: float
    reason: str


@dataclass(frozen=True)
class ModelReplied(Event):
    """The model answered `step`: `usage` is this call's; `total` and `cost_usd` are the run's."""

    kind: ClassVar[str] = "model_reply"
    step: int
    usage: Usage
    total: Usage
    duration_s: float
    finish_reason: str | None = None
    cost_usd: float | None = None


@dataclass(frozen=True)
class ToolCallStarted(Event):
    """A tool call began; `arguments` is the raw JSON text the model sent."""

    kind: ClassVar[str] = "tool_start"
    step: int
    tool_call_id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ToolCallFinished(Event):
    """A tool call ended; `output` is the whole result, before truncation for the model."""

    kind: ClassVar[str] = "tool_end"
    step: int
    tool_call_id: str
    name: str
    output: str
    error: bool
    duration_s: float


@dataclass(frozen=True)
class RunFinished(Event):
    """The run ended, always last; `answer` is None unless the model answered."""

    kind: ClassVar[str] = "run_finished"
    stop_reason: StopReason
    answer: str | None
    stats: RunStats
    error: str | None = None
    output: dict[str, Any] | None = None


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        RunStarted,
        MessageAppended,
        ModelRequested,
        TextDelta,
        RetryScheduled,
        ModelReplied,
        ToolCallStarted,
        ToolCallFinished,
        RunFinished,
    )
}


def _encode(value: Any) -> Any:
    if isinstance(value, Message):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_encode(v) for v in value]
    return value


def event_to_dict(event: Event) -> dict[str, Any]:
    """The event as a JSON-ready dict with its `type`."""
    data = _encode(event)
    return {"type": event.kind, **data}


def _usage(data: dict[str, Any]) -> Usage:
    return Usage(**data)


def _stats(data: dict[str, Any]) -> RunStats:
    return RunStats(**{**data, "usage": _usage(data.get("usage") or {})})


_DECODERS: dict[str, Any] = {
    "message": Message.from_dict,
    "usage": _usage,
    "total": _usage,
    "stats": _stats,
    "history": lambda items: tuple(Message.from_dict(m) for m in items),
}


def event_from_dict(data: dict[str, Any]) -> Event | None:
    """Rebuild an event from `event_to_dict` output; None for an unknown type."""
    cls = EVENT_TYPES.get(str(data.get("type")))
    if cls is None:
        return None
    names = {f.name for f in dataclasses.fields(cls)}
    kwargs = {
        key: _DECODERS[key](value) if key in _DECODERS and value is not None else value
        for key, value in data.items()
        if key in names
    }
    return cls(**kwargs)
