"""Endings that race: a cancel during a tool call or a stream, a stop signal or a failure
during a cancel, a client leaving while a signal stops the server. Each run's trace ends
with exactly one `RunFinished`, the first asked for, and its reader is handed that one."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from agent.errors import ConfigError
from agent.events import (
    Event,
    MessageAppended,
    RunFinished,
    StopReason,
    TextDelta,
    ToolCallStarted,
    Usage,
)
from agent.loop import Agent
from agent.messages import Message
from agent.models.base import Chunk, Delta, Reply, ToolSchema
from agent.served import ServedTools
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.tools.registry import ToolRegistry
from agent.trace import read_trace

BOUND_S = 10  # every handshake below is set by the test; this only bounds a broken one


class Streaming:
    """Streams `pieces`, then holds its reply until `release`; or fails, at once or held."""

    name = "streaming"

    def __init__(
        self, pieces: Sequence[str], *, fail: Exception | None = None, hold: bool = True
    ) -> None:
        self.pieces = list(pieces)
        self.fail = fail
        self.streamed = threading.Event()  # every piece is on its way to the reader
        self.release = threading.Event()
        if not hold:
            self.release.set()

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        for piece in self.pieces:
            yield Delta(piece)
        self.streamed.set()
        assert self.release.wait(BOUND_S)
        if self.fail is not None:
            raise self.fail
        yield Reply(Message("assistant", "".join(self.pieces)), Usage(10, 2))

    def cancel(self) -> None:
        pass  # a stream that does not notice: the session must end the run itself


class Gate:
    """A tool that waits in the middle of its call until released."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def wait_here(self) -> str:
        """Wait until released."""
        self.entered.set()
        assert self.release.wait(BOUND_S)
        return "done"


def session_over(model: object, tmp_path: Path, tools: ToolRegistry | None = None) -> Session:
    agent = Agent(model, tools or ToolRegistry())  # type: ignore[arg-type]
    return Session(agent, trace_dir=tmp_path / "traces")


def join_runs() -> None:
    """Wait for the runs the sessions left behind: whatever they sent late is in by then."""
    for thread in threading.enumerate():
        if thread.name == "docsagent-run":
            thread.join(BOUND_S)


def the_one_ending(session: Session, seen: list[Event]) -> RunFinished:
    """The trace's one `RunFinished`, last, as its reader saw it; asked for again, it stays."""
    assert session.last_trace is not None
    trace = read_trace(session.last_trace)
    final = trace.events[-1]
    assert isinstance(final, RunFinished)
    assert [e for e in trace.events if isinstance(e, RunFinished)] == [final]
    assert trace.events == seen
    session.close(wait_s=0)  # a quit, or a stop signal's closer, after it: the same ending
    assert session.ending() == final == session.last_finished
    assert read_trace(session.last_trace).events == seen
    return final


class Reader:
    """Reads a question's events on a thread of its own (the TUI's worker), pausing after
    the first `TextDelta` until `go` (busy posting to the screen)."""

    def __init__(self, session: Session, question: str) -> None:
        self.seen: list[Event] = []
        self.paused = threading.Event()
        self.go = threading.Event()
        self.failure: BaseException | None = None
        self._events = session.ask(question)
        self.thread = threading.Thread(target=self._read)
        self.thread.start()

    def _read(self) -> None:
        try:
            for event in self._events:
                self.seen.append(event)
                if isinstance(event, TextDelta) and not self.paused.is_set():
                    self.paused.set()
                    assert self.go.wait(BOUND_S)
        except Exception as exc:
            self.failure = exc

    def finish(self) -> None:
        self.go.set()
        self.thread.join(BOUND_S)


def test_a_cancel_during_a_tool_call_is_the_one_ending(tmp_path: Path) -> None:
    gate = Gate()
    model = ScriptedModel([reply(None, call("wait_here")), reply("late")])
    session = session_over(model, tmp_path, ToolRegistry([gate.wait_here]))
    seen: list[Event] = []
    for event in session.ask("q"):
        seen.append(event)
        if isinstance(event, ToolCallStarted):
            assert gate.entered.wait(BOUND_S)
            session.cancel()
    gate.release.set()  # the call finishes and the run ends itself, late
    join_runs()
    final = the_one_ending(session, seen)
    assert (final.stop_reason, final.error, final.stats.tool_calls) == ("cancelled", None, 1)
    assert isinstance(seen[-2], ToolCallStarted)  # nothing of the call's end came through


def test_a_cancel_during_streaming_is_the_one_ending(tmp_path: Path) -> None:
    model = Streaming(["one ", "two ", "three"])
    session = session_over(model, tmp_path)
    seen: list[Event] = []
    for event in session.ask("q"):
        seen.append(event)
        if isinstance(event, TextDelta) and event.text == "one ":
            assert model.streamed.wait(BOUND_S)
            session.cancel()
    model.release.set()  # the reply comes after all, and the run ends itself, late
    join_runs()
    final = the_one_ending(session, seen)
    assert (final.stop_reason, final.error) == ("cancelled", None)
    assert [e.text for e in seen if isinstance(e, TextDelta)] == ["one ", "two ", "three"]


def test_a_stop_signal_during_a_cancel_ends_the_run_once(tmp_path: Path) -> None:
    """Escape, then SIGTERM's closer before the worker reads on: the closer's ending is the
    one, and the pieces still queued for the worker are dropped, not written after it."""
    model = Streaming(["one ", "two ", "three"])
    session = session_over(model, tmp_path)
    reader = Reader(session, "q")
    assert reader.paused.wait(BOUND_S) and model.streamed.wait(BOUND_S)
    session.cancel()  # the worker would end the run when it reads on...
    session.close(wait_s=0)  # ...but the signal's closer, on its thread, ends it first
    reader.finish()
    model.release.set()
    join_runs()
    assert reader.failure is None
    final = the_one_ending(session, reader.seen)
    assert (final.stop_reason, final.error) == ("cancelled", "interrupted")
    assert [e.text for e in reader.seen if isinstance(e, TextDelta)] == ["one "]


def test_a_failure_after_a_cancel_is_dropped(tmp_path: Path) -> None:
    model = Streaming(["one "], fail=RuntimeError("boom"))
    session = session_over(model, tmp_path)
    seen: list[Event] = []
    for event in session.ask("q"):
        seen.append(event)
        if isinstance(event, TextDelta):
            assert model.streamed.wait(BOUND_S)
            session.cancel()
    model.release.set()  # the stream fails now, after the cancel
    join_runs()
    final = the_one_ending(session, seen)
    assert (final.stop_reason, final.error) == ("cancelled", None)


@pytest.mark.parametrize("first", ["failure", "stop signal"])
def test_a_failure_and_a_stop_signal_during_a_cancel_end_the_run_once(
    tmp_path: Path, first: str
) -> None:
    """The run fails while its worker is busy, and a cancel and SIGTERM's closer come: the
    failure wins when the worker reads it first, the closer when it ends the run first."""
    model = Streaming(["one "], fail=RuntimeError("boom"), hold=False)
    session = session_over(model, tmp_path)
    reader = Reader(session, "q")
    assert reader.paused.wait(BOUND_S)
    join_runs()  # the failure waits for the worker, after "one "
    session.cancel()
    if first == "stop signal":
        session.close(wait_s=0)
    reader.finish()
    assert isinstance(reader.failure, RuntimeError)  # handed on after the ending
    final = the_one_ending(session, reader.seen)
    if first == "stop signal":
        assert (final.stop_reason, final.error) == ("cancelled", "interrupted")
    else:
        assert (final.stop_reason, final.error) == ("error", "RuntimeError: boom")


@pytest.mark.parametrize("first", ["disconnected", "cancelled"])
def test_a_client_leaving_and_a_stop_signal_end_a_served_session_once(
    tmp_path: Path, first: str
) -> None:
    """The client leaves while a call runs (its close waits for the call) and a signal's
    close ends the trace at once: the ending asked for first is the one written."""
    gate = Gate()
    served = ServedTools(ToolRegistry([gate.wait_here]), [], trace_dir=tmp_path, docs="docs")
    caller = threading.Thread(target=served.call, args=("wait_here", {}))
    caller.start()
    assert gate.entered.wait(BOUND_S)
    leave: tuple[str, StopReason] = ("the MCP client closed the session", "disconnected")
    stop: tuple[str, StopReason] = ("terminated (SIGTERM)", "cancelled")
    waits, at_once = (leave, stop) if first == "disconnected" else (stop, leave)
    waiting = threading.Thread(
        target=served.close, args=(waits[0],), kwargs={"stop_reason": waits[1]}
    )
    waiting.start()
    assert served.ending.asked.wait(BOUND_S)  # its ending is asked for; it waits for the call
    written = served.close(at_once[0], stop_reason=at_once[1], wait_s=0)
    gate.release.set()
    caller.join(BOUND_S)
    waiting.join(BOUND_S)
    assert written is not None and (written.error, written.stop_reason) == waits
    assert served.close("again") is None
    trace = read_trace(served.path)
    kinds = [e.kind for e in trace.events]
    assert kinds == ["run_started", "message", "tool_start", "run_finished"]  # no tool_end
    assert trace.events[-1] == written


def test_a_full_disk_at_the_run_s_last_line_still_ends_the_trace(
    tmp_path: Path, file_size_limit: Callable[[int], AbstractContextManager[None]]
) -> None:
    """The answer's message fits but the final line, which repeats it, does not: the trace
    ends with a short final saying why, the reader gets that one, then the error."""
    session = session_over(ScriptedModel([reply("word " * 4000)]), tmp_path)
    seen: list[Event] = []
    events = session.ask("q")
    assert session.last_trace is not None
    full = pytest.raises(ConfigError, match="^cannot write the trace .*: File too large$")
    with full, contextlib.ExitStack() as limits:
        for event in events:
            seen.append(event)
            if isinstance(event, MessageAppended) and event.message.role == "assistant":
                size = session.last_trace.stat().st_size
                limits.enter_context(file_size_limit(size + 2000))
    final = the_one_ending(session, seen)
    assert (final.stop_reason, final.answer) == ("error", None)
    assert final.error == f"cannot write the trace {session.last_trace}: File too large"
    assert session.history == []  # the answer did not join the conversation
