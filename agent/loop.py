"""The agent loop: ask the model, run its tool calls, repeat until an answer or a limit."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import agent.messages as msg
from agent.compaction import Compaction, EarlierTurns
from agent.defaults import DEFAULT_MAX_OBSERVATION, DEFAULT_MAX_STEPS
from agent.errors import AgentError, ModelError
from agent.events import (
    ContextCompacted,
    Event,
    MessageAppended,
    ModelNotice,
    ModelReplied,
    ModelRequested,
    RetryScheduled,
    RunFinished,
    RunStarted,
    StopReason,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    Totals,
    Usage,
)
from agent.models.base import Delta, Model, Notice, Reply, Retry, estimate_tokens, estimate_usage
from agent.observation import truncate
from agent.tools.arguments import parse_arguments
from agent.tools.final import FinalAnswer
from agent.tools.registry import ToolContext, ToolOutcome, ToolRegistry
from agent.tools.schema import ArgumentError

SYSTEM_PROMPT = """\
Answer only from what the tools show (search_docs first). Cite claims in prose as \
path:start-end of lines read, e.g. guide.md:45-61, not in code or quotes. If the docs do \
not cover it, say so plainly."""
"""What the model is told besides the tools' own descriptions, which say what each tool
is for (search_docs' results end by saying to read a section before citing it): the
order to use them in, the citation format (only the answer's own prose cites) and the
rule to decline. It is sent with every request, so every byte of it counts once per step."""


_E = TypeVar("_E", bound=Event)


@dataclass
class _Run:
    """What one run carries from step to step."""

    messages: list[msg.Message]
    began: float
    cancel: threading.Event
    totals: Totals = field(default_factory=Totals)
    compacting: bool = False
    settled: int = 0  # the leading messages compaction has finished with (earlier turns)
    call_ids: set[str] = field(default_factory=set)  # every tool call id in `messages`
    seen: dict[tuple[str, str], int] = field(default_factory=dict)  # call -> step that made it
    last_repeat: tuple[str, str] | None = None


def _call_key(call: msg.ToolCall) -> tuple[str, str]:
    """A call's name and its arguments in canonical form (key order and spacing ignored)."""
    try:
        arguments = json.dumps(parse_arguments(call.arguments), sort_keys=True)
    except ArgumentError:
        arguments = call.arguments
    return call.name, arguments


REPEAT_HINTS = {
    "read_doc": "read other lines or another doc, or answer from what you have read",
    "grep_docs": "try other words, or read_doc the lines it found",
    "search_docs": "try other words, or read_doc a section it found",
    "list_docs": "pick a doc from that list and read_doc it",
}


def repeat_note(name: str, step: int) -> str:
    """The observation for a call that repeats an earlier one exactly."""
    hint = REPEAT_HINTS.get(name, "try something else, or answer from what you have")
    return (
        f"repeat: {name} was already called with these arguments at step {step}, and its "
        f"result is above; calling it again gives the same result. Instead, {hint}."
    )


class Agent:
    """A tool-calling agent over a model and a tool registry."""

    def __init__(
        self,
        model: Model,
        tools: ToolRegistry,
        *,
        context: Sequence[ToolContext] = (),
        system_prompt: str = SYSTEM_PROMPT,
        max_steps: int = DEFAULT_MAX_STEPS,
        max_observation_chars: int = DEFAULT_MAX_OBSERVATION,
        token_budget: int | None = None,
        compaction: Compaction | None = None,
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
        self.compaction = compaction
        self.cost = cost or (lambda usage: None)
        self.docs = docs
        self.endpoint = endpoint
        self.clock = clock
        self._earlier = EarlierTurns()  # remembers the last history it stubbed

    def run(
        self,
        question: str,
        *,
        history: Sequence[msg.Message] = (),
        cancel: threading.Event | None = None,
    ) -> Iterator[Event]:
        """Answer `question`, yielding every event; ends with exactly one `RunFinished`."""
        run = _Run(
            messages=list(history),
            began=self.clock(),
            cancel=cancel or threading.Event(),
            call_ids=msg.call_ids(history),
        )
        yield RunStarted(
            question=question,
            model=self.model.name,
            max_steps=self.max_steps,
            docs=self.docs,
            endpoint=self.endpoint,
            history=tuple(history),
        )
        if history and self.compaction is not None:
            # Earlier questions travel with their answers; their observations as stubs.
            yield from self._shorten(run, step=0)
            run.settled = len(run.messages)
        opening = [] if history else [msg.system(self.system_prompt)]
        for message in [*opening, msg.user(question)]:
            yield self._append(run, 0, message)
        try:
            while (ending := self._check_limits(run)) is None:
                reply = yield from self._ask(run)
                ending = self._check_reply(run, reply)
                if ending is None and reply is not None:
                    ending = yield from self._apply(run, reply)
                if ending is not None:
                    break
            yield ending
        except AgentError as exc:
            yield self._finish(run, "error", error=str(exc))
            raise

    def _check_limits(self, run: _Run) -> RunFinished | None:
        """The final event if the run must stop before asking the model again."""
        budget, used = self.token_budget, run.totals.usage.total_tokens
        if budget is not None and run.totals.steps and used >= budget:
            return self._finish(run, "budget", error=f"token budget of {budget} used up")
        if run.cancel.is_set():
            return self._finish(run, "cancelled")
        if run.totals.steps >= self.max_steps:
            steps = f"{self.max_steps} step{'s' if self.max_steps != 1 else ''}"
            return self._finish(run, "max_steps", error=f"no answer within {steps}")
        return None

    def _ask(self, run: _Run) -> Generator[Event, None, Reply | None]:
        """Ask the model for the next step, yielding streamed text and retries."""
        step = run.totals.steps + 1
        compaction = self._compaction()
        if compaction is not None and (run.compacting or compaction.needed(run.messages)):
            run.compacting = True  # once past the threshold, every request is kept short
            yield from self._shorten(run, step=step)
        yield self._count(run, ModelRequested(step=step, n_messages=len(run.messages)))
        asked, reply = self.clock(), None
        try:
            for chunk in self.model.query(run.messages, self.tools.schemas(), cancel=run.cancel):
                if run.cancel.is_set():
                    return None
                if isinstance(chunk, Delta):
                    yield TextDelta(step=step, text=chunk.text)
                elif isinstance(chunk, Notice):
                    yield ModelNotice(step=step, text=chunk.text)
                elif isinstance(chunk, Retry):
                    yield RetryScheduled(
                        step=step, attempt=chunk.attempt, delay_s=chunk.delay_s, reason=chunk.reason
                    )
                elif isinstance(chunk, Reply):
                    reply = chunk
        except ModelError as exc:
            if exc.partial:  # the text so far, and its estimated tokens, are kept: cut off
                yield self._cut_off(run, step, exc.partial, self.clock() - asked)
            raise
        if reply is not None:
            total = run.totals.usage + reply.usage
            yield self._count(
                run,
                ModelReplied(
                    step=step,
                    usage=reply.usage,
                    total=total,
                    duration_s=round(self.clock() - asked, 3),
                    finish_reason=reply.finish_reason,
                    cost_usd=self.cost(total),
                ),
            )
        return reply

    def _cut_off(self, run: _Run, step: int, partial: str, duration_s: float) -> ModelReplied:
        """The reply a failure cut off, with estimated tokens (`finish_reason` "cut_off")."""
        usage = estimate_usage(run.messages, self.tools.schemas(), msg.assistant(partial))
        usage = replace(usage, completion_tokens=estimate_tokens(partial))  # as the error says
        total = run.totals.usage + usage
        return self._count(
            run,
            ModelReplied(
                step=step,
                usage=usage,
                total=total,
                duration_s=round(duration_s, 3),
                finish_reason="cut_off",
                cost_usd=self.cost(total),
            ),
        )

    def _shorten(self, run: _Run, *, step: int) -> Iterator[ContextCompacted]:
        """Replace old observations by stubs, announcing what was shortened.

        Before the first step (step 0) every observation of the earlier turns is stubbed.
        """
        compaction = self._compaction()
        assert compaction is not None
        if step == 0:
            shortened = self._earlier.shorten(run.messages)
        else:
            shortened = compaction.shorten(run.messages, settled=run.settled)
        if shortened.stubs:
            run.messages = shortened.messages
            yield ContextCompacted(
                step=step,
                stubs=shortened.stubs,
                tokens_saved=shortened.tokens_saved,
                tool_call_ids=shortened.tool_call_ids,
            )

    def _compaction(self) -> Compaction | None:
        """The compaction policy, bound to the model's context window once that is known."""
        window = getattr(self.model, "context_window", None)
        if self.compaction is None or not isinstance(window, int):
            return self.compaction
        tools = (len(json.dumps(self.tools.schemas())) + 3) // 4
        return self.compaction.within(window, tools=tools)

    def _check_reply(self, run: _Run, reply: Reply | None) -> RunFinished | None:
        """The final event if the reply ends the run before it is applied."""
        if run.cancel.is_set():
            return self._finish(run, "cancelled")
        if reply is None:
            return self._finish(run, "error", error="the model ended its reply without a message")
        return None

    def _apply(self, run: _Run, reply: Reply) -> Generator[Event, None, RunFinished | None]:
        """Add the reply to the conversation; an answer ends the run, tool calls are run."""
        message = msg.with_unique_call_ids(reply.message, run.call_ids)
        yield self._append(run, run.totals.steps, message)
        if message.tool_calls:
            return (yield from self._run_tools(run, message.tool_calls))
        answer = message.content or ""
        if not answer.strip():
            error = f"the model {self.model.name} sent an empty reply (no text and no tool call)"
            return self._finish(run, "empty", error=error)
        if reply.finish_reason == "length":
            error = (
                "the reply was cut short at the length limit "
                "(the reply token limit, or the server's context)"
            )
            return self._finish(run, "truncated", answer=answer, error=error)
        return self._finish(run, "answered", answer=answer)

    def _run_tools(
        self, run: _Run, calls: Sequence[msg.ToolCall]
    ) -> Generator[Event, None, RunFinished | None]:
        """Run each call, one tool message per call id; a terminal tool's success ends the run.

        A call made before with the same arguments is not run again (`repeat_of`); the
        same repeat twice in a row ends the run.
        """
        step, ended = run.totals.steps, None
        for call in calls:
            yield self._count(
                run,
                ToolCallStarted(
                    step=step, tool_call_id=call.id, name=call.name, arguments=call.arguments
                ),
            )
            key = _call_key(call)
            earlier = run.seen.get(key)
            started = self.clock()
            if earlier is None:
                run.seen[key] = step
                outcome = self.tools.call(call.name, call.arguments, self.context)
            else:
                outcome = ToolOutcome(repeat_note(call.name, earlier))
            stuck = earlier is not None and run.last_repeat == key
            run.last_repeat = key if earlier is not None else None
            yield self._count(
                run,
                ToolCallFinished(
                    step=step,
                    tool_call_id=call.id,
                    name=call.name,
                    output=outcome.output,
                    error=outcome.error,
                    duration_s=round(self.clock() - started, 3),
                    repeat_of=earlier,
                ),
            )
            observation = truncate(outcome.output, self.max_observation_chars)
            yield self._append(run, step, msg.tool_result(call, observation))
            if stuck and ended is None:
                error = f"the model repeated the same {call.name} call twice in a row"
                ended = self._finish(run, "repeated", error=error)
            elif ended is None and not outcome.error and self.is_terminal(call.name):
                output = self.final.as_dict(outcome.value) if self.final else None
                answer = self.answer_text(outcome)
                ended = self._finish(run, "answered", answer=answer, output=output)
        return ended

    def _append(self, run: _Run, step: int, message: msg.Message) -> MessageAppended:
        run.messages.append(message)
        return MessageAppended(step=step, message=message)

    def _count(self, run: _Run, event: _E) -> _E:
        run.totals = run.totals.add(event)
        return event

    def _finish(self, run: _Run, reason: StopReason, **fields: Any) -> RunFinished:
        return run.totals.finish(reason, elapsed_s=self.clock() - run.began, **fields)

    def is_terminal(self, name: str) -> bool:
        """Whether a call of tool `name` ends the run."""
        return name in self.tools and self.tools[name].terminal

    def answer_text(self, outcome: Any) -> str:
        """The answer a terminal tool's outcome stands for."""
        if self.final is not None:
            return self.final.answer(outcome.value)
        return str(outcome.output)
