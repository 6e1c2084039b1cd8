"""Reducer benchmarks (`make bench`): replaying a trace costs O(1) per event.

- reducing 20,000 steps should cost about 10x reducing 2,000 (linear; goal: ratio <= 12);
- a replay of many small text deltas (with the replayer's checkpoints) should hold
  memory proportional to the text, not a copy of the text per checkpoint.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable

from agent.events import Event, ModelRequested, RunStarted, TextDelta
from tests.tui.conftest import big_trace
from tui.replayer import Replayer
from tui.state import ViewState, reduce_all
from tui.transcript.entries import TurnEntry


def best_of(runs: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def test_reducing_is_linear_in_the_steps() -> None:
    small, large = big_trace(2_000).events, big_trace(20_000).events
    t_small = best_of(3, lambda: reduce_all(small))
    t_large = best_of(3, lambda: reduce_all(large))
    ratio = t_large / t_small
    print(
        f"\nreduce: 2,000 steps {t_small:.3f} s, 20,000 steps {t_large:.3f} s "
        f"({t_large / len(large) * 1e6:.1f} µs an event), ratio {ratio:.1f} (10 is linear)"
    )
    assert ratio <= 15


def text_events(count: int) -> list[Event]:
    events: list[Event] = [
        RunStarted(question="q", model="m", max_steps=1),
        ModelRequested(step=1, n_messages=1),
    ]
    return events + [TextDelta(step=1, text=f"w{n % 1000} ") for n in range(count)]


def replay_to_end(events: list[Event]) -> ViewState:
    return Replayer(events, [0.0] * len(events)).seek(len(events))


def test_streamed_text_replays_in_memory_proportional_to_the_text() -> None:
    small, large = text_events(20_000), text_events(200_000)
    t_small = best_of(3, lambda: replay_to_end(small))
    t_large = best_of(3, lambda: replay_to_end(large))
    tracemalloc.start()
    end = replay_to_end(large)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    turn = end.entries[-1]
    assert isinstance(turn, TurnEntry)
    size = len(turn.text)
    print(
        f"\nreplay of text deltas: 20,000 {t_small:.3f} s, 200,000 {t_large:.3f} s, "
        f"ratio {t_large / t_small:.1f} (10 is linear); peak memory {peak / 1e6:.1f} MB, "
        f"{peak / size:.1f}x the text ({size / 1e6:.1f} MB), {peak / len(large):.0f} bytes a delta"
    )
    assert t_large / t_small <= 15
    assert peak / size < 30  # a copy of the text per checkpoint would be ~400x
