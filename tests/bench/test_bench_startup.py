"""Start-up benchmarks: `make bench`. Each a ratio or a difference measured in one run.

- `docsagent --help` and `docsagent ask --help` at most 1.5x `python -c "import typer"`:
  help loads none of the core;
- an endpoint `ask` sends its first request at most 0.5 s after the time a bare
  `python -c "import openai"` takes (the floor: the SDK must be imported to send it).

Each side is run a few times, taking turns, and keeps its best, so that a busy machine
slows both alike.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.chatserver import MODEL, ChatServer, Reply

BIN = Path(sys.executable).parent
HELP_TARGET = 1.5
FIRST_REQUEST_TARGET = 0.5


def best_of(runs: int, *sides: Callable[[], float]) -> list[float]:
    """The best time each side reports over `runs` rounds, the sides taking turns."""
    best = [float("inf")] * len(sides)
    for _ in range(runs):
        for i, side in enumerate(sides):
            best[i] = min(best[i], side())
    return best


def wall(command: list[str], env: dict[str, str] | None = None) -> Callable[[], float]:
    def run() -> float:
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, env=env, check=True)
        return time.perf_counter() - started

    return run


@pytest.mark.parametrize("args", [["--help"], ["ask", "--help"]], ids=["help", "ask-help"])
def test_help_is_within_one_and_a_half_typers_import(args: list[str]) -> None:
    docsagent = BIN / "docsagent"
    if not docsagent.exists():
        pytest.skip("the docsagent script is not installed in this environment")
    ours, floor = best_of(
        7, wall([str(docsagent), *args]), wall([sys.executable, "-c", "import typer"])
    )
    ratio = ours / floor
    print(
        f"\ndocsagent {' '.join(args)} {ours * 1000:.0f} ms vs python -c 'import typer' "
        f"{floor * 1000:.0f} ms: {ratio:.2f}x (target {HELP_TARGET}x)"
    )
    assert ratio <= HELP_TARGET


def test_an_endpoint_ask_sends_its_first_request_soon_after_importing_openai(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "replay.md").write_text("# Replay\n\nRun `docsagent replay FILE` to watch it again.\n")
    server = ChatServer().start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCSAGENT_", "OPENAI_"))}
    env |= {
        "LLM_API_KEY": "sk-bench",
        "DOCSAGENT_TRACE_DIR": str(tmp_path / "traces"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    docsagent = BIN / "docsagent"
    if not docsagent.exists():
        pytest.skip("the docsagent script is not installed in this environment")
    command = [str(docsagent), "ask", "How do I replay a run?", "--docs", str(docs)]
    command += ["--model", MODEL, "--base-url", server.base_url]

    def first_request() -> float:
        server.push(Reply(content="Run `docsagent replay FILE` (replay.md:3)."))
        seen = len(server.requests)
        started = time.perf_counter()
        with subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        ) as proc:
            assert server.wait_for_requests(seen + 1, timeout=60)
            arrived = time.perf_counter() - started
            assert proc.wait(timeout=60) == 0
        return arrived

    try:
        ours, floor = best_of(3, first_request, wall([sys.executable, "-c", "import openai"]))
    finally:
        server.stop()
    print(
        f"\nendpoint ask: first request after {ours * 1000:.0f} ms; python -c 'import openai' "
        f"{floor * 1000:.0f} ms: {(ours - floor) * 1000:.0f} ms after the floor "
        f"(target {FIRST_REQUEST_TARGET * 1000:.0f} ms)"
    )
    assert ours - floor <= FIRST_REQUEST_TARGET
