"""The one writer of a run's ending: the first ending asked for wins, whoever asks.

A run can be ended from several places, on several threads, at nearly the same time: its
own last event, the reader of its events (a cancel, a failure, a reader that stops
reading), `Session.close` (quitting, or a stop signal's closer on another thread), and a
served session's client leaving or a signal (`ServedTools.close`). Each asks the run's
`RunEnding`, which writes the first ending asked for as the trace's last line and hands
that same `RunFinished` to every later asker. Events recorded after it are dropped, so a
trace holds exactly one `RunFinished`, last, on every path.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable

from agent.events import Event, RunFinished, StopReason, Totals
from agent.trace import TraceWriter


class RunEnding:
    """A run's trace from its first event to its one `RunFinished`; safe to share between threads.

    The lock is re-entrant: a signal handler that asks for an ending on the thread that is
    writing one (`docsagent mcp` closes its trace in the handler) gets that one back.
    `each_call_a_step`: a served session, where no model is asked and each call is a step.
    """

    def __init__(
        self,
        writer: TraceWriter,
        *,
        clock: Callable[[], float] = time.monotonic,
        each_call_a_step: bool = False,
    ) -> None:
        self._writer = writer
        self._clock = clock
        self._began = clock()
        self._each_call_a_step = each_call_a_step
        self._lock = threading.RLock()
        self._claim: tuple[StopReason, str | None] | None = None
        self.totals = Totals()  # the run's events recorded so far, counted
        self.final: RunFinished | None = None  # the ending, once decided
        self.asked = threading.Event()  # set once an ending is asked for (claimed or written)
        self.ended = threading.Event()  # set once the ending is written and the trace closed

    @property
    def error(self) -> str | None:
        """Why the trace could not be written (a full disk), once it could not."""
        return self._writer.error

    def record(self, event: Event) -> bool:
        """Write one of the run's events; its own `RunFinished` ends it (unless one was
        claimed). False once the run has ended: the event is dropped."""
        with self._lock:
            if self.final is not None:
                return False
            if isinstance(event, RunFinished):
                self._finish(event if self._claim is None else self._built(*self._claim))
                return True
            self._writer.write(event)
            self.totals = self.totals.add(event)
            return True

    def claim(self, reason: StopReason, error: str | None = None) -> None:
        """Ask for an ending that is written later (`end`), once calls still running have
        finished; the first ending asked for wins, here as in `end`."""
        with self._lock:
            if self._claim is None and self.final is None:
                self._claim = (reason, error)
            self.asked.set()

    def end(self, reason: StopReason, error: str | None = None) -> RunFinished:
        """End the run now, with the first ending asked for (this one unless the run ended
        or one was claimed before); the run's final event, the same for every caller."""
        with self._lock:
            if self.final is None:
                self._finish(self._built(*(self._claim or (reason, error))))
            assert self.final is not None
            return self.final

    def close(self) -> None:
        """Close the trace (idempotent), after the rest of a line a signal interrupted."""
        self._writer.close()
        if self.final is not None:
            self.ended.set()

    def _built(self, reason: StopReason, error: str | None) -> RunFinished:
        totals = self.totals
        if self._each_call_a_step:
            totals = dataclasses.replace(totals, steps=totals.tool_calls)
        return totals.finish(reason, elapsed_s=self._clock() - self._began, error=error)

    def _finish(self, final: RunFinished) -> None:
        self.final = final  # decided before a byte is written: an asker mid-line gets it
        self.asked.set()
        if not self._writer.write(final) and self._writer.error is not None:
            # The line did not fit (a full disk; it was cut off): a short one may, and the
            # trace then still ends, saying why it lost the rest.
            self.final = dataclasses.replace(
                final, stop_reason="error", answer=None, output=None, error=self._writer.error
            )
            self._writer.write(self.final)
        self.close()
