"""Replay: the same reducer over a saved trace, stepping, playing, interrupted traces, pruning."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from agent.config import Config
from agent.events import TextDelta
from agent.testing import reply
from agent.trace import Trace, read_trace
from tests.tui.conftest import (
    SessionFactory,
    big_trace,
    rendered,
    timeout_script,
    transcript,
    transcript_lines,
    until,
)
from tui.app import DocsAgentApp, replay_app
from tui.screens.replay import ReplayScreen
from tui.state import ViewState, reduce_all
from tui.transcript.entries import TurnEntry
from tui.transcript.layout import CACHE_LINES
from tui.widgets.header_bar import HeaderBar

pytestmark = pytest.mark.asyncio
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def replay(app: DocsAgentApp) -> ReplayScreen:
    screen = app.screen
    assert isinstance(screen, ReplayScreen)
    return screen


async def test_a_live_run_replays_to_the_same_state(
    make_session: SessionFactory, config: Config
) -> None:
    session, _ = make_session(timeout_script(), stream=True)
    live = reduce_all(session.ask("timeout?"))
    assert session.last_trace is not None
    trace = read_trace(session.last_trace)
    app = replay_app(trace, path=session.last_trace, instant=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert replay(app).state == live
        assert replay(app).replayer.position == len(trace.events)


async def test_step_forward_back_and_jumps() -> None:
    trace = read_trace(FIXTURES / "answered.jsonl")
    total = len(trace.events)
    app = replay_app(trace, path=Path("answered.jsonl"), step=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = replay(app)
        assert screen.replayer.position == 0 and not screen.playing
        await pilot.press("right", "l", "right")
        assert screen.state == reduce_all(trace.events[:3])
        await pilot.press("left")
        assert screen.state == reduce_all(trace.events[:2])
        await pilot.press("end")
        assert screen.replayer.position == total and screen.state.run == "answered"
        await pilot.pause()
        assert f"event {total} / {total} · 1× ⏸" in app.screen.query_one(HeaderBar).render().plain
        await pilot.press("h")
        assert screen.state == reduce_all(trace.events[: total - 1])
        await pilot.press("home")
        assert screen.replayer.position == 0
        await pilot.press("plus", "plus", "minus")
        assert screen.replayer.speed == 2.0
        await pilot.press("space")  # the fixture's gaps are milliseconds: it plays to the end
        await until(pilot, lambda: screen.replayer.position == total)
        await until(pilot, lambda: not screen.playing)
        assert screen.state == reduce_all(trace.events)


async def test_an_interrupted_trace_shows_a_banner() -> None:
    trace = read_trace(FIXTURES / "interrupted.jsonl")
    assert not trace.complete
    app = replay_app(trace, path=Path("interrupted.jsonl"), instant=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        banner = app.screen.query_one("#interrupted")
        assert "interrupted run" in str(banner.render())
        assert replay(app).replayer.position == len(trace.events)


async def test_a_complete_trace_has_no_banner() -> None:
    app = replay_app(read_trace(FIXTURES / "answered.jsonl"), path=Path("a"), instant=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.screen.query("#interrupted")


async def test_a_long_trace_is_laid_out_whole_and_every_entry_is_reachable() -> None:
    trace = big_trace(2000)
    app = replay_app(trace, path=Path("big.jsonl"), instant=True)
    async with app.run_test(size=(80, 24)) as pilot:
        view = transcript(app)
        await until(pilot, lambda: view.settled)
        assert len(replay(app).state.entries) == 2003
        assert view.model.layout.kept_lines <= CACHE_LINES  # a few screens, not 2,003 entries
        assert "assistant · step 2000" in transcript_lines(app)
        await pilot.pause()
        assert "2000.md" in " ".join(rendered(view))
        await pilot.press("home")  # replay's Home: the start of the trace
        await pilot.pause()
        assert transcript_lines(app) == []
        await pilot.press("end")
        await until(pilot, lambda: view.settled)
        view.to_top()
        await pilot.pause()
        assert [line.strip() for line in rendered(view)][2] == "you q"
        view.scroll_to(y=view.model.layout.start(1000), animate=False, force=True)
        await pilot.pause()
        assert rendered(view)[1].strip() == "assistant · step 999"  # entry 1,000


async def test_stepping_back_and_forth_before_the_screen_catches_up() -> None:
    trace = big_trace(150)
    app = replay_app(trace, path=Path("big.jsonl"), instant=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = replay(app)
        for action in [screen.action_back] * 40 + [screen.action_forward] * 25:
            action()
            screen.render_state()  # each step shown at once, before the screen refreshes
        screen.action_start()
        screen.render_state()
        screen.action_end()
        screen.render_state()
        view = transcript(app)
        await until(pilot, lambda: view.settled)
        entries = screen.state.entries
        assert screen.replayer.position == len(trace.events) and len(entries) == 153
        assert view.entries is entries
        lines = transcript_lines(app)
        assert lines.count("you q") == 1 and lines.count("assistant · step 150") == 1
        assert lines[-9] == "assistant · step 150", lines[-9:]


def streamed_trace(make_session: SessionFactory) -> Trace:
    """A recorded run of three steps (three tool calls) whose long answer streamed in pieces."""
    answer = " ".join(f"The default timeout is five seconds ({n})." for n in range(20))
    script = [*timeout_script()[:2], reply(answer + " (advanced/timeouts.md:3-3)")]
    session, _ = make_session(script, stream=True)
    list(session.ask("timeout?"))
    assert session.last_trace is not None
    return read_trace(session.last_trace)


async def presses_to_the_answer(pilot: Pilot[int], key: str) -> list[ViewState]:
    """Press `key` from the start until the answer shows; the state after each press."""
    screen = replay(pilot.app)  # type: ignore[arg-type]
    await pilot.press("home")
    seen: list[ViewState] = []
    while screen.state.run != "answered":
        assert len(seen) < 500, "never reached the answer"
        await pilot.press(key)
        seen.append(screen.state)
    return seen


async def test_stepping_by_step_tool_call_and_answer(make_session: SessionFactory) -> None:
    trace = streamed_trace(make_session)
    deltas = sum(isinstance(e, TextDelta) for e in trace.events)
    assert deltas > 50
    app = replay_app(trace, path=Path("run.jsonl"), step=True, speed=0.01)  # plays slowly
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        by_step = await presses_to_the_answer(pilot, "s")
        assert [s.step for s in by_step] == [1, 2, 3]  # one press per model step
        first = by_step[0].entries[-1]  # step 1 whole: its text and both results
        assert isinstance(first, TurnEntry) and first.text == "Let me search."
        assert not first.streaming and not any(c.running for c in first.cards)
        by_call = await presses_to_the_answer(pilot, "t")
        assert [s.tool_calls for s in by_call] == [1, 2, 3, 3]  # parallel calls: one press each
        assert len(await presses_to_the_answer(pilot, "a")) == 1
        await pilot.press("home", "right", "right")  # the arrows still step one event
        assert replay(app).replayer.position == 2  # (of over 50 to the answer)
        screen = replay(app)
        await pilot.press("a", "S")
        assert screen.replayer.position == screen.replayer.stops("step")[-2]
        assert screen.state.step == 2 and screen.state.run == "running tool"
        await pilot.press("T", "T")
        assert screen.state.tool_calls == 2 and not screen.playing
        await pilot.press("a", "space")  # at the end, space plays again from the start
        assert screen.playing and screen.replayer.position < len(trace.events)
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running)


async def test_the_footer_shows_the_stepping_keys(make_session: SessionFactory) -> None:
    app = replay_app(streamed_trace(make_session), path=Path("run.jsonl"), step=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        bindings = app.active_bindings.items()
        shown = {(key, b.binding.description) for key, b in bindings if b.binding.show}
        assert {("space", "Play"), ("s", "Step"), ("t", "Tool"), ("a", "Answer")} <= shown
        assert ("right", "Event") in shown and ("left", "Back") not in shown  # room for quit
        every = {b.binding.action for b in app.active_bindings.values()}
        assert {"previous('step')", "previous('tool')", "leave", "faster", "back"} <= every
