"""The agent loop: ask the model, run its tool calls, repeat until an answer or a limit."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from agent import messages as msg
from agent.errors import AgentError
from agent.events import (
    Event,
    MessageAppended,
    ModelReplied,
    ModelRequested,
    RetryScheduled,
    RunFinished,
    RunStarted,
    RunStats,
    StopReason,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    Usage,
)
from agent.final import FinalAnswer
from agent.models.base import Delta, Model, Reply, Retry
from agent.observation import DEFAULT_MAX_OBSERVATION, truncate
from agent.registry import ToolContext, ToolRegistry

SYSTEM_PROMPT = """\
You answer questions about a folder of documentation. Use the tools: list_docs to see the
files, grep_docs to find where a topic is covered, read_doc to read the lines. Answer only
from what you read, quote briefly, and cite every claim as path:start-end (for example
advanced/timeouts.md:45-61). If the docs do not cover the question, say so plainly."""


class Agent:
    """A tool-calling agent over a model and a tool registry."""

    def __init__(
        self,
        model: Model,
        tools: ToolRegistry,
        *,
        context: Sequence[ToolContext] = (),
        system_prompt: str = SYSTEM_PROMPT,
        max_steps: int = 8,
        max_observation_chars: int = DEFAULT_MAX_OBSERVATION,
        token_budget: int | None = None,
        cost: Callable[[Usage], float | None] | None = None,
        output_type: type | None = None,
        docs: str = "",
        endpoint: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.model = model
        self.final = FinalAnswer(output_type) if output_type is not None else None
        self.tools = self.final.extend(tools) if self.final else tools
        self.context = tuple(context)
        self.system_prompt = system_prompt
        self.max_steps = max_steps
        self.max_observation_chars = max_observation_chars
        self.token_budget = token_budget
        self.cost = cost or (lambda usage: None)
        self.docs = docs
        self.endpoint = endpoint
        self.clock = clock

    def run(
        self,
        question: str,
        *,
        history: Sequence[msg.Message] = (),
        cancel: threading.Event | None = None,
    ) -> Iterator[Event]:
        """Answer `question`, yielding every event; ends with exactly one `RunFinished`."""
        cancel = cancel or threading.Event()
        began = self.clock()
        yield RunStarted(
            question, self.model.name, self.max_steps, self.docs, self.endpoint, tuple(history)
        )
        messages = list(history)
        opening = [] if history else [msg.system(self.system_prompt)]
        for message in [*opening, msg.user(question)]:
            messages.append(message)
            yield MessageAppended(0, message)
        total, tool_calls, step = Usage(), 0, 0

        def finish(reason: StopReason, answer: str | None = None, **extra: Any) -> RunFinished:
            elapsed = round(self.clock() - began, 3)
            cost = self.cost(total) if total.total_tokens else None
            stats = RunStats(step, tool_calls, total, elapsed, cost)
            return RunFinished(reason, answer, stats, **extra)

        try:
            while step < self.max_steps:
                if cancel.is_set():
                    yield finish("cancelled")
                    return
                step += 1
                yield ModelRequested(step, len(messages))
                asked = self.clock()
                reply = None
                for chunk in self.model.query(messages, self.tools.schemas(), cancel=cancel):
                    if cancel.is_set():
                        break
                    if isinstance(chunk, Delta):
                        yield TextDelta(step, chunk.text)
                    elif isinstance(chunk, Retry):
                        yield RetryScheduled(step, chunk.attempt, chunk.delay_s, chunk.reason)
                    elif isinstance(chunk, Reply):
                        reply = chunk
                if cancel.is_set():
                    yield finish("cancelled")
                    return
                if reply is None:
                    yield finish("error", error="the model ended its reply without a message")
                    return
                total = total + reply.usage
                duration = round(self.clock() - asked, 3)
                yield ModelReplied(
                    step, reply.usage, total, duration, reply.finish_reason, self.cost(total)
                )
                messages.append(reply.message)
                yield MessageAppended(step, reply.message)
                if not reply.message.tool_calls:
                    answer = reply.message.content or ""
                    if answer.strip():
                        yield finish("answered", answer)
                    else:
                        yield finish("error", error="the model sent an empty reply")
                    return
                ended = None
                for call in reply.message.tool_calls:
                    tool_calls += 1
                    yield ToolCallStarted(step, call.id, call.name, call.arguments)
                    started = self.clock()
                    outcome = self.tools.call(call.name, call.arguments, self.context)
                    took = round(self.clock() - started, 3)
                    yield ToolCallFinished(
                        step, call.id, call.name, outcome.output, outcome.error, took
                    )
                    observation = msg.tool_result(
                        call, truncate(outcome.output, self.max_observation_chars)
                    )
                    messages.append(observation)
                    yield MessageAppended(step, observation)
                    if ended is None and not outcome.error and self.is_terminal(call.name):
                        ended = outcome
                if ended is not None:
                    output = self.final.as_dict(ended.value) if self.final else None
                    yield finish("answered", self.answer_text(ended), output=output)
                    return
                if self.token_budget is not None and total.total_tokens >= self.token_budget:
                    yield finish("budget", error=f"token budget of {self.token_budget} used up")
                    return
            yield finish("max_steps", error=f"no answer within {self.max_steps} steps")
        except AgentError as exc:
            yield finish("error", error=str(exc))
            raise

    def is_terminal(self, name: str) -> bool:
        """Whether a call of tool `name` ends the run."""
        return name in self.tools and self.tools[name].terminal

    def answer_text(self, outcome: Any) -> str:
        """The answer a terminal tool's outcome stands for."""
        if self.final is not None:
            return self.final.answer(outcome.value)
        return str(outcome.output)
