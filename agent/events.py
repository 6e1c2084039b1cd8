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

StopReason = Literal[
    "answered", "truncated", "empty", "max_steps", "budget", "repeated", "cancelled", "error",
    "disconnected", "ended",
]  # fmt: skip
"""How a run ended. `truncated`: the reply stopped at the length limit (`answer` holds the
part that came); `empty`: the model sent no text and no tool call; `disconnected`: a served
session (`docsagent mcp`) that its client closed or left, the normal end of one (trace
version 2; version 1 traces said `ended`, which still reads)."""


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


@dataclass(frozen=True, kw_only=True)
class RunStats:
    """Totals of a run."""

    steps: int = 0
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    elapsed_s: float = 0.0
    cost_usd: float | None = None
    repeats: int = 0


@dataclass(frozen=True)
class Event:
    """Base of every event; `kind` names the event in traces."""

    kind: ClassVar[str] = "event"


@dataclass(frozen=True, kw_only=True)
class RunStarted(Event):
    """A run began: the question, what answers it, and any earlier turns of the conversation."""

    kind: ClassVar[str] = "run_started"
    question: str
    model: str
    max_steps: int
    docs: str = ""
    endpoint: str | None = None
    history: tuple[Message, ...] = ()


@dataclass(frozen=True, kw_only=True)
class MessageAppended(Event):
    """A message joined the conversation (each message is announced exactly once)."""

    kind: ClassVar[str] = "message"
    step: int
    message: Message


@dataclass(frozen=True, kw_only=True)
class ModelRequested(Event):
    """The model is being called for `step` with `n_messages` messages."""

    kind: ClassVar[str] = "model_request"
    step: int
    n_messages: int


@dataclass(frozen=True, kw_only=True)
class TextDelta(Event):
    """A piece of streamed assistant text."""

    kind: ClassVar[str] = "text_delta"
    step: int
    text: str


@dataclass(frozen=True, kw_only=True)
class RetryScheduled(Event):
    """The model call failed transiently and will be tried again after `delay_s`."""

    kind: ClassVar[str] = "retry"
    step: int
    attempt: int
    delay_s: float
    reason: str


@dataclass(frozen=True, kw_only=True)
class ModelNotice(Event):
    """A one-line note about how the endpoint is asked (e.g. it cannot stream tool calls)."""

    kind: ClassVar[str] = "model_notice"
    step: int
    text: str


@dataclass(frozen=True, kw_only=True)
class ModelReplied(Event):
    """The model answered `step`: `usage` is this call's; `total` and `cost_usd` are the run's."""

    kind: ClassVar[str] = "model_reply"
    step: int
    usage: Usage
    total: Usage
    duration_s: float
    finish_reason: str | None = None
    cost_usd: float | None = None


@dataclass(frozen=True, kw_only=True)
class ContextCompacted(Event):
    """Before `step`'s request, the results of `tool_call_ids` were replaced by `stubs`."""

    kind: ClassVar[str] = "compaction"
    step: int
    stubs: tuple[str, ...]
    tokens_saved: int
    tool_call_ids: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ToolCallStarted(Event):
    """A tool call began; `arguments` is the raw JSON text the model sent."""

    kind: ClassVar[str] = "tool_start"
    step: int
    tool_call_id: str
    name: str
    arguments: str


@dataclass(frozen=True, kw_only=True)
class ToolCallFinished(Event):
    """A tool call ended; `output` is the whole result, before truncation for the model.

    A call with the same arguments as an earlier one is not run again: `repeat_of` names
    the step that has its result, and `output` says so to the model.
    """

    kind: ClassVar[str] = "tool_end"
    step: int
    tool_call_id: str
    name: str
    output: str
    error: bool
    duration_s: float
    repeat_of: int | None = None
    """The step that already made this exact call (the tool was not run again)."""


@dataclass(frozen=True, kw_only=True)
class RunFinished(Event):
    """The run ended, always last; `answer` is None unless the model answered."""

    kind: ClassVar[str] = "run_finished"
    stop_reason: StopReason
    answer: str | None
    stats: RunStats
    error: str | None = None
    output: dict[str, Any] | None = None


def streamed_tokens(text: str) -> int:
    """An estimate of the tokens in one streamed piece: servers send about one a piece."""
    return max(1, (len(text) + 2) // 4)


@dataclass(frozen=True, kw_only=True)
class Totals:
    """A run's totals so far, folded from its events: the one tally of steps, calls and tokens.

    The loop, the session, `ask` and the TUI all count with it, and `finish` is the one
    place a `RunFinished` is built.
    """

    steps: int = 0
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None
    repeats: int = 0

    def add(self, event: Event) -> Totals:
        """The totals with one more event counted."""
        if isinstance(event, ModelRequested):
            return dataclasses.replace(self, steps=event.step)
        if isinstance(event, ModelReplied):
            return dataclasses.replace(self, usage=event.total, cost_usd=event.cost_usd)
        if isinstance(event, TextDelta) and event.text:
            # Counted as it streams (an estimate, marked so); the reply's usage replaces it.
            streamed = Usage(completion_tokens=streamed_tokens(event.text), estimated=True)
            return dataclasses.replace(self, usage=self.usage + streamed)
        if isinstance(event, ToolCallStarted):
            return dataclasses.replace(self, tool_calls=self.tool_calls + 1)
        if isinstance(event, ToolCallFinished) and event.repeat_of is not None:
            return dataclasses.replace(self, repeats=self.repeats + 1)
        if isinstance(event, RunStarted):
            return Totals()
        if isinstance(event, RunFinished):
            stats = event.stats
            counted = stats.usage.total_tokens > 0
            return Totals(
                steps=stats.steps,
                tool_calls=stats.tool_calls,
                usage=stats.usage if counted else self.usage,
                cost_usd=stats.cost_usd if counted else self.cost_usd,
                repeats=stats.repeats,
            )
        return self

    def stats(self, elapsed_s: float) -> RunStats:
        """The totals as a finished run's stats."""
        return RunStats(
            steps=self.steps,
            tool_calls=self.tool_calls,
            usage=self.usage,
            elapsed_s=round(elapsed_s, 3),
            cost_usd=self.cost_usd,
            repeats=self.repeats,
        )

    def finish(
        self,
        stop_reason: StopReason,
        *,
        elapsed_s: float,
        answer: str | None = None,
        error: str | None = None,
        output: dict[str, Any] | None = None,
    ) -> RunFinished:
        """The run's final event, with these totals."""
        return RunFinished(
            stop_reason=stop_reason,
            answer=answer,
            stats=self.stats(elapsed_s),
            error=error,
            output=output,
        )


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        RunStarted,
        MessageAppended,
        ModelRequested,
        TextDelta,
        RetryScheduled,
        ModelNotice,
        ModelReplied,
        ContextCompacted,
        ToolCallStarted,
        ToolCallFinished,
        RunFinished,
    )
}
