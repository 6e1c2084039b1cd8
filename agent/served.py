"""The docs tools served to another program (an MCP client), every call traced.

One `ServedTools` is one client session and one trace, in the trace format runs use:

    RunStarted
    per call: MessageAppended (assistant)  ToolCallStarted  ToolCallFinished
              MessageAppended (tool)
    RunFinished

Each call is its own step, as if a model had made it, so a replay shows one card per
look-up and `export` and `rerun` read the trace as they read a run's. The trace ends with
one `RunFinished` however the session ends (`agent.ending`: the first ending asked for wins),
and calls still running then are waited for first, so no result is dropped: its stop reason
is `disconnected` when the client closed the session or went away (the normal end),
`cancelled` when a signal stopped the server.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent.budget import MAX_TOKENS, MIN_TOKENS, Budget
from agent.defaults import DEFAULT_MAX_OBSERVATION, DEFAULT_RESULT_TOKENS
from agent.docset import DocSet, across, choose, set_schema
from agent.ending import RunEnding
from agent.errors import ConfigError, TraceError
from agent.events import (
    MessageAppended,
    RunFinished,
    RunStarted,
    StopReason,
    ToolCallFinished,
    ToolCallStarted,
)
from agent.messages import ToolCall, assistant, tool_result
from agent.observation import cut_name
from agent.tail import TraceTail
from agent.tools.arguments import MAX_ARGUMENT_CHARS
from agent.tools.docs import DocsContext
from agent.tools.registry import ToolContext, ToolError, ToolOutcome, ToolRegistry
from agent.tools.search import MAX_LIMIT
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

SERVED_TRACES = "*-" + trace_filename(SERVED_QUESTION).split("-", 3)[3]
"""The glob of a served session's trace file names (after the time stamp, the slug)."""


def newest_served(folder: Path, *, after: Path | None = None) -> Path | None:
    """The newest trace of a `docsagent mcp` session in `folder` (started after `after`).

    Newest by name, which starts with the time the session started: a long session still
    written to never hides one that started after it.
    """
    try:
        names = sorted(folder.glob(SERVED_TRACES), key=lambda p: p.name, reverse=True)
    except OSError:
        return None
    for path in names:
        if after is not None and path.name <= after.name:
            return None
        if _served(path):
            return path
    return None


def _served(path: Path) -> bool:
    """Whether the trace's header names the served model (a header not yet whole: no)."""
    tail = TraceTail(path)
    try:
        tail.read()
    except TraceError:
        return True  # said on the screen when it is followed
    return tail.header is not None and tail.header.get("model") == SERVED_MODEL


BOUNDS: dict[str, dict[str, tuple[int, int]]] = {"search_docs": {"limit": (1, MAX_LIMIT)}}
"""Bounds a client is shown in the schema and held to (our own loop clamps instead)."""

BUDGET_SCHEMA: dict[str, dict[str, Any]] = {
    "max_tokens": {
        "type": "integer",
        "minimum": MIN_TOKENS,
        "maximum": MAX_TOKENS,
        "default": DEFAULT_RESULT_TOKENS,
        "description": "At most this many tokens of result (about 4 characters each); "
        "a longer result comes in pages.",
    },
    "page": {
        "type": "integer",
        "minimum": 1,
        "default": 1,
        "description": "Which page of a long result to return; each page says how many there are.",
    },
}
"""The arguments every served tool takes besides its own: the result's budget."""

ONE_ANSWER = frozenset({"read_doc"})
"""Tools whose call names one doc: across sets, only the sets that hold it answer."""

NEEDS_INDEX = frozenset({"search_docs"})
"""The tools that wait for the search index while it is built (the rest read the files)."""

READ_ON = {
    "search_docs": ", or a smaller limit",
    "grep_docs": ", or pass path= to search one doc or folder",
    "list_docs": ", or search_docs for the docs about a subject",
}
"""How else to get less of each tool's long result, said when it is paged."""


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
        indexed: threading.Event | None = None,
        sets: Sequence[DocSet] = (),
    ) -> None:
        self.registry = registry
        self.indexed = indexed  # set once the search index is built (None: it is)
        self.context = list(context)
        self.sets = list(sets)  # several: each tool takes `set`, each result names its set
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
        if self.sets:
            header["sets"] = [
                {"name": s.key, "version": s.version, "title": s.title, "docs": s.folder}
                for s in self.sets
            ]
        try:
            writer = TraceWriter(path, header, clock=clock)
        except OSError as exc:
            raise ConfigError(
                f"cannot write the trace {path}: {exc.strerror or exc}", fields=("trace_dir",)
            ) from None
        self.path = writer.path
        self._clock = clock
        self.ending = RunEnding(writer, clock=clock, each_call_a_step=True)  # its one writer
        self._lock = threading.RLock()  # a stop signal may close the trace while `close` runs
        self._idle = threading.Condition(self._lock)
        self._calls = 0
        self._running = 0
        self._record(
            RunStarted(question=SERVED_QUESTION, model=SERVED_MODEL, max_steps=0, docs=docs)
        )

    def _record(self, event: Any) -> None:
        self.ending.record(event)  # dropped once the session has ended

    def schemas(self) -> list[dict[str, Any]]:
        """Each tool's name, description and input schema as a client sees them: every
        argument described and bounded, with the result's budget (`max_tokens`, `page`)."""
        served = []
        for name in self.registry.names:
            schema = self.registry[name].described_parameters()
            properties = dict(schema["properties"])
            for argument, (low, high) in BOUNDS.get(name, {}).items():
                properties[argument] = {**properties[argument], "minimum": low, "maximum": high}
            if len(self.sets) > 1:
                properties["set"] = set_schema(self.sets)
            schema = {**schema, "properties": {**properties, **BUDGET_SCHEMA}}
            served.append(
                {"name": name, "description": self.registry[name].description, "schema": schema}
            )
        return served

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> ToolOutcome:
        """Run one call (from any thread) and trace it; failures come back as error outcomes.

        The outcome's text is the page of the result the call's budget holds (`max_tokens`,
        `page`), while the trace keeps it whole; the trace records the tool's own
        arguments, so `rerun` runs the call again.
        """
        name = cut_name(name)  # a client's made-up name cannot fill a trace line
        own = dict(arguments or {})
        budget, refused = _budget(name, own)
        chosen = choose(self.sets, own) if len(self.sets) > 1 else self.sets
        if isinstance(chosen, str):
            refused = refused or chosen
        text = json.dumps(own, ensure_ascii=False)
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
        outcome = sent = ToolOutcome(f"error: {name} did not finish", True)
        try:
            waited = self._wait_for_index(name)
            if refused is not None:
                outcome = ToolOutcome(refused, True)
            elif len(self.sets) > 1 and not isinstance(chosen, str):
                outcome = self._across(name, text, chosen)
            else:
                outcome = self.registry.call(name, text, self.context)
            sent = _page(outcome, budget, name)
            if waited:
                sent = ToolOutcome(f"{sent.output}\n{waited}", sent.error)
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
                self._record(MessageAppended(step=step, message=tool_result(asked, sent.output)))
                self._running -= 1
                self._idle.notify_all()
        return sent

    def _across(self, name: str, text: str, sets: list[DocSet]) -> ToolOutcome:
        """The call on each of `sets`, each result under a line naming its set and version."""

        def run(docs: DocsContext) -> tuple[str, bool]:
            outcome = self.registry.call(name, text, [docs])
            return outcome.output, outcome.error

        output, error = across(sets, run, one_answer=name in ONE_ANSWER)
        return ToolOutcome(output, error)

    def _wait_for_index(self, name: str) -> str:
        """Wait for the search index if `name` needs it and it is being built; the notice
        that says so, or "" when there was no wait."""
        if self.indexed is None or name not in NEEDS_INDEX or self.indexed.is_set():
            return ""
        began = self._clock()
        self.indexed.wait()
        return f"(waited {self._clock() - began:.1f} s for the search index to be built)"

    @property
    def trace_error(self) -> str | None:
        """Why the trace could not be written (a full disk), once it could not; calls go on."""
        return self.ending.error

    @property
    def calls(self) -> int:
        """Calls made so far."""
        return self._calls

    def close(
        self, why: str, *, stop_reason: StopReason = "cancelled", wait_s: float = 5.0
    ) -> RunFinished | None:
        """End the trace (once: later calls return None): `why` says how the session ended.

        `stop_reason` is `disconnected` for the normal end (the client closed the session or
        went away); the default, `cancelled`, is for a session stopped from outside (a
        signal). Calls still running are given `wait_s` to finish, so their results are
        traced; the ending asked for first is the one written, even if a later close (a
        signal) cuts that wait short.
        """
        self.ending.claim(stop_reason, why)
        with self._lock:
            self._idle.wait_for(lambda: self._running == 0, timeout=wait_s)
            if self.ending.final is not None:
                return None
            return self.ending.end(stop_reason, why)


def _budget(name: str, arguments: dict[str, Any]) -> tuple[Budget, str | None]:
    """The call's budget, taken out of `arguments`, and why the call is refused, if it is:
    a budget or an argument outside the bounds the client's schema shows."""
    try:
        budget = Budget.take(arguments)
    except ToolError as exc:
        return Budget(), str(exc)
    for argument, (low, high) in BOUNDS.get(name, {}).items():
        value = arguments.get(argument)
        if isinstance(value, int) and not isinstance(value, bool) and not low <= value <= high:
            return budget, f"error: {argument} {value} is out of bounds: give {low} to {high}"
    return budget, None


def _page(outcome: ToolOutcome, budget: Budget, name: str) -> ToolOutcome:
    """The page of the result the call's budget holds; an error for a page past the end."""
    if outcome.error:  # one line, but cut as any result: it may quote what it was sent
        return ToolOutcome(Budget().cut(outcome.output, name=name), True)
    try:
        return ToolOutcome(budget.cut(outcome.output, name=name, hint=READ_ON.get(name, "")), False)
    except ToolError as exc:
        return ToolOutcome(str(exc), True)
