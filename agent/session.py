"""A conversation: runs questions through an agent, keeps the turns, saves every trace.

Every run's events, as handed out and as written to its trace, end with exactly one
`RunFinished` on every path: each path asks the run's `RunEnding` (`agent.ending`), and
the first ending asked for wins. The agent's own ending passes through; a cancel, a
failure, a reader that stops reading or `close` asks for one. The agent runs on a
background thread so that a cancel is answered at once even while the model blocks (a
request that is not streamed cannot be cut short): the run is ended `cancelled` at once,
and that thread is left to finish; whatever it sends later is dropped.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import cast

from agent.ending import RunEnding
from agent.errors import ConfigError
from agent.events import Event, MessageAppended, RunFinished, Totals
from agent.loop import Agent
from agent.messages import Message
from agent.trace import TraceWriter, trace_header
from agent.traces import trace_filename


class _Pump:
    """Runs a run's events on a daemon thread and hands them over until it ends or is stopped."""

    _DONE = object()
    _STOPPED = object()

    def __init__(self, cancel: threading.Event | None = None) -> None:
        self.cancel = cancel if cancel is not None else threading.Event()
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()

    def stop(self) -> None:
        """Ask the run to stop and stop handing its events over (from any thread)."""
        self.cancel.set()
        self._queue.put(self._STOPPED)

    def events(self, run: Iterator[Event]) -> Iterator[Event]:
        """Start `run` and yield its events; re-raises what it raised. Ends early on `stop`."""
        thread = threading.Thread(target=self._produce, args=(run,), daemon=True)
        thread.name = "docsagent-run"
        thread.start()
        while (item := self._queue.get()) is not self._DONE and item is not self._STOPPED:
            if isinstance(item, BaseException):
                raise item
            yield cast(Event, item)

    def _produce(self, run: Iterator[Event]) -> None:
        try:
            for event in run:
                self._queue.put(event)
        except BaseException as exc:  # handed to the reader, which raises it
            self._queue.put(exc)
        else:
            self._queue.put(self._DONE)


class Session:
    """Questions asked one after another; each sees the earlier turns (until `reset`)."""

    def __init__(
        self,
        agent: Agent,
        *,
        trace_dir: Path,
        trace_path: Path | str | None = None,
        replace_trace: bool = False,
    ) -> None:
        """`replace_trace`: remove a file at `trace_path` (--force); else a taken name gets
        the next free one (`run-2.jsonl`), and `last_trace` says which."""
        self.agent = agent
        self.trace_dir = Path(trace_dir)
        self.trace_path = Path(trace_path) if trace_path is not None else None
        self._replace_trace = replace_trace and trace_path is not None
        self.history: list[Message] = []
        self.last_trace: Path | None = None
        self._pump = _Pump()
        self._run: RunEnding | None = None  # the last question's ending, its trace's writer
        self._unwritten: RunFinished | None = None  # the last question, had its trace failed

    @property
    def last_finished(self) -> RunFinished | None:
        """How the last question ended; None while it runs (or before the first)."""
        return self._run.final if self._run is not None else self._unwritten

    def cancel(self) -> None:
        """Stop the running question, from any thread: its events end `cancelled` at once."""
        self._pump.stop()
        self.agent.model.cancel()

    def close(self, *, wait_s: float = 0.5) -> None:
        """Stop the running question for good (quitting), from any thread; its trace is closed.

        A cancelled run's events end at once, and their reader writes the trace's last
        line. A reader that is not reading (the app is going away) is given `wait_s`;
        then the run is ended here, as cancelled ("interrupted").
        """
        run = self._run
        self.cancel()
        if run is not None and not run.ended.wait(wait_s):
            run.end("cancelled", "interrupted")

    def ending(self) -> RunFinished:
        """How the last question ended, once its events are read or closed.

        The run's own `RunFinished` on every path, but one: events closed before the
        first was read never ran, so the question is ended here, cancelled, trace and all.
        """
        if self._run is not None:
            return self._run.end("cancelled", "interrupted")  # the run's, once it has ended
        if self._unwritten is None:
            raise RuntimeError("ending() before any question was asked")
        return self._unwritten

    def reset(self) -> None:
        """Start a fresh conversation."""
        self.history = []

    def ask(
        self, question: str, *, cancel: threading.Event | None = None
    ) -> Generator[Event, None, None]:
        """Run one question, writing its trace; the events end with one `RunFinished`.

        A `cancel` ends them at once with a `RunFinished` marked cancelled; so does a
        failure, marked error (and then re-raised). If the consumer stops early (Ctrl+C,
        closing the generator) the trace still ends with a cancelled `RunFinished`.
        Raises ConfigError at once when the trace cannot be written. Setting `cancel`
        (shared by several sessions, say) asks the run to stop; it then ends itself.
        """
        path = self.trace_path or self.trace_dir / trace_filename(question)
        self._run = self._unwritten = None
        try:
            writer = TraceWriter(
                path, trace_header(self.agent, question), replace=self._replace_trace
            )
        except OSError as exc:
            error = ConfigError(f"cannot write the trace {path}: {exc.strerror or exc}")
            self._unwritten = Totals().finish("error", elapsed_s=0.0, error=str(error))
            raise error from None
        self.trace_path = None  # an explicit path is for the first run only
        self._replace_trace = False
        self.last_trace = writer.path
        pump = self._pump = _Pump(cancel)
        self._run = RunEnding(writer)
        return self._events(question, pump, self._run)

    def _events(
        self, question: str, pump: _Pump, ending: RunEnding
    ) -> Generator[Event, None, None]:
        messages = list(self.history)
        run = self.agent.run(question, history=self.history, cancel=pump.cancel)
        handed = False  # whether the reader has had the run's final event
        try:
            for event in pump.events(run):
                if not ending.record(event):
                    break  # ended by `close`: what the run sends now is dropped
                if ending.error is not None:  # a full disk: the run ends, saying why
                    raise ConfigError(ending.error)
                if isinstance(event, MessageAppended):
                    messages.append(event.message)
                elif isinstance(event, RunFinished):
                    handed = True
                    if event.stop_reason in ("answered", "truncated"):
                        # Only a finished exchange joins the conversation: a dangling
                        # question or tool call would make the next request invalid.
                        self.history = messages
                yield event
            if not handed:  # stopped by `cancel` (or `close`) before the run ended itself
                handed = True
                yield ending.end("cancelled")
        except Exception as exc:  # a bug below us: the events still say how the run ended
            final = ending.end("error", f"{type(exc).__name__}: {exc}")
            if not handed:
                yield final
            raise
        finally:
            if ending.final is None:  # the reader stopped reading
                ending.end("cancelled", "interrupted")
                pump.stop()  # and the run stops in the background
                if self._pump is pump:  # (not a later run's model call)
                    self.agent.model.cancel()
            ending.close()
