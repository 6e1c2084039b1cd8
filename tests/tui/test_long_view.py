"""Long live views, and instant models run many times, through Pilot.

The scripted models here answer at once, so events arrive faster than the screen
renders them: the transcript is updated many times between two refreshes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input

from agent.config import Config, build_agent
from agent.errors import ModelError
from agent.messages import Message
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from tests.tui.conftest import (
    chat,
    entry_texts,
    plain,
    rendered,
    transcript,
    transcript_lines,
    until,
)
from tui.app import chat_app
from tui.transcript.entries import NoticeEntry, TurnEntry
from tui.transcript.model import TranscriptModel
from tui.transcript.pieces import Pen

pytestmark = pytest.mark.asyncio


def session_of(
    config: Config, turns: list[Message | ModelError], *, max_steps: int = 8, stream: bool = False
) -> Session:
    model = ScriptedModel(turns, stream=stream)
    agent = build_agent(replace(config, max_steps=max_steps), model=model)
    return Session(agent, trace_dir=config.trace_dir)


def shows_answer(app: App[Any], answer: str) -> bool:
    """Whether the run is over and its answer is laid out in the transcript."""
    screen = chat(app)
    view = transcript(app)
    entries = screen.state.entries
    last = entries[-1] if entries else None
    return (
        not screen.state.busy
        and view.entries is entries
        and view.settled
        and isinstance(last, TurnEntry)
        and last.answer
        and last.text == answer
    )


async def settle(pilot: Pilot[int], answer: str) -> None:
    """Wait for the run to end and its answer to be shown."""
    await until(pilot, lambda: not chat(pilot.app).state.busy)
    await until(pilot, lambda: shows_answer(pilot.app, answer))


async def assert_list_matches(pilot: Pilot[Any]) -> None:
    """The transcript, updated event by event, reads as the entries laid out afresh, and
    its last rows on screen are the newest entry's."""
    app = pilot.app
    view = transcript(app)
    fresh = TranscriptModel(Pen(app.console, app.console_options.update(highlight=False)))
    fresh.layout.set_width(view.model.layout.width)
    fresh.update(chat(app).state.entries)
    fresh.layout.measure(10**9)
    lines = fresh.layout.lines(0, fresh.layout.height)
    assert transcript_lines(app) == [plain(line) for line in lines]
    await pilot.pause()
    assert view.scroll_y == view.max_scroll_y
    on_screen = [line.strip() for line in rendered(view) if line.strip()]
    assert on_screen[-3:] == transcript_lines(app)[-3:]


async def test_a_run_of_160_tool_steps_keeps_the_newest_entries(config: Config) -> None:
    steps = [reply(None, call("grep_docs", {"keyword": f"k{n}"})) for n in range(160)]
    session = session_of(config, [*steps, reply("Done after 161 steps.")], max_steps=170)
    app = chat_app(session, config, question="walk the docs")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, "Done after 161 steps.")
        state = chat(app).state
        assert (state.run, state.step, state.tool_calls) == (
            "declined",
            161,
            160,
        )  # it cites nothing
        # Past the threshold, each step's request shortens one more result: a dim line each.
        shortened = [e for e in state.entries if isinstance(e, NoticeEntry)]
        assert all(e.text.startswith("context shortened before step") for e in shortened)
        assert state.compacted == 160 - 3  # all but the last three steps' results
        assert len(state.entries) == 2 + 161 + len(shortened)
        await assert_list_matches(pilot)


async def test_a_typed_conversation_of_15_questions(config: Config) -> None:
    def question(n: int) -> list[Message | ModelError]:
        tools = [reply(None, call("grep_docs", {"keyword": f"w{n}{k}"})) for k in range(6)]
        return [*tools, reply(f"Answer {n}.")]

    turns = [turn for n in range(1, 16) for turn in question(n)]
    session = session_of(config, turns, max_steps=10, stream=True)
    app = chat_app(session, config)
    async with app.run_test(size=(100, 30)) as pilot:
        box = app.screen.query_one("#question", Input)
        for n in range(1, 16):
            box.value = f"question {n}"  # typing each key costs a pause; Enter submits it
            await pilot.press("enter")
            await settle(pilot, f"Answer {n}.")
            assert chat(app).state.run == "declined"  # it cites nothing
            assert box.value == ""
        entries = chat(app).state.entries
        shortened = [e for e in entries if isinstance(e, NoticeEntry)]
        assert shortened  # the conversation grew past the threshold: old results were stubbed
        # The system prompt, then a question and 7 turns each, and the compaction lines.
        assert len(entries) == 1 + 15 * 8 + len(shortened)
        await assert_list_matches(pilot)


async def test_instant_answers_30_times_in_fresh_conversations(config: Config) -> None:
    answer = "Streamed at once, in a few pieces, with **Markdown**."
    turns: list[Message | ModelError] = [
        reply("Looking.", call("list_docs")),
        reply(answer),
    ] * 30
    session = session_of(config, turns, stream=True)
    app = chat_app(session, config)
    async with app.run_test(size=(100, 30)) as pilot:
        for n in range(30):
            chat(app).ask(f"question {n}")
            await settle(pilot, answer)
            assert chat(app).state.run == "declined"  # it cites nothing
            assert entry_texts(app)[2].startswith("assistant · step 1\nLooking.")
            await assert_list_matches(pilot)
            chat(app).action_new()  # the worker resets the conversation, then the view
            await until(pilot, lambda: chat(app).state.runs == 0)
            assert transcript_lines(app) == []
