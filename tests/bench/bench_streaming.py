"""Streaming benchmark: an answer sent one character at a time, through `ask` and the live app.

Run it with `python tests/bench/bench_streaming.py` (a plain script; not part of `make test`).
The model yields every piece as it arrives, so the trace holds one `text_delta` per
character; the live screen reduces each one but draws streamed text at most every
`TEXT_REDRAW_S`. It prints the seconds for the session alone and for the app, and how
often the app drew: the app should take about as long as the session (it keeps up) and
draw a few dozen times, not once per piece. It exits 1 when the app takes more than
`--max-slowdown` times the session (default 2), draws more than once per `--per-draw`
pieces (default 20), or nothing was measured.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent.config import Config, build_agent  # noqa: E402
from agent.session import Session  # noqa: E402
from tests.chatserver import ChatServer, Reply  # noqa: E402
from tui.app import DocsAgentApp  # noqa: E402
from tui.screens.chat import ChatScreen  # noqa: E402

CHARS = 4000


class CountingChatScreen(ChatScreen):
    """The live screen, counting how often it draws."""

    CSS_PATH = str(ROOT / "tui" / "screens" / "chat.tcss")
    draws = 0

    def render_state(self) -> None:
        self.draws += 1
        super().render_state()


def config(server: ChatServer, folder: Path) -> Config:
    (folder / "docs").mkdir()
    (folder / "docs" / "a.md").write_text("# A\n")
    return Config(
        docs=folder / "docs",
        model="bench-model",
        base_url=server.base_url,
        api_key="sk-bench",
        trace_dir=folder / "traces",
    )


def answer(chars: int) -> str:
    return ("stream " * chars)[:chars]


def session_seconds(server: ChatServer, folder: Path, chars: int) -> tuple[float, int]:
    """Seconds for the session alone, and the text_delta lines in its trace."""
    cfg = config(server, folder)
    session = Session(build_agent(cfg), trace_dir=cfg.trace_dir)
    server.push(Reply(content=answer(chars), text_piece=1))
    began = time.perf_counter()
    for _ in session.ask("q"):
        pass
    took = time.perf_counter() - began
    assert session.last_trace is not None
    deltas = session.last_trace.read_text().count('"type": "text_delta"')
    return took, deltas


async def app_seconds(server: ChatServer, folder: Path, chars: int) -> tuple[float, int]:
    """Seconds from Enter to the answered screen, and how often the screen drew."""
    cfg = config(server, folder)
    session = Session(build_agent(cfg), trace_dir=cfg.trace_dir)
    server.push(Reply(content=answer(chars), text_piece=1))
    screen = CountingChatScreen(session, docs="docs", model=cfg.model, mode="")
    app = DocsAgentApp(lambda: screen)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen.draws = 0
        began = time.perf_counter()
        screen.ask("q")
        while not (screen.state.runs and not screen.state.busy):
            await pilot.pause()
        took = time.perf_counter() - began
        assert screen.state.answer == answer(chars)
        return took, screen.draws


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=CHARS, help=f"the answer's length [{CHARS}]")
    parser.add_argument("--max-slowdown", type=float, default=2.0, help="app / session [2]")
    parser.add_argument("--per-draw", type=float, default=20.0, help="pieces a draw [20]")
    options = parser.parse_args(argv)
    server = ChatServer().start()
    try:
        with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
            alone, deltas = session_seconds(server, Path(one), options.chars)
            shown, draws = asyncio.run(app_seconds(server, Path(two), options.chars))
    finally:
        server.stop()
    print(f"{options.chars:,} characters, one per chunk: {deltas:,} text_delta events in the trace")
    print(f"session alone: {alone:.2f} s")
    if deltas == 0 or alone <= 0 or shown <= 0:
        print("streaming: FAILED: nothing was measured")
        return 1
    print(f"live app:      {shown:.2f} s, {draws} draws ({shown / alone:.2f}x the session)")
    missed = []
    if shown / alone > options.max_slowdown:
        missed.append(f"the app took {shown / alone:.2f}x the session ({options.max_slowdown:g}x)")
    if draws > deltas / options.per_draw:
        missed.append(f"{draws} draws for {deltas} pieces (one per {options.per_draw:g} at most)")
    for target in missed:
        print(f"streaming: FAILED: {target}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
