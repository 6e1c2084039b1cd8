"""The docs tools served to another program (an MCP client), every call traced.

One `ServedTools` is one client session and one trace, in the trace format runs use:

    RunStarted
    per call: MessageAppended (assistant)  ToolCallStarted  ToolCallFinished
              MessageAppended (tool)
    RunFinished

Each call is its own step, as if a model had made it, so a replay shows one card per
look-up and `export` and `rerun` read the trace as they read a run's. The trace ends with
one `RunFinished` however the session ends, and calls still running then are waited for
first, so no result is dropped: its stop reason is `ended` when the client closed the
session (the normal end), `cancelled` when a signal stopped the server.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent.defaults import DEFAULT_MAX_OBSERVATION
from agent.errors import ConfigError
from agent.events import (
    MessageAppended,
    RunFinished,
    RunStarted,
    StopReason,
    ToolCallFinished,
    ToolCallStarted,
    Totals,
)
from agent.messages import ToolCall, assistant, tool_result
from agent.observation import cut_name, truncate
from agent.tools.arguments import MAX_ARGUMENT_CHARS
from agent.tools.registry import ToolContext, ToolOutcome, ToolRegistry
from agent.trace import TraceWriter
from agent.traces import trace_filename

SERVED_MODEL = "mcp client"
"""The model named in a served session's trace: the client is the one choosing the calls."""


def is_served(model: str, max_steps: int) -> bool:
    """Whether a run that names this model and step limit is a served session (`docsagent
    mcp`): an outside client's look-ups, so no model was asked and no tokens were used."""
    return model == SERVED_MODEL and not max_steps


SERVED_QUESTION = "look-ups by an MCP client"
"""What a served session's trace says was asked (its file name ends with its slug)."""


class ServedTools:
    """Runs the registry's tools for an outside client and writes each call to one trace."""

    def __init__(
        self,
        registry: ToolRegistry,
        context: Sequence[ToolContext],
        *,
        trace_dir: Path,
        docs: str,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.registry = registry
        self.context = list(context)
        path = Path(trace_dir) / trace_filename(SERVED_QUESTION)
        header = {
            "question": SERVED_QUESTION,
            "model": SERVED_MODEL,
            "endpoint": None,
            "docs": docs,
            "max_steps": 0,
            "max_observation_chars": DEFAULT_MAX_OBSERVATION,
            "tools": registry.schemas(),
        }
        try:
            self._writer = TraceWriter(path, header, clock=clock)
        except OSError as exc:
            raise ConfigError(
                f"cannot write the trace {path}: {exc.strerror or exc}", fields=("trace_dir",)
            ) from None
        self.path = self._writer.path
        self._clock = clock
        self._began = clock()
        self._lock = threading.RLock()  # a stop signal may close the trace while `close` runs
        self._idle = threading.Condition(self._lock)
        self._calls = 0
        self._running = 0
        self._totals = Totals()
        self._record(
            RunStarted(question=SERVED_QUESTION, model=SERVED_MODEL, max_steps=0, docs=docs)
        )

    def _record(self, event: Any) -> None:
        self._writer.write(event)
        self._totals = self._totals.add(event)

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> ToolOutcome:
        """Run one call (from any thread) and trace it; failures come back as error outcomes.

        The outcome's text is what the model in our own loop would see: cut to the
        observation limit, while the trace keeps it whole.
        """
        text = json.dumps(arguments or {}, ensure_ascii=False)
        name = cut_name(name)  # a client's made-up name cannot fill a trace line
        with self._lock:
            self._calls += 1
            self._running += 1
            step = self._calls
            call_id = f"mcp-{step}"
            shown = text if len(text) <= MAX_ARGUMENT_CHARS else text[:MAX_ARGUMENT_CHARS] + "…"
            asked = ToolCall(call_id, name, shown)
            self._record(MessageAppended(step=step, message=assistant(tool_calls=(asked,))))
            self._record(
                ToolCallStarted(step=step, tool_call_id=call_id, name=name, arguments=shown)
            )
        began = self._clock()
        outcome = ToolOutcome(f"error: {name} did not finish", True)
        try:
            outcome = self.registry.call(name, text, self.context)
        finally:  # recorded before `close` may end the trace
            with self._lock:
                self._record(
                    ToolCallFinished(
                        step=step,
                        tool_call_id=call_id,
                        name=name,
                        output=outcome.output,
                        error=outcome.error,
                        duration_s=round(self._clock() - began, 3),
                    )
                )
                sent = truncate(outcome.output, DEFAULT_MAX_OBSERVATION)
                self._record(MessageAppended(step=step, message=tool_result(asked, sent)))
                self._running -= 1
                self._idle.notify_all()
        return ToolOutcome(sent, outcome.error)

    @property
    def trace_error(self) -> str | None:
        """Why the trace could not be written (a full disk), once it could not; calls go on."""
        return self._writer.error

    @property
    def calls(self) -> int:
        """Calls made so far."""
        return self._calls

    def close(
        self, why: str, *, stop_reason: StopReason = "cancelled", wait_s: float = 5.0
    ) -> RunFinished | None:
        """End the trace (once; later calls do nothing): `why` says how the session ended.

        `stop_reason` is `ended` for the normal end (the client closed the session); the
        default, `cancelled`, is for a session stopped from outside (a signal). Calls still
        running are given `wait_s` to finish, so their results are traced.
        """
        with self._lock:
            self._idle.wait_for(lambda: self._running == 0, timeout=wait_s)
            if self._writer.finished:
                return None
            elapsed = self._clock() - self._began
            each_a_step = dataclasses.replace(self._totals, steps=self._calls)
            final = each_a_step.finish(stop_reason, elapsed_s=elapsed, error=why)
            self._writer.write(final)
        self._writer.close()
        return final
