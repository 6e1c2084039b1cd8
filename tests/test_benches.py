"""The benches of `make bench` can fail: each, fed a target it must miss, exits non-zero."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent / "bench"


def bench(script: str, *args: str) -> tuple[int, list[str]]:
    """The script's exit code and the lines it printed."""
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args], capture_output=True, text=True, check=False
    )
    return done.returncode, (done.stdout + done.stderr).splitlines()


@pytest.mark.parametrize(
    ("script", "args", "failure"),
    [
        ("bench_replay.py", ["--steps", "2", "4", "--max-ratio", "0"], "replay: FAILED: the ratio"),
        (
            "bench_streaming.py",
            ["--chars", "40", "--max-slowdown", "0", "--per-draw", "1000"],
            "streaming: FAILED: the app took",
        ),
        (
            "bench_compaction_eval.py",
            ["--sets", "no-such-set"],
            "all: nothing measured, every set was skipped: FAILED",
        ),
    ],
)
def test_a_bench_that_misses_its_target_exits_non_zero(
    script: str, args: list[str], failure: str
) -> None:
    code, lines = bench(script, *args)
    assert code == 1, lines
    assert any(line.startswith(failure) for line in lines), lines


def test_a_compaction_bench_of_missing_sets_passes_only_when_allowed() -> None:
    code, lines = bench("bench_compaction_eval.py", "--sets", "no-such-set", "--allow-missing")
    assert code == 0, lines
    assert lines[-1] == "all: nothing measured, every set was skipped: passes (--allow-missing)"


def test_the_signal_bench_fails_when_docsagent_ends_later_than_its_target() -> None:
    """Its timings are asserts in pytest: a target no process can meet fails the bench."""
    case = BENCH / "test_bench_signals.py::test_ask_waiting_on_a_hung_endpoint"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(case),
            "-q",
            "-s",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=BENCH.parent.parent,
        env={**os.environ, "BENCH_SIGNAL_TARGET_S": "0"},
    )
    assert done.returncode == 1, done.stdout[-2000:]
    assert "SIGTERM while ask waits on a hung endpoint: exit 143 after" in done.stdout
    assert "(target < 0.0 s)" in done.stdout and "1 failed" in done.stdout
