"""RunEnding: the first ending asked for is the trace's one last line, whoever asks, whenever."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from agent.ending import RunEnding
from agent.events import Event, ModelRequested, RunFinished, RunStarted, Totals
from agent.trace import TraceWriter, read_trace


class HeldWriter(TraceWriter):
    """Holds a final event's line until `release` (a slow disk), saying when it holds one;
    `on_final` runs first, on the writing thread (a signal handler arriving mid-line)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, {"question": "q"})
        self.holding = threading.Event()
        self.release = threading.Event()
        self.release.set()
        self.on_final: Callable[[], object] = lambda: None

    def write(self, event: Event) -> bool:
        if isinstance(event, RunFinished):
            self.on_final()
            self.holding.set()
            assert self.release.wait(10)
        return super().write(event)


def started(path: Path) -> tuple[HeldWriter, RunEnding]:
    writer = HeldWriter(path)
    ending = RunEnding(writer)
    assert ending.record(RunStarted(question="q", model="m", max_steps=8))
    return writer, ending


def finals(path: Path) -> list[RunFinished]:
    return [e for e in read_trace(path).events if isinstance(e, RunFinished)]


def in_thread(target: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    """`target` started on a thread of its own; its result lands in the list."""
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(target()))
    thread.start()
    return thread, result


def test_an_ending_asked_for_while_another_is_being_written_gets_that_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.jsonl"
    writer, ending = started(path)
    writer.release.clear()
    cancel, cancelled = in_thread(lambda: ending.end("cancelled"))
    assert writer.holding.wait(10)  # the cancel's line is being written...
    error, errored = in_thread(lambda: ending.end("error", "boom"))  # ...a failure asks too
    late, recorded = in_thread(lambda: ending.record(ModelRequested(step=1, n_messages=2)))
    writer.release.set()
    for thread in (cancel, error, late):
        thread.join(10)
    assert cancelled[0] is errored[0] is ending.final
    assert (ending.final.stop_reason, ending.final.error) == ("cancelled", None)
    assert recorded == [False]  # the run's late event is dropped
    trace = read_trace(path)
    assert [e.kind for e in trace.events] == ["run_started", "run_finished"]
    assert finals(path) == [ending.final] and ending.ended.is_set()


def test_a_signal_that_asks_on_the_thread_writing_the_ending_gets_that_one(
    tmp_path: Path,
) -> None:
    """`docsagent mcp` ends its trace in the signal handler, which may interrupt the main
    thread while it writes the client's ending: the lock is re-entrant, the ending decided."""
    path = tmp_path / "run.jsonl"
    writer, ending = started(path)
    asked: list[RunFinished] = []
    writer.on_final = lambda: asked.append(ending.end("cancelled", "terminated (SIGTERM)"))
    final = ending.end("disconnected", "the MCP client closed the session")
    assert asked == [final] and final.stop_reason == "disconnected"
    assert finals(path) == [final]


def test_the_run_s_own_ending_wins_once_written_and_later_asks_get_it(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _, ending = started(path)
    own = Totals().finish("answered", elapsed_s=1.0, answer="done")
    assert ending.record(own)
    assert ending.end("cancelled", "interrupted") is own
    assert not ending.record(Totals().finish("cancelled", elapsed_s=2.0))
    assert finals(path) == [own]


def test_a_claimed_ending_wins_over_one_asked_for_later(tmp_path: Path) -> None:
    """The client left first (claimed while its calls finish); a signal then ends the trace
    at once: the client's ending is the one written."""
    path = tmp_path / "run.jsonl"
    _, ending = started(path)
    ending.claim("disconnected", "the MCP client closed the session")
    ending.claim("cancelled", "terminated (SIGTERM)")
    final = ending.end("cancelled", "terminated (SIGTERM)")
    assert (final.stop_reason, final.error) == ("disconnected", "the MCP client closed the session")
    assert finals(path) == [final]


def test_a_final_line_that_does_not_fit_is_followed_by_a_short_one(
    tmp_path: Path, file_size_limit: Callable[[int], AbstractContextManager[None]]
) -> None:
    """A full disk that takes the run's long answer still leaves a trace that ends."""
    path = tmp_path / "run.jsonl"
    _, ending = started(path)
    own = Totals().finish("answered", elapsed_s=1.0, answer="word " * 4000)
    with file_size_limit(path.stat().st_size + 2000):
        assert ending.record(own)
    final = ending.final
    assert final is not None and final.stats == own.stats
    assert (final.stop_reason, final.answer) == ("error", None)
    assert final.error == f"cannot write the trace {path}: File too large"
    trace = read_trace(path)
    assert trace.complete and not trace.damaged_tail and trace.events[-1] == final
