"""A long TUI session stays flat (`make bench`; a plain script).

The real app runs in-process (Textual's `run_test`) over the bundled manual with a
scripted model: 30 questions, each making 10 tool calls (`search_docs` and `read_doc`,
two per step) and ending on a streamed ~6 KB Markdown answer. After each question the
process CPU time it took and the resident memory are recorded. Targets, in one run:
CPU per question at the end (median of q26-q30) ≤ 1.2× at the start (median of q2-q6),
each question's CPU the fastest of five sessions run one after the other (one question's
CPU swings 1.5-2x with the machine's load, as more frames are drawn while it waits),
and RSS growth ≤ 0.5 MB per question from q5 to q30 (least-squares slope). Prints each
figure with its target and fails when one is missed.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from textual.pilot import Pilot  # noqa: E402
from textual.widgets import Input  # noqa: E402

from agent import Config, build_agent  # noqa: E402
from agent.config import default_docs  # noqa: E402
from agent.messages import Message  # noqa: E402
from agent.session import Session  # noqa: E402
from agent.testing import ScriptedModel, call, reply  # noqa: E402
from tui.app import chat_app  # noqa: E402
from tui.screens.chat import ChatScreen  # noqa: E402

QUESTIONS = 30
CALLS_PER_QUESTION = 10
CALLS_PER_STEP = 2
CPU_RATIO_TARGET = 1.2
RSS_SLOPE_TARGET_MB = 0.5
LIMIT_S = 600.0  # only guards a hang
SESSIONS = 5  # each question's CPU is its fastest of these
QUERIES = ["timeout", "trace", "replay", "offline model", "keys", "endpoint", "eval", "index"]


def pages() -> list[str]:
    return sorted(p.name for p in default_docs().glob("*.md"))


def answer(number: int) -> str:
    """A Markdown answer of about 6 KB: headings, lists, code and citations."""
    parts = [f"# Answer {number}\n\n"]
    section = 0
    while sum(map(len, parts)) < 6_000:
        section += 1
        parts.append(
            f"## Part {section}\n\n"
            f"Some **bold** and `code` words about part {section} of question {number}, "
            f"with a citation (tui.md:{section}-{section + 3}).\n\n"
            f"- first point of part {section}\n- second point, *emphasised*\n\n"
            f"```python\nclient = httpx.Client(timeout={section})\n```\n\n"
        )
    return "".join(parts)


def script() -> list[Message]:
    """Per question: five steps of two tool calls each, then the answer."""
    names = pages()
    turns: list[Message] = []
    for number in range(QUESTIONS):
        for step in range(CALLS_PER_QUESTION // CALLS_PER_STEP):
            seed = number * 7 + step
            turns.append(
                reply(
                    "Looking." if step == 0 else None,
                    call("search_docs", {"query": QUERIES[seed % len(QUERIES)]}),
                    call("read_doc", {"path": names[seed % len(names)], "start": 1, "end": 80}),
                )
            )
        turns.append(reply(answer(number + 1)))
    return turns


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


async def until(pilot: Pilot[Any], check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + LIMIT_S
    while not check():
        assert time.monotonic() < deadline, "the app never reached the expected state"
        await pilot.pause()


def slope(xs: list[int], ys: list[float]) -> float:
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread


def ended(screen: ChatScreen, runs: int) -> Callable[[], bool]:
    return lambda: screen.state.runs >= runs and not screen.state.busy


async def session_run(folder: Path) -> tuple[list[float], list[float]]:
    config = Config(docs=default_docs(), model="script:bench", trace_dir=folder / "traces")
    model = ScriptedModel(script(), stream=True)
    session = Session(build_agent(config, model=model), trace_dir=config.trace_dir)
    app = chat_app(session, config)
    cpu: list[float] = []
    rss: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        box = screen.query_one("#question", Input)
        for number in range(1, QUESTIONS + 1):
            began = time.process_time()
            box.value = f"question {number}: how do I use part {number}?"
            await pilot.press("enter")
            await until(pilot, ended(screen, number))
            await pilot.pause()
            cpu.append(time.process_time() - began)
            rss.append(rss_mb())
            assert screen.state.run == "answered", f"question {number} ended {screen.state.run}"
    return cpu, rss


def main() -> int:
    sessions = []
    for _ in range(SESSIONS):
        with tempfile.TemporaryDirectory(prefix="docsagent-bench-session-") as tmp:
            sessions.append(asyncio.run(session_run(Path(tmp))))
    # RSS is the first session's, in a process that has run nothing before.
    cpu = [min(times) for times in zip(*(times for times, _ in sessions), strict=True)]
    rss = sessions[0][1]
    for number, (seconds, mb) in enumerate(zip(cpu, rss, strict=True), start=1):
        print(f"  q{number:<2} cpu {seconds * 1000:7.0f} ms  rss {mb:6.1f} MB")
    start, end = statistics.median(cpu[1:6]), statistics.median(cpu[-5:])
    ratio = end / start
    growth = slope(list(range(5, QUESTIONS + 1)), rss[4:])
    failures = []
    print(
        f"session CPU per question q26-30 / q2-6: {end * 1000:.0f} / {start * 1000:.0f} ms"
        f" = {ratio:.2f}x (target <= {CPU_RATIO_TARGET}x)"
    )
    if ratio > CPU_RATIO_TARGET:
        failures.append("CPU per question grows")
    print(
        f"session RSS growth q5-q30: {growth:.2f} MB per question"
        f" (target <= {RSS_SLOPE_TARGET_MB} MB; {rss[4]:.0f} -> {rss[-1]:.0f} MB)"
    )
    if growth > RSS_SLOPE_TARGET_MB:
        failures.append("RSS grows")
    for failure in failures:
        print(f"session: FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
