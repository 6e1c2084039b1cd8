"""The replay position: checkpoints give the states the reducer gives; delays follow the trace."""

from __future__ import annotations

import pytest

from tests.tui.conftest import big_trace
from tui.replayer import Replayer
from tui.state import reduce_all


def test_replayer_checkpoints_give_the_same_states() -> None:
    trace = big_trace(100)
    replayer = Replayer(trace.events, trace.times)
    end = replayer.seek(len(trace.events))
    assert end == reduce_all(trace.events)
    assert replayer.seek(300) == reduce_all(trace.events[:300])
    assert replayer.seek(-5) == reduce_all([])
    replayer.seek(10)
    assert replayer.next_delay() == pytest.approx(0.001)
    replayer.speed = 0.5
    assert replayer.next_delay() == pytest.approx(0.002)
