"""Replay position over a trace's events: forward, back and jumps, through the one reducer."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Literal

from agent import Event, ModelRequested, ToolCallFinished
from tui.state import ViewState, cut_short, reduce, reduce_all

Unit = Literal["step", "tool", "answer"]
"""What a replay can step by besides single events: a whole model step (up to the next
request to the model), a tool call with its result, or the answer (the end)."""

CHECKPOINT_EVERY = 256
MAX_GAP_S = 1.0  # long pauses in the recording are clamped to this (before speed)


class Replayer:
    """The view state after the first `position` events; keeps checkpoints for going back."""

    def __init__(
        self,
        events: Sequence[Event],
        times: Sequence[float],
        *,
        speed: float = 1.0,
        complete: bool = True,
    ):
        self.events = events
        self.complete = complete
        self.times = times
        self.speed = speed
        self.position = 0
        self.state = ViewState()
        self._checkpoints: dict[int, ViewState] = {0: self.state}
        self._stops: dict[Unit, list[int]] = {}

    @property
    def total(self) -> int:
        return len(self.events)

    def extend(self, events: Sequence[Event], times: Sequence[float]) -> None:
        """More events of a trace still being written (following it)."""
        self.events = [*self.events, *events]
        self.times = [*self.times, *times]
        self._stops.clear()

    def forward(self) -> ViewState:
        """Apply the next event (if any) and return the state."""
        if self.position < self.total:
            self.state = reduce(self.state, self.events[self.position])
            self.position += 1
            if self.position % CHECKPOINT_EVERY == 0:
                self._checkpoints[self.position] = self.state
        return self.shown

    @property
    def shown(self) -> ViewState:
        """The state to show: at the end of an interrupted trace, marked as cut short."""
        at_end = self.position == self.total and self.total > 0
        return cut_short(self.state) if at_end and not self.complete else self.state

    def seek(self, position: int) -> ViewState:
        """The state after the first `position` events (clamped to the trace)."""
        position = min(max(position, 0), self.total)
        if position < self.position:
            base = max(k for k in self._checkpoints if k <= position)
            self.position, self.state = base, self._checkpoints[base]
        while self.position < position:
            start = self.position
            stop = min(position, (start // CHECKPOINT_EVERY + 1) * CHECKPOINT_EVERY)
            self.state = reduce_all(self.events[start:stop], self.state)
            self.position = stop
            if stop % CHECKPOINT_EVERY == 0:
                self._checkpoints[stop] = self.state
        return self.shown

    def stops(self, unit: Unit) -> list[int]:
        """The positions a step by `unit` lands on, in order; the end is always one."""
        if unit not in self._stops:
            events = self.events
            if unit == "step":  # just before each later request: the step before it is whole
                requests = [i for i, e in enumerate(events) if isinstance(e, ModelRequested)]
                found = requests[1:]
            elif unit == "tool":  # just after each call's result
                found = [i + 1 for i, e in enumerate(events) if isinstance(e, ToolCallFinished)]
            else:
                found = []
            self._stops[unit] = sorted({*found, self.total})
        return self._stops[unit]

    def next_stop(self, unit: Unit) -> int:
        """The first position after the current one that `unit` stops at (the end at most)."""
        stops = self.stops(unit)
        return stops[min(bisect.bisect_right(stops, self.position), len(stops) - 1)]

    def previous_stop(self, unit: Unit) -> int:
        """The last position before the current one that `unit` stops at (the start at least)."""
        stops = self.stops(unit)
        index = bisect.bisect_left(stops, self.position)
        return stops[index - 1] if index > 0 else 0

    def next_delay(self) -> float:
        """Seconds to wait before the next event at the current speed."""
        if self.position >= self.total:
            return 0.0
        before = self.times[self.position - 1] if self.position > 0 else 0.0
        gap = min(max(self.times[self.position] - before, 0.0), MAX_GAP_S)
        return gap / self.speed

    def time(self) -> float | None:
        """The recorded time of the last applied event."""
        return self.times[self.position - 1] if self.position > 0 else None
