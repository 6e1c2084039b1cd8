"""`ask`'s status line: while the model (or a tool) is working, one line on a terminal's
stderr says who is being waited for, the step, the time and the tokens so far.

The line is rewritten in place about every `every` seconds by a thread of its own, and
erased before anything else is written, so it never mixes with the progress lines, the
summary or the answer. When stderr is not a terminal, nothing is written at all.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from types import TracebackType

from agent import (
    Event,
    ModelReplied,
    ModelRequested,
    RunFinished,
    RunStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    Totals,
)
from tui.commands.printer import clip
from tui.terminal import Terminal, visible

EVERY = 0.2
"""Seconds between rewrites of the line."""


class WaitingLine:
    """The status line of one `ask` run; `observe` every event, write through `writing`."""

    def __init__(
        self,
        terminal: Terminal,
        *,
        every: float = EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.terminal = terminal
        self.live = terminal.err.isatty()
        self.every = every
        self.clock = clock
        self.shown = False
        """Whether the line is on the screen now."""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._began = clock()
        self._model = ""
        self._max_steps = 0
        self._step = 0
        self._doing: str | None = None  # what is being waited for, if anything
        self._totals = Totals()

    def observe(self, event: Event) -> None:
        """Follow the run: what is being waited for, the step and the tokens."""
        with self._lock:
            self._totals = self._totals.add(event)
            if isinstance(event, RunStarted):
                self._began, self._model, self._max_steps = (
                    self.clock(),
                    event.model,
                    event.max_steps,
                )
            elif isinstance(event, ModelRequested):
                self._step, self._doing = event.step, f"waiting for {self._model}"
            elif isinstance(event, TextDelta):
                self._doing = f"{self._model} is replying"
            elif isinstance(event, ToolCallStarted):
                self._doing = f"running {event.name}"
            elif isinstance(event, ModelReplied | ToolCallFinished | RunFinished):
                self._doing = None

    def text(self) -> str | None:
        """The status as it reads now, or None when nothing is being waited for."""
        with self._lock:
            return self._text()

    def _text(self) -> str | None:
        if self._doing is None:
            return None
        usage = self._totals.usage  # a streaming reply is counted in it, as an estimate
        tokens, mark = usage.total_tokens, "≈" if usage.estimated else ""
        elapsed = self.clock() - self._began
        return (
            f"{self._doing} · step {self._step} of {self._max_steps} · {elapsed:.1f} s · "
            f"{mark}{tokens:,} tokens so far"
        )

    def tick(self) -> None:
        """Rewrite the line (on a terminal, while something is being waited for)."""
        with self._lock:
            text = self._text() if self.live else None
            if text is None:
                return
            width = self.terminal.columns() or 80
            self.terminal.rewrite(clip(visible(text), width - 1))  # the last column may wrap
            self.shown = True

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Within the block the line is off the screen, so other output can be written."""
        with self._lock:
            self._erase()
            yield

    def _erase(self) -> None:
        if self.shown:
            self.terminal.erase()
            self.shown = False

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.tick()

    def __enter__(self) -> WaitingLine:
        if self.live:
            self._thread = threading.Thread(target=self._run, name="status", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._erase()
