"""Following a trace as it is written: `docsagent follow` on a `docsagent mcp` session."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from agent import (
    SERVED_MODEL,
    RunStarted,
    ServedTools,
    ToolCallFinished,
    ToolCallStarted,
    Trace,
    TraceError,
    TraceTail,
    docs_registry,
    event_to_dict,
    newest_served,
    open_docs,
)
from agent.config import Config
from agent.served import SERVED_QUESTION
from agent.trace import TraceWriter
from tests.tui.conftest import until
from tui.app import replay_app
from tui.commands.following import waiting
from tui.screens.replay import ReplayScreen
from tui.state import ViewState
from tui.transcript.entries import TurnEntry
from tui.widgets.header_bar import HeaderBar
from tui.widgets.status_bar import StatusBar

ROOT = Path(__file__).resolve().parent.parent.parent
MANUAL = ROOT / "data" / "manual"


def cards(state: ViewState) -> list[str]:
    return [c.name for e in state.entries if isinstance(e, TurnEntry) for c in e.cards]


def served(traces: Path) -> ServedTools:
    folder = open_docs(Config(docs=MANUAL, cache_dir=None))
    return ServedTools(docs_registry(), [folder], trace_dir=traces, docs=str(MANUAL))


def following(path: Path) -> tuple[Trace, TraceTail]:
    tail = TraceTail(path)
    events, times = tail.read()
    assert tail.header is not None
    return Trace(tail.header, events, times), tail


@pytest.mark.asyncio
async def test_new_calls_appear_as_the_client_makes_them_and_it_ends_with_the_session(
    tmp_path: Path,
) -> None:
    server = served(tmp_path / "traces")
    trace, tail = following(server.path)
    app = replay_app(trace, path=server.path, follow=tail)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert cards(screen.state) == []
        server.call("search_docs", {"query": "replay a trace"})
        await until(pilot, lambda: cards(screen.state) == ["search_docs"])
        server.call("read_doc", {"path": "index.md"})
        await until(pilot, lambda: screen.state.tool_calls == 2)
        assert cards(screen.state) == ["search_docs", "read_doc"]
        assert "following" in screen.header_extra()
        server.close("the MCP client closed the session", stop_reason="disconnected")
        await until(pilot, lambda: tail.finished and screen.state.run == "disconnected")
        assert screen.header_extra().startswith("ended")

        def header() -> str:
            return str(app.screen.query_one(HeaderBar).render())

        await until(pilot, lambda: header().endswith("● disconnected"))  # once it redraws
        assert "cancelled" not in header()


@pytest.mark.asyncio
async def test_a_half_written_line_is_waited_for_not_reported(tmp_path: Path) -> None:
    path = tmp_path / "growing.jsonl"
    header = {"type": "header", "format": "docsagent-trace", "version": 1, "question": "q"}
    started = RunStarted(question="q", model=SERVED_MODEL, max_steps=0)
    path.write_text(f"{json.dumps(header)}\n{json.dumps(event_to_dict(started))}\n")
    call = {"seq": 2, "t": 0.1, "type": "tool_start", "step": 1, "tool_call_id": "c1"}
    line = json.dumps({**call, "name": "list_docs", "arguments": "{}"}) + "\n"
    trace, tail = following(path)
    app = replay_app(trace, path=path, follow=tail)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        with path.open("a") as file:
            file.write(line[:30])
        screen._read_on()  # what the timer does: the half line is kept for later
        assert screen.replayer.total == 1 and screen.notices == []
        with path.open("a") as file:
            file.write(line[30:])
        await until(pilot, lambda: cards(screen.state) == ["list_docs"])
        assert screen.notices == [] and not tail.finished


def test_the_tail_reads_only_whole_new_lines_and_refuses_damage(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    header = {"type": "header", "format": "docsagent-trace", "version": 1, "question": "q"}
    path.write_text(json.dumps(header) + "\n")
    tail = TraceTail(path)
    assert tail.read() == ([], []) and tail.header is not None
    with path.open("a") as file:
        file.write('{"seq": 1, "t": 0.5, "type": "run_started", "question": "q", "mo')
    assert tail.read() == ([], [])
    with path.open("a") as file:
        file.write('del": "m", "max_steps": 1}\nnot json\n')
    with pytest.raises(TraceError, match="line 3 is damaged"):
        tail.read()


def test_follow_picks_the_newest_served_session(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    first = served(traces)
    first.close("done")
    second = served(traces)
    os.utime(first.path, (1, 1))  # the older one
    assert newest_served(traces) == second.path
    second.close("done")


def test_follow_outside_a_terminal_says_so_even_before_a_session(
    tmp_path: Path, cli_env: Path
) -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", "import tui.cli; tui.cli.main()", "follow"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2
    assert "follow needs a terminal" in done.stderr


def followed(app: object) -> ReplayScreen:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, ReplayScreen)
    return screen


@pytest.mark.asyncio
async def test_follow_waits_for_a_session_then_moves_to_each_newer_one(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    traces.mkdir()
    app = replay_app(waiting(traces), path=traces, sessions=traces)
    async with app.run_test(size=(100, 30)) as pilot:
        assert followed(app).header_extra() == f"waiting for a docsagent mcp session in {traces}"
        first = served(traces)
        first.call("search_docs", {"query": "replay a trace"})
        await until(pilot, lambda: cards(followed(app).state) == ["search_docs"])
        assert followed(app).path == first.path
        first.close("the MCP client closed the session", stop_reason="disconnected")
        await until(pilot, lambda: followed(app).state.run == "disconnected")
        second = served(traces)  # a new session, without a restart of follow
        second.call("read_doc", {"path": "index.md"})
        await until(pilot, lambda: cards(followed(app).state) == ["read_doc"])
        assert followed(app).path == second.path and "following" in followed(app).header_extra()
        second.close("done")


@pytest.mark.asyncio
async def test_a_pinned_session_is_kept_when_a_newer_one_starts(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    first = served(traces)
    trace, tail = following(first.path)
    app = replay_app(trace, path=first.path, follow=tail)  # `--session FILE`: no folder watched
    async with app.run_test(size=(100, 30)) as pilot:
        second = served(traces)
        second.call("list_docs", {})
        first.call("grep_docs", {"keyword": "replay"})
        await until(pilot, lambda: cards(followed(app).state) == ["grep_docs"])
        assert followed(app).path == first.path
    first.close("done")
    second.close("done")


def bars(screen: ReplayScreen) -> tuple[str, str]:
    """The header and status bar as the user reads them."""
    header = str(screen.query_one(HeaderBar).render())
    return header, str(screen.query_one(StatusBar).render())


@pytest.mark.asyncio
async def test_the_header_says_idle_between_calls_and_names_the_running_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "served.jsonl"
    writer = TraceWriter(path, {"question": SERVED_QUESTION, "model": SERVED_MODEL})
    writer.write(RunStarted(question=SERVED_QUESTION, model=SERVED_MODEL, max_steps=0))
    trace, tail = following(path)
    app = replay_app(trace, path=path, follow=tail)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        header, status = bars(screen)
        assert header.endswith("● idle") and status.startswith("0 tool calls")
        writer.write(ToolCallStarted(step=1, tool_call_id="mcp-1", name="list_docs", arguments=""))
        await until(pilot, lambda: bars(screen)[0].endswith("● running list_docs"))
        done = ToolCallFinished(
            step=1,
            tool_call_id="mcp-1",
            name="list_docs",
            output="a.md",
            error=False,
            duration_s=0.1,
        )
        writer.write(done)
        await until(pilot, lambda: bars(screen)[0].endswith("● idle"))
        header, status = bars(screen)
        assert status.startswith("1 tool call ·")
        assert "tok" not in status and "step" not in status  # an MCP server asks no model
    writer.close()
