"""A conversation: runs questions through an agent, keeps the turns, saves every trace."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agent.errors import ConfigError
from agent.events import Event, MessageAppended, RunFinished, StopReason, Totals
from agent.loop import Agent
from agent.messages import Message
from agent.trace import TraceWriter, trace_filename, trace_header


class Session:
    """Questions asked one after another; each sees the earlier turns (until `reset`)."""

    def __init__(self, agent: Agent, *, trace_dir: Path, trace_path: Path | None = None) -> None:
        self.agent = agent
        self.trace_dir = Path(trace_dir)
        self.trace_path = trace_path
        self.history: list[Message] = []
        self.last_trace: Path | None = None
        self.last_finished: RunFinished | None = None
        self._cancel = threading.Event()
        self._live: _Live | None = None

    def cancel(self) -> None:
        """Stop the running question from any thread, cutting short a blocked model read."""
        self._cancel.set()
        close = getattr(self.agent.model, "close", None)
        if callable(close):
            close()

    def close(self, *, wait_s: float = 0.5) -> None:
        """Stop the running question for good (quitting), from any thread; its trace is closed.

        A cancelled run normally ends itself at once. One stuck in a long tool call is
        given `wait_s`; then its trace is ended here, as cancelled, and what the run
        does afterwards is not recorded (its thread is left to finish on its own).
        """
        self.cancel()
        live = self._live
        if live is None or live.ended.wait(wait_s):
            return
        elapsed = time.monotonic() - live.began
        finished = live.totals.finish("cancelled", elapsed_s=elapsed, error="interrupted")
        live.writer.write(finished)
        live.writer.close()
        self.last_finished = self.last_finished or finished

    def reset(self) -> None:
        """Start a fresh conversation."""
        self.history = []

    def ask(self, question: str, *, cancel: threading.Event | None = None) -> Iterator[Event]:
        """Run one question, writing its trace; the events end with one `RunFinished`.

        If the consumer stops early (Ctrl+C, an exception, closing the generator) the
        trace still ends with a `RunFinished` marked cancelled. Raises ConfigError at
        once when the trace cannot be written.
        """
        cancel = self._cancel = cancel or threading.Event()
        path = self.trace_path or self.trace_dir / trace_filename(question)
        try:
            writer = TraceWriter(path, trace_header(self.agent, question))
        except OSError as exc:
            raise ConfigError(f"cannot write the trace {path}: {exc.strerror or exc}") from None
        self.trace_path = None  # an explicit path is for the first run only
        self.last_trace = path
        return self._events(question, cancel, writer)

    def _events(
        self, question: str, cancel: threading.Event, writer: TraceWriter
    ) -> Iterator[Event]:
        live = self._live = _Live(writer, began=time.monotonic())
        messages = list(self.history)
        ending: tuple[StopReason, str] = ("cancelled", "interrupted")
        try:
            for event in self.agent.run(question, history=self.history, cancel=cancel):
                if writer.finished:
                    return  # given up on by `close`: nothing more is recorded or shown
                if isinstance(event, MessageAppended):
                    messages.append(event.message)
                elif isinstance(event, RunFinished):
                    self.last_finished = event
                    if event.stop_reason == "answered":
                        # Only a finished exchange joins the conversation: a dangling
                        # question or tool call would make the next request invalid.
                        self.history = messages
                writer.write(event)
                live.totals = live.totals.add(event)
                yield event
        except Exception as exc:  # a bug below us: the trace still says how the run ended
            ending = ("error", f"{type(exc).__name__}: {exc}")
            raise
        finally:
            if not writer.finished:  # the run did not get to end itself
                reason, error = ending
                elapsed = time.monotonic() - live.began
                self.last_finished = live.totals.finish(reason, elapsed_s=elapsed, error=error)
                writer.write(self.last_finished)
            writer.close()
            live.ended.set()


@dataclass
class _Live:
    """The run in flight, as `Session.close` needs it from another thread."""

    writer: TraceWriter
    began: float
    totals: Totals = field(default_factory=Totals)
    ended: threading.Event = field(default_factory=threading.Event)
