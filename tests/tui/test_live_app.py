"""The live screen driven with Pilot over scripted models; waits on state, never on time."""

from __future__ import annotations

import asyncio
import gc
import queue
import threading
import weakref
from pathlib import Path

import pytest

from agent.config import Config
from agent.errors import AuthenticationError
from agent.events import MessageAppended, RunFinished, TextDelta
from agent.loop import Agent
from agent.messages import user
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.tools.registry import ToolRegistry
from agent.trace import read_trace
from tests.tui.conftest import (
    SessionFactory,
    chat,
    entry_texts,
    rendered,
    settle,
    timeout_script,
    transcript,
    transcript_lines,
    until,
)
from tui.app import DocsAgentApp, chat_app
from tui.screens.chat import keep_long_lived
from tui.state import reduce
from tui.statefiles.history import History
from tui.widgets.header_bar import HeaderBar
from tui.widgets.notice_bar import NoticeBar
from tui.widgets.question_input import QuestionInput
from tui.widgets.status_bar import StatusBar

pytestmark = pytest.mark.asyncio


def texts(app: DocsAgentApp) -> list[str]:
    """The conversation as plain text, one item per entry and per tool card."""
    return entry_texts(app)


async def test_a_question_shows_turns_cards_and_counters(
    make_session: SessionFactory, config: Config
) -> None:
    session, _ = make_session(timeout_script(), stream=True)
    app = chat_app(session, config)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.click("#question")
        await pilot.press(*"timeout?", "enter")
        await settle(pilot)
        state = chat(app).state
        assert (state.run, state.step, state.tool_calls) == ("answered", 3, 3)
        shown = texts(app)
        assert shown[0].startswith("system Answer only from what the tools show")
        assert shown[1] == "you timeout?"
        assert shown[2] == "assistant · step 1\nLet me search."
        assert shown[3].startswith('▸ grep_docs(keyword="timeout")')
        assert "advanced/timeouts.md:1: # Timeouts" in shown[3]
        assert shown[4].startswith('▸ read_doc(path="missing.md")')
        assert "  error\n" in shown[4]
        assert shown[6].endswith("  … 27 more lines")  # 31 lines, 4 shown
        assert shown[7] == (
            "assistant · step 3\nThe default timeout is 5 seconds (advanced/timeouts.md:3-3)."
        )
        status = app.screen.query_one(StatusBar).render().plain
        assert status.startswith("step 3/8 · 3 tool calls · ≈")
        assert session.last_trace is not None and session.last_trace.name in status
        assert "● answered" in app.screen.query_one(HeaderBar).render().plain


async def test_enter_on_a_card_expands_it(make_session: SessionFactory, config: Config) -> None:
    session, _ = make_session(timeout_script())
    app = chat_app(session, config, question="timeout?")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = transcript(app)
        view.focus()  # as Tab from the question box does: the first card in view
        await pilot.press("tab", "tab")
        assert view.selected == view.model.cards()[2]
        lines = len(transcript_lines(app))
        await pilot.press("enter")
        assert len(transcript_lines(app)) == lines + 31 - 5  # the call and 31 lines, not 4 and …
        assert any(
            '▾ read_doc(path="advanced/timeouts.md"' in line for line in transcript_lines(app)
        )
        await pilot.press("enter")
        assert len(transcript_lines(app)) == lines
        assert texts(app)[6].endswith("… 27 more lines")
        span = view.model.card_span(view.selected or "")
        assert span is not None
        await pilot.click(view, offset=(5, span[0] - round(view.scroll_y)))
        assert len(transcript_lines(app)) == lines + 26
        await pilot.press("ctrl+y")
        assert app.clipboard.startswith('▾ read_doc(path="advanced/timeouts.md", start=1, end=30)')


async def test_escape_cancels_a_slow_run(make_session: SessionFactory, config: Config) -> None:
    gate = threading.Event()
    session, model = make_session(timeout_script(), gate=gate)
    app = chat_app(session, config, question="timeout?")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(model.requests) == 1 and chat(app).state.run == "thinking")
        await pilot.press("escape")
        await until(pilot, lambda: chat(app).state.run == "cancelled")
        await settle(pilot)
        assert chat(app).state.run == "cancelled" and not gate.is_set()
        assert "● cancelled" in app.screen.query_one(HeaderBar).render().plain
        shown = chat(app).state
    assert not gate.is_set() and len(model.requests) == 1
    assert session.last_trace is not None
    last = read_trace(session.last_trace).events[-1]
    assert isinstance(last, RunFinished) and last.stop_reason == "cancelled"
    assert shown.error == last.error  # the view ended on the event the trace holds


async def test_a_follow_up_continues_the_conversation(
    make_session: SessionFactory, config: Config
) -> None:
    session, model = make_session([reply("Five seconds."), reply("Use timeout=None.")])
    app = chat_app(session, config, question="default timeout?")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press(*"and to disable it?", "enter")
        await settle(pilot, runs=2)
        assert [m.content for m in model.requests[1]][1:] == [
            "default timeout?",
            "Five seconds.",
            "and to disable it?",
        ]
        assert [text.split("\n")[:2] for text in texts(app)[1:]] == [
            ["you default timeout?"],
            ["assistant · step 1", "Five seconds."],
            ["you and to disable it?"],
            ["assistant · step 1", "Use timeout=None."],
        ]
        await pilot.press("ctrl+n")
        await until(pilot, lambda: chat(app).state.runs == 0)  # the worker has forgotten
        assert texts(app) == [] and session.history == []
        assert chat(app).state.run == "idle"


async def test_a_model_error_shows_one_line_and_a_standing_notice_until_the_next_question(
    make_session: SessionFactory, config: Config
) -> None:
    session, _ = make_session(
        [AuthenticationError("the endpoint refused the API key (401)"), reply("Five.")]
    )
    app = chat_app(session, config, question="q")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = chat(app).query_one(NoticeBar)
        await until(pilot, lambda: bool(bar.notices))
        assert chat(app).state.run == "error"
        assert texts(app)[-1] == "error: the endpoint refused the API key (401)"
        assert bar.notices == ("the last question failed: the endpoint refused the API key (401)",)
        assert not app._notifications
        await pilot.press(*"again", "enter")  # the app is still usable
        await settle(pilot, runs=2)
        assert chat(app).state.answer == "Five."
        assert not bar.notices and not bar.display


async def test_the_command_palette_lists_the_actions(
    make_session: SessionFactory, config: Config
) -> None:
    session, _ = make_session([reply("a")])
    app = chat_app(session, config)
    async with app.run_test(size=(80, 24)):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert titles[:5] == [
            "Ask",
            "Cancel run",
            "New conversation",
            "Open recent trace",
            "Copy",
        ]
        assert "Quit" in titles


async def test_the_list_stops_following_once_scrolled_up(
    make_session: SessionFactory, config: Config
) -> None:
    session, _ = make_session(timeout_script() + [reply("again")])
    app = chat_app(session, config, question="timeout?")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        messages = transcript(app)
        assert messages.scroll_y == messages.max_scroll_y > 0
        messages.focus()
        await pilot.press("pageup")
        scrolled = messages.scroll_y
        assert scrolled < messages.max_scroll_y
        chat(app).state = reduce(chat(app).state, TextDelta(step=9, text="more"))
        chat(app).render_state()
        await pilot.pause()
        assert messages.scroll_y == scrolled
        await pilot.press("end")
        chat(app).state = reduce(chat(app).state, TextDelta(step=10, text="again"))
        chat(app).render_state()
        await pilot.pause()
        assert messages.scroll_y == messages.max_scroll_y
        assert rendered(messages)[-1].strip() == "again"


async def test_quitting_during_a_long_tool_call_is_prompt_and_closes_the_trace(
    config: Config,
) -> None:
    release = threading.Event()
    running: queue.Queue[threading.Thread] = queue.Queue()

    def slow_tool() -> str:
        """Take as long as the test says."""
        running.put(threading.current_thread())
        release.wait(10)
        return "done"

    model = ScriptedModel([reply(None, call("slow_tool")), reply("never asked")])
    agent = Agent(model, ToolRegistry([slow_tool]))
    session = Session(agent, trace_dir=config.trace_dir)
    app = chat_app(session, config, question="q")

    async def start_and_quit() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: not running.empty())
            await pilot.press("ctrl+q")

    try:
        await asyncio.wait_for(start_and_quit(), timeout=5)  # the tool would take 10 s
        worker = running.get_nowait()
        assert worker.daemon  # so it cannot hold up the interpreter's exit either
        assert session.last_trace is not None
        events = read_trace(session.last_trace).events
        last = events[-1]
        assert isinstance(last, RunFinished) and last.stop_reason == "cancelled"
    finally:
        release.set()
    worker.join(timeout=5)
    assert read_trace(session.last_trace).events == events  # nothing written after the end


async def test_text_arriving_before_its_turn_is_composed_is_shown(
    make_session: SessionFactory, config: Config
) -> None:
    session, _ = make_session([reply("a")])
    app = chat_app(session, config)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = chat(app)
        screen.state = reduce(screen.state, MessageAppended(step=0, message=user("q")))
        screen.render_state()
        await pilot.pause()
        for piece in ["Hel", "lo"]:
            screen.state = reduce(screen.state, TextDelta(step=1, text=piece))
            screen.render_state()  # the second time before the turn's widget has composed
        await pilot.pause()
        assert transcript_lines(app)[-2:] == ["assistant · step 1  …", "Hello"]


async def test_a_new_chat_during_a_run_says_it_cancelled_it(
    make_session: SessionFactory, config: Config
) -> None:
    gate = threading.Event()
    session, model = make_session([*timeout_script(), reply("Five.")], gate=gate)
    app = chat_app(session, config, question="timeout?")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(model.requests) == 1 and chat(app).state.busy)
        trace = chat(app).trace
        assert trace is not None and trace.name in app.screen.query_one(StatusBar).render().plain
        await pilot.press("ctrl+n")
        await until(pilot, lambda: chat(app).state.runs == 0)
        await pilot.pause()
        bar = chat(app).query_one(NoticeBar)
        assert bar.notices == ("cancelled the running question; new conversation",)
        assert texts(app) == []  # the start screen again, under the notice line
        status = app.screen.query_one(StatusBar).render().plain
        assert trace.name not in status and "step 0/8" in status
        assert "● idle" in app.screen.query_one(HeaderBar).render().plain
        last = read_trace(trace).events[-1]
        assert isinstance(last, RunFinished) and last.stop_reason == "cancelled"
        await pilot.press("ctrl+n")  # nothing running: a plain fresh start
        await until(pilot, lambda: bar.notices == ())
        gate.set()
        await pilot.press(*"again", "enter")
        await settle(pilot)
        assert not bar.notices and not bar.display


async def test_ctrl_y_after_a_cancelled_follow_up_copies_the_answer_shown(
    make_session: SessionFactory, config: Config
) -> None:
    gate = threading.Event()
    session, model = make_session([reply("Five seconds."), reply("never")], gate=gate)
    app = chat_app(session, config, question="default timeout?")
    async with app.run_test(size=(80, 24)) as pilot:
        gate.set()
        await settle(pilot)
        gate.clear()
        await pilot.press(*"and to disable it?", "enter")
        await until(pilot, lambda: len(model.requests) == 2 and chat(app).state.busy)
        await pilot.press("escape")
        await settle(pilot, runs=2)
        assert chat(app).state.run == "cancelled"
        await pilot.press("ctrl+y")
        assert app.clipboard == "Five seconds."


async def test_up_and_down_recall_questions_from_an_earlier_launch(
    make_session: SessionFactory, config: Config, tmp_path: Path
) -> None:
    history = tmp_path / "state" / "history"
    session, _ = make_session([reply("Five seconds.")])
    async with chat_app(session, config, history=history).run_test(size=(80, 24)) as pilot:
        await pilot.press(*"default timeout?", "enter")
        await settle(pilot)
    session, _ = make_session([reply("Use timeout=None.")])
    app = chat_app(session, config, history=history)
    async with app.run_test(size=(80, 24)) as pilot:
        box = app.screen.query_one(QuestionInput)
        await pilot.press(*"how do I", "up")
        assert (box.value, box.cursor_position) == ("default timeout?", 16)
        await pilot.press("up")  # the oldest: stays
        assert box.value == "default timeout?"
        await pilot.press("down")
        assert box.value == "how do I"  # what was being typed
        await pilot.press(*" disable it?", "enter")
        await settle(pilot)
        assert box.value == ""
        await pilot.press("up")
        assert box.value == "how do I disable it?"
    assert History(history).questions == ["default timeout?", "how do I disable it?"]


async def test_home_shows_the_question_whatever_has_the_focus(
    make_session: SessionFactory, config: Config
) -> None:
    answer = "Five seconds:\n\n```python\n" + "\n".join(f"x{n} = {n}" for n in range(30)) + "\n```"
    session, _ = make_session([*timeout_script()[:2], reply(answer)])
    app = chat_app(session, config, question="timeout?")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        messages = transcript(app)
        await until(pilot, lambda: messages.scroll_y == messages.max_scroll_y > 20)
        box = app.screen.query_one(QuestionInput)
        await pilot.press(*"abc", "home")  # in the question box: the cursor moves
        assert box.cursor_position == 0 and messages.scroll_y == messages.max_scroll_y
        await pilot.press("tab")  # the transcript (no card in view: none under the cursor)
        assert messages.has_focus and messages.selected is None
        for card in (None, messages.model.cards()[0]):
            messages.select(card)
            await pilot.press("end")
            await until(pilot, lambda: messages.scroll_y == messages.max_scroll_y)
            await pilot.press("home")
            await pilot.pause()
            assert messages.scroll_y == 0  # at once: no animation for later output to upset
            assert "you timeout?" in [line.strip() for line in rendered(messages)]


class _Cycle:
    """An object in a reference cycle, as a run leaves some (drawn lines and their caches)."""

    def __init__(self) -> None:
        self.itself = self


async def test_a_new_conversation_frees_the_cycles_the_cleared_one_froze(
    make_session: SessionFactory, config: Config
) -> None:
    session, _ = make_session([reply("One.")])
    app = chat_app(session, config, question="first?")
    async with app.run_test() as pilot:
        await settle(pilot)
        held = _Cycle()
        gone = weakref.ref(held)
        keep_long_lived()  # as at the end of a run
        del held
        gc.collect()
        assert gone() is not None  # frozen: collections pass it by
        await pilot.press("ctrl+n")
        await until(pilot, lambda: not chat(app).state.entries)
        await until(pilot, lambda: gone() is None)
