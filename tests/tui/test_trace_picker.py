"""The trace picker (ctrl+o): recent runs, what each says of itself, and replaying one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import OptionList

from agent.config import Config
from agent.testing import call, reply
from tests.tui.conftest import SessionFactory, chat, settle, until
from tui.app import chat_app
from tui.screens.chat import ChatScreen
from tui.screens.replay import ReplayScreen
from tui.screens.trace_picker import TracePicker

pytestmark = pytest.mark.asyncio


async def test_ctrl_o_replays_a_recent_trace(make_session: SessionFactory, config: Config) -> None:
    session, _ = make_session([reply(None, call("list_docs")), reply("Two docs.")])
    app = chat_app(session, config, question="which docs?")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        live = chat(app).state
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TracePicker))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen))
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        await pilot.press("end")
        assert replay.state == live
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ChatScreen))
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TracePicker))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen))
        await pilot.press("q")  # from the chat, q goes back: the conversation is kept
        await until(pilot, lambda: isinstance(app.screen, ChatScreen))
        assert app.is_running and chat(app).state.runs == live.runs


async def test_recent_traces_say_which_docs_folder_each_run_used(
    make_session: SessionFactory, config: Config
) -> None:
    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "answered.jsonl"
    header, *rest = fixture.read_text(encoding="utf-8").splitlines(keepends=True)
    config.trace_dir.mkdir(parents=True)
    for name, docs in [("a", "/home/me/shared/corpora/httpx-docs"), ("b", "/srv/manual")]:
        fields = {**json.loads(header), "docs": docs}
        text = json.dumps(fields) + "\n" + "".join(rest)
        (config.trace_dir / f"{name}.jsonl").write_text(text, encoding="utf-8")
    session, _ = make_session([])
    app = chat_app(session, config)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TracePicker))
        options = app.screen.query_one(OptionList)
        shown = sorted(str(options.get_option_at_index(i).prompt) for i in range(2))
        assert [line.split("\n")[1] for line in shown] == [
            "a.jsonl · scripted · …/me/shared/corpora/httpx-docs · answered",
            "b.jsonl · scripted · /srv/manual · answered",
        ]


async def test_recent_traces_word_each_ending_as_its_replay_does(
    make_session: SessionFactory, config: Config
) -> None:
    script = [
        reply(None, call("list_docs")),
        reply("Timeouts are 5 seconds (advanced/timeouts.md:3-3)."),
        reply(None, call("list_docs")),
        reply("The docs do not say."),
        reply("Probably 5 seconds."),
    ]
    session, _ = make_session(script)
    for question in ["cited?", "declined?", "read nothing?"]:
        list(session.ask(question))
    app = chat_app(session, config)
    async with app.run_test(size=(120, 24)) as pilot:
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TracePicker))
        options = app.screen.query_one(OptionList)
        shown = [str(options.get_option_at_index(i).prompt).split(" · ")[-1] for i in range(3)]
        assert shown == ["answered without reading the docs", "declined", "answered"]
