"""Replay benchmark: time to reach the final screen of an `instant` replay, 200 vs 2,000 steps.

Run it with `python tests/bench/bench_replay.py` (a plain script; not part of `make test`).
It prints the seconds for each size and their ratio. The reducer sees every event
(linear), the list mounts only a bounded tail, so the ratio should stay well under 10
(about 1.2-1.5 here: app start-up and mounting the tail dominate).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.tui.conftest import big_trace  # noqa: E402
from tui.app import replay_app  # noqa: E402
from tui.screens.replay import ReplayScreen  # noqa: E402
from tui.widgets.transcript import Transcript  # noqa: E402


async def final_screen_seconds(steps: int) -> float:
    """Seconds from opening an instant replay of `steps` steps to its final screen."""
    trace = big_trace(steps)
    app = replay_app(trace, path=Path(f"bench-{steps}.jsonl"), instant=True)
    began = time.perf_counter()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert screen.replayer.position == len(trace.events)
        view = screen.query_one(Transcript)
        while not view.settled:
            await pilot.pause()
        return time.perf_counter() - began


def main() -> int:
    small = asyncio.run(final_screen_seconds(200))
    large = asyncio.run(final_screen_seconds(2000))
    print(f"instant replay, 200 steps:   {small:.3f} s")
    print(f"instant replay, 2,000 steps: {large:.3f} s")
    print(f"ratio 2,000 / 200: {large / small:.2f} (10 would be linear in the steps)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
