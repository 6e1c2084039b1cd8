"""Replay benchmark: time to reach the final screen of an `instant` replay, 200 vs 2,000 steps.

Run it with `python tests/bench/bench_replay.py` (a plain script; not part of `make test`).
It prints the seconds for each size and their ratio. The reducer sees every event
(linear), the list mounts only a bounded tail, so the ratio should stay well under 10
(about 1.2-1.5 here: app start-up and mounting the tail dominate). It exits 1 when the
ratio misses `--max-ratio` (default 10) or nothing was measured.
"""

from __future__ import annotations

import argparse
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs=2, default=(200, 2000), metavar="N")
    parser.add_argument("--max-ratio", type=float, default=10.0, help="the target [10]")
    options = parser.parse_args(argv)
    few, many = options.steps
    small = asyncio.run(final_screen_seconds(few))
    large = asyncio.run(final_screen_seconds(many))
    print(f"instant replay, {few:,} steps: {small:.3f} s")
    print(f"instant replay, {many:,} steps: {large:.3f} s")
    if small <= 0 or large <= 0:
        print("replay: FAILED: nothing was measured")
        return 1
    ratio = large / small
    print(f"ratio {many:,} / {few:,}: {ratio:.2f} (target under {options.max_ratio:g})")
    if ratio >= options.max_ratio:
        print(f"replay: FAILED: the ratio {ratio:.2f} misses its target {options.max_ratio:g}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
