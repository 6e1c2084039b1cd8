"""Every way a live run ends: its saved trace, replayed, shows what the live view showed."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator, Sequence

import pytest
from textual.message import Message as UIMessage

from agent.config import Config, build_agent
from agent.errors import AuthenticationError, ModelError
from agent.events import RunFinished
from agent.messages import Message
from agent.models.base import Chunk, ToolSchema
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.trace import read_trace
from tests.tui.conftest import SessionFactory, chat, settle, timeout_script, until
from tests.tui.test_live_app import texts
from tui.app import DocsAgentApp, chat_app
from tui.messages import ConversationReset
from tui.state import ViewState, reduce_all
from tui.transcript.entries import TurnEntry

pytestmark = pytest.mark.asyncio


def replayed(session: Session) -> ViewState:
    """The view a replay of the session's last trace ends in."""
    assert session.last_trace is not None
    trace = read_trace(session.last_trace)
    assert trace.complete and isinstance(trace.events[-1], RunFinished)
    return reduce_all(trace.events)


def assert_replay_matches(app: DocsAgentApp, session: Session) -> ViewState:
    """The live view equals the replayed one, to the last field; returns it."""
    live = chat(app).state
    assert replayed(session) == live
    return live


def grep_forever() -> list[Message | ModelError]:
    """A script that never answers: the same tool call every step."""
    return [reply(None, call("grep_docs", {"keyword": "timeout"})) for _ in range(9)]


async def test_answered(make_session: SessionFactory, config: Config) -> None:
    session, _ = make_session(timeout_script(), stream=True)
    app = chat_app(session, config, question="timeout?")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert assert_replay_matches(app, session).run == "answered"


@pytest.mark.parametrize(
    "limits, ending",
    [
        ({"max_steps": 2}, ("max_steps", "no answer within 2 steps")),
        ({"token_budget": 1}, ("budget", "token budget of 1 used up")),
        ({}, ("repeated", "the model repeated the same grep_docs call twice in a row")),
    ],
)
async def test_a_limit(config: Config, limits: dict[str, int], ending: tuple[str, str]) -> None:
    limited = dataclasses.replace(config, **limits)  # type: ignore[arg-type]
    session = Session(
        build_agent(limited, model=ScriptedModel(grep_forever())), trace_dir=config.trace_dir
    )
    app = chat_app(session, limited, question="timeout?")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        live = assert_replay_matches(app, session)
        assert (live.run, live.error) == ending


async def test_escape_while_the_reply_is_held(make_session: SessionFactory, config: Config) -> None:
    gate = threading.Event()
    session, model = make_session([reply("late")], gate=gate)
    app = chat_app(session, config, question="q")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: len(model.requests) == 1 and chat(app).state.busy)
        await pilot.press("escape")
        await settle(pilot)
        live = assert_replay_matches(app, session)
        assert (live.run, live.step, texts(app)[-1]) == ("cancelled", 1, "cancelled")


async def test_escape_during_a_tool_call(config: Config) -> None:
    started, release = threading.Event(), threading.Event()

    def build_index() -> str:
        """Build the search index (slow)."""
        started.set()
        release.wait(10)  # bounded: the test releases it
        return "index built"

    model = ScriptedModel([reply(None, call("build_index")), reply("done")])
    agent = build_agent(config, model=model)
    agent.tools.register(build_index)
    session = Session(agent, trace_dir=config.trace_dir)
    app = chat_app(session, config, question="q")
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: started.is_set() and chat(app).state.run == "running tool")
            await pilot.press("escape")
            await settle(pilot)
            live = assert_replay_matches(app, session)
            assert (live.run, live.tool_calls) == ("cancelled", 1)
            turn = live.entries[-2]
            assert isinstance(turn, TurnEntry) and [c.output for c in turn.cards] == [
                "(no result: the run ended before this call finished)"
            ]
    finally:
        release.set()


async def test_a_model_error(make_session: SessionFactory, config: Config) -> None:
    session, _ = make_session([AuthenticationError("the endpoint refused the API key (401)")])
    app = chat_app(session, config, question="q")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: chat(app).failure is not None)
        live = assert_replay_matches(app, session)
        assert (live.run, live.error) == ("error", "the endpoint refused the API key (401)")


class BrokenModel:
    """A model with a bug: the run fails with an exception no one expected."""

    name = "broken"

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        raise RuntimeError("boom")

    def cancel(self) -> None:
        pass


async def test_an_unexpected_exception(config: Config) -> None:
    session = Session(build_agent(config, model=BrokenModel()), trace_dir=config.trace_dir)
    app = chat_app(session, config, question="q")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: chat(app).failure is not None)
        assert chat(app).failure == "RuntimeError: boom"
        live = assert_replay_matches(app, session)
        assert (live.run, live.error) == ("error", "RuntimeError: boom")


async def test_ctrl_n_mid_run(make_session: SessionFactory, config: Config) -> None:
    gate = threading.Event()
    session, model = make_session([reply(None, call("list_docs")), reply("late")], gate=gate)
    app = chat_app(session, config, question="q")
    shown: list[ViewState] = []  # the live view just before it was cleared

    def before_reset(message: UIMessage) -> None:
        if isinstance(message, ConversationReset):
            shown.append(chat(app).state)

    async with app.run_test(size=(100, 30), message_hook=before_reset) as pilot:
        await until(pilot, lambda: len(model.requests) == 1 and chat(app).state.busy)
        await pilot.press("ctrl+n")
        await until(pilot, lambda: bool(shown) and chat(app).state.runs == 0)
        assert texts(app) == [] and session.history == []
        assert chat(app).reset_note == "cancelled the running question; new conversation"
    assert [state.run for state in shown] == ["cancelled"]
    assert replayed(session) == shown[0]
