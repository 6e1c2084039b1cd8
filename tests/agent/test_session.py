"""Session: the one producer of a run's final event, on every path."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from agent.errors import ConfigError
from agent.events import Event, ModelRequested, RunFinished, Usage
from agent.loop import Agent
from agent.messages import Message
from agent.models.base import Chunk, Reply, ToolSchema
from agent.session import Session
from agent.testing import ScriptedModel, reply
from agent.tools.docs import DocsContext, docs_registry
from agent.trace import read_trace


class StubbornModel:
    """Answers only once `release` is set, whatever the cancel says (a request not streamed)."""

    name = "stubborn"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.cancels = 0

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        self.release.wait(10)  # bounded: the test sets it
        yield Reply(Message("assistant", "late"), Usage(10, 2))

    def cancel(self) -> None:
        self.cancels += 1


def session_over(model: object, ctx: DocsContext, tmp_path: Path) -> Session:
    agent = Agent(model, docs_registry(), context=[ctx])  # type: ignore[arg-type]
    return Session(agent, trace_dir=tmp_path / "traces")


def run_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "docsagent-run"]


def test_a_cancel_ends_the_run_at_once_while_the_model_still_blocks(
    ctx: DocsContext, tmp_path: Path
) -> None:
    model = StubbornModel()
    session = session_over(model, ctx, tmp_path)
    seen: list[Event] = []
    for event in session.ask("q"):
        seen.append(event)
        if isinstance(event, ModelRequested):
            session.cancel()
    final = seen[-1]
    assert isinstance(final, RunFinished)
    assert (final.stop_reason, final.error, final.stats.steps) == ("cancelled", None, 1)
    assert not model.release.is_set() and model.cancels == 1  # the model never stopped
    model.release.set()
    for thread in run_threads():
        thread.join(timeout=5)  # the abandoned call finishes in the background...
    assert session.last_trace is not None
    assert read_trace(session.last_trace).events == seen  # ...and what it sent is dropped
    assert session.history == [] and session.last_finished == final


def test_a_cancel_between_runs_leaves_the_next_run_alone(ctx: DocsContext, tmp_path: Path) -> None:
    session = session_over(ScriptedModel([reply("one"), reply("two")]), ctx, tmp_path)
    list(session.ask("first"))
    session.cancel()
    final = list(session.ask("second"))[-1]
    assert isinstance(final, RunFinished) and (final.stop_reason, final.answer) == (
        "answered",
        "two",
    )


class BrokenModel:
    name = "broken"

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        raise RuntimeError("boom")

    def cancel(self) -> None:
        pass


def test_an_unexpected_failure_yields_the_final_event_before_raising(
    ctx: DocsContext, tmp_path: Path
) -> None:
    session = session_over(BrokenModel(), ctx, tmp_path)
    seen: list[Event] = []
    with pytest.raises(RuntimeError, match="boom"):
        for event in session.ask("q"):
            seen.append(event)
    final = seen[-1]
    assert isinstance(final, RunFinished)
    assert (final.stop_reason, final.error) == ("error", "RuntimeError: boom")
    assert session.last_trace is not None
    assert read_trace(session.last_trace).events == seen


def test_events_closed_before_the_first_is_read_still_end_the_question(
    ctx: DocsContext, tmp_path: Path
) -> None:
    """Ctrl+C before the run starts: the question ends cancelled, in the trace too, and the
    previous question's ending is not taken for it."""
    session = session_over(ScriptedModel([reply("one"), reply("two")]), ctx, tmp_path)
    list(session.ask("first"))
    assert session.ending().answer == "one"
    session.ask("second").close()
    final = session.ending()
    assert (final.stop_reason, final.error, final.answer) == ("cancelled", "interrupted", None)
    assert session.last_trace is not None
    trace = read_trace(session.last_trace)
    assert trace.complete and trace.events == [final]
    assert session.ending() is final  # ended once


def test_a_trace_that_cannot_be_written_ends_the_question_as_an_error(
    ctx: DocsContext, tmp_path: Path
) -> None:
    (tmp_path / "traces").write_text("a file where the folder would go")
    session = session_over(ScriptedModel([reply("one")]), ctx, tmp_path)
    with pytest.raises(ConfigError, match="^cannot write the trace "):
        session.ask("q")
    final = session.ending()
    assert final.stop_reason == "error" and (final.error or "").startswith("cannot write")
