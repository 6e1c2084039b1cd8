"""Long answers in the live view and in replay (`make bench`; a plain script, not `make test`).

Drives the real app (Textual `run_test`) on a model that streams its answer in small
pieces at a steady rate, the way an endpoint does, and measures from the model's side:

- a 10 KB answer: its end on screen at most 0.3 s after the last piece;
- a 200 KB answer in 40,000 pieces: a key typed every 0.15 s while it streams and after
  it ends reaches the question box within 100 ms (the slowest one counts); the whole
  answer on screen at most 3 s after the last piece;
- `replay --instant` of that run's trace: its final screen at most 2x `replay --print`;
- a trace of 1,000,000 text deltas: `replay --instant` at most 2x `replay --print`.

Each line prints the measure and its target; the script fails when one is missed.
"""

from __future__ import annotations

import asyncio
import io
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from textual import events  # noqa: E402
from textual.widgets import Input  # noqa: E402

from agent import (  # noqa: E402
    Config,
    Delta,
    Message,
    ModelRequested,
    Reply,
    RunFinished,
    RunStarted,
    RunStats,
    Session,
    TextDelta,
    Trace,
    Usage,
    build_agent,
    read_trace,
)
from agent.messages import assistant  # noqa: E402
from tui.app import DocsAgentApp, chat_app, replay_app  # noqa: E402
from tui.commands.asking import print_trace  # noqa: E402
from tui.screens.base import TraceScreen  # noqa: E402
from tui.screens.chat import ChatScreen  # noqa: E402
from tui.terminal import Terminal  # noqa: E402
from tui.transcript.entries import TurnEntry  # noqa: E402
from tui.widgets.transcript import Transcript  # noqa: E402

KEY_EVERY_S = 0.15
failures: list[str] = []


def check(label: str, value: float, target: float, unit: str = "s") -> None:
    ok = value <= target
    print(f"{label}: {value:.3f} {unit} (target <= {target:g} {unit}) {'ok' if ok else 'MISSED'}")
    if not ok:
        failures.append(label)


def answer_text(size: int) -> str:
    """Markdown like a long answer: headings, prose with code and citations, lists, code."""
    unit = (
        "## Timeouts\n\nhttpx times out after **5 seconds** by default; pass `timeout=` to a "
        "`Client` to change it (advanced/timeouts.md:3-3).\n\n- connect\n- read\n- write\n\n"
        "```python\nclient = httpx.Client(timeout=10.0)\n```\n\n"
    )
    return (unit * (size // len(unit) + 1))[: size - 4] + "END."


class PacedModel:
    """Streams one answer in `pieces` pieces at `rate` pieces a second (an endpoint's pace)."""

    name = "paced"

    def __init__(self, answer: str, *, pieces: int, rate: float) -> None:
        self.answer, self.pieces, self.rate = answer, pieces, rate
        self.last_piece_at = 0.0
        self._stop = threading.Event()

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, object]],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Delta | Reply]:
        size = -(-len(self.answer) // self.pieces)
        began = time.perf_counter()
        for n, start in enumerate(range(0, len(self.answer), size)):
            if self._stop.is_set() or (cancel is not None and cancel.is_set()):
                return
            late = began + n / self.rate - time.perf_counter()
            if late > 0:
                time.sleep(late)
            yield Delta(self.answer[start : start + size])
        self.last_piece_at = time.perf_counter()
        yield Reply(assistant(self.answer), Usage(10, len(self.answer) // 4, True), "stop")

    def cancel(self) -> None:
        self._stop.set()


def answer_shown(app: DocsAgentApp, answer: str) -> bool:
    screen = app.screen
    if not isinstance(screen, TraceScreen) or screen.state.busy or not screen.state.runs:
        return False
    view = screen.query_one(Transcript)
    entries = view.entries
    last = entries[-1] if entries else None
    return (
        entries is screen.state.entries
        and isinstance(last, TurnEntry)
        and last.answer
        and last.text == answer
        and view.settled
    )


async def live(folder: Path, size: int, pieces: int, rate: float) -> tuple[float, float, Path]:
    """Seconds from the last piece to the whole answer on screen, the slowest key, the trace."""
    docs = folder / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "a.md").write_text("# A\n")
    config = Config(docs=docs, model="paced", trace_dir=folder / "traces")
    answer = answer_text(size)
    model = PacedModel(answer, pieces=pieces, rate=rate)
    session = Session(build_agent(config, model=model), trace_dir=config.trace_dir)
    app = chat_app(session, config)
    slowest = 0.0
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        box = screen.query_one("#question", Input)
        screen.ask("a long answer, please")
        await pilot.pause()
        typed = ""

        async def watch() -> float:
            """When the whole answer is on screen, looked at every few milliseconds (the
            keys' pace would add up to their interval to the measure)."""
            while not answer_shown(app, answer):
                await asyncio.sleep(0.002)
            return time.perf_counter()

        watcher = asyncio.ensure_future(watch())
        while not watcher.done():
            typed += "x"
            began = time.perf_counter()
            app.post_message(events.Key("x", "x"))
            while box.value != typed:
                await asyncio.sleep(0.001)
            slowest = max(slowest, time.perf_counter() - began)
            await asyncio.wait({watcher}, timeout=KEY_EVERY_S)
        shown_at = watcher.result()
        await pilot.pause()
        for _ in range(5):  # and after it ended
            typed += "x"
            began = time.perf_counter()
            app.post_message(events.Key("x", "x"))
            while box.value != typed:
                await asyncio.sleep(0.001)
            slowest = max(slowest, time.perf_counter() - began)
        assert screen.trace is not None
        trace = screen.trace
    return max(shown_at - model.last_piece_at, 0.0), slowest, trace


async def instant_seconds(trace: Trace, path: Path) -> float:
    """Seconds from opening an instant replay to its answer on screen."""
    answer = trace.events[-1].answer  # type: ignore[attr-defined]
    began = time.perf_counter()
    app = replay_app(trace, path=path, instant=True)
    async with app.run_test(size=(120, 40)) as pilot:
        while not answer_shown(app, answer):
            await pilot.pause()
        await pilot.pause()
        return time.perf_counter() - began


def print_seconds(trace: Trace) -> float:
    began = time.perf_counter()
    print_trace(trace, Terminal(io.StringIO(), io.StringIO()))
    return time.perf_counter() - began


def million_deltas() -> Trace:
    count = 1_000_000
    answer = "".join(f"w{n % 1000} " for n in range(count))
    evts = [
        RunStarted(question="q", model="m", max_steps=1, docs="docs"),
        ModelRequested(step=1, n_messages=2),
        *(TextDelta(step=1, text=f"w{n % 1000} ") for n in range(count)),
        RunFinished(stop_reason="answered", answer=answer, stats=RunStats(steps=1)),
    ]
    return Trace({"model": "m", "docs": "docs"}, evts, [0.0] * len(evts))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        end, key, _ = asyncio.run(live(folder / "small", 10_000, 2_000, 2_000.0))
        check("10 KB answer, 2,000 pieces at 2,000/s: its end on screen after the last", end, 0.3)
        check("10 KB answer: slowest key echo while it streams", key * 1000, 100, "ms")
        end, key, path = asyncio.run(live(folder / "big", 200_000, 40_000, 10_000.0))
        check("200 KB answer, 40,000 pieces at 10,000/s: whole on screen after the last", end, 3)
        check("200 KB answer: slowest key echo while it streams and after", key * 1000, 100, "ms")
        began = time.perf_counter()
        trace = read_trace(path)
        read = time.perf_counter() - began
        printed = read + print_seconds(trace)
        instant = read + asyncio.run(instant_seconds(trace, path))
        print(f"replay --print of it: {printed:.3f} s; replay --instant: {instant:.3f} s")
        check("replay --instant / replay --print, 200 KB answer", instant / printed, 2, "x")
    trace = million_deltas()
    printed = print_seconds(trace)
    instant = asyncio.run(instant_seconds(trace, Path("million.jsonl")))
    print(f"1,000,000 deltas in memory: print {printed:.3f} s; instant replay {instant:.3f} s")
    check("replay --instant / replay --print, 1,000,000 deltas", instant / printed, 2, "x")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
