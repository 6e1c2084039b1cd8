"""The live screen against a real chat-completions server on 127.0.0.1 (openai SDK over HTTP)."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from agent.config import Config, build_agent
from agent.events import RunFinished, TextDelta
from agent.session import Session
from agent.trace import read_trace
from tests.chatserver import HOLD_LIMIT_S, Call, ChatServer, Hang, Reply, Status, chunk
from tests.tui.conftest import chat, settle, until
from tests.tui.test_live_app import texts
from tui.app import chat_app
from tui.render import status_text
from tui.state import reduce_all
from tui.widgets.notice_bar import NoticeBar

pytestmark = pytest.mark.asyncio
ANSWER = "Timeouts default to **5 seconds** (advanced/timeouts.md:3)."


def endpoint_config(config: Config, server: ChatServer, **options: object) -> Config:
    return Config(
        docs=config.docs,
        model="gpt-4o-mini",
        base_url=server.base_url,
        api_key="sk-test",
        trace_dir=config.trace_dir,
        max_retries=1,
        **options,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("stream", [True, False])
async def test_counters_end_at_the_servers_usage_and_show_the_cost(
    chat_server: ChatServer, config: Config, stream: bool
) -> None:
    chat_server.strict = True
    chat_server.push(
        Reply(calls=[Call("grep_docs", '{"keyword": "timeout"}')], usage=(1000, 50)),
        Reply(content=ANSWER, usage=(2000, 100)),
    )
    cfg = endpoint_config(config, chat_server, stream=stream)
    # a local endpoint has no list price: the user's price for it is what is shown
    cfg = dataclasses.replace(cfg, prices={"gpt-4o-mini": (0.15, 0.60)})
    session = Session(build_agent(cfg), trace_dir=cfg.trace_dir)
    app = chat_app(session, cfg)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.click("#question")
        await pilot.press(*"timeouts?", "enter")
        await settle(pilot)
        state = chat(app).state
        assert (state.run, state.step, state.tool_calls) == ("answered", 2, 1)
        usage = state.usage
        assert (usage.prompt_tokens, usage.completion_tokens, usage.estimated) == (3000, 150, False)
        assert state.answer == ANSWER
        bar = status_text(state, elapsed_s=None, trace=None, width=120).plain
        assert "3,000 in + 150 out = 3,150 tokens" in bar
        assert "≈$0.0005" in bar  # gpt-4o-mini: 3,000 x 0.15 + 150 x 0.60 per million
    assert session.last_trace is not None
    deltas = [e for e in read_trace(session.last_trace).events if isinstance(e, TextDelta)]
    assert bool(deltas) is stream


async def test_a_failing_endpoint_shows_one_clear_error(
    chat_server: ChatServer, config: Config
) -> None:
    chat_server.push(Status(404, "no such model"))
    cfg = endpoint_config(config, chat_server)
    app = chat_app(Session(build_agent(cfg), trace_dir=cfg.trace_dir), cfg)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.click("#question")
        await pilot.press(*"q", "enter")
        await settle(pilot)
        state = chat(app).state
        assert state.run == "error"
        assert state.error is not None
        assert state.error.startswith("model 'gpt-4o-mini' not found at http://127.0.0.1:")
        assert any(state.error in line for line in texts(app))
        # The line that says what to check stays under the header, not in a toast.
        bar = chat(app).query_one(NoticeBar)
        await until(pilot, lambda: bool(bar.notices))
        assert bar.notices == (
            f"the last question failed: {state.error}; check --model and --base-url",
        )
        assert not app._notifications


@pytest.mark.parametrize("stream", [True, False])
async def test_escape_ends_a_stalled_request_at_once(
    chat_server: ChatServer, config: Config, stream: bool
) -> None:
    # Streamed, the read is cut short; not streamed, the request cannot be interrupted and
    # is left to time out in the background while the run ends cancelled all the same.
    chat_server.push(Hang([chunk({"role": "assistant", "content": "Thinking"})], seconds=8))
    cfg = endpoint_config(config, chat_server, timeout=30.0, stream=stream)
    session = Session(build_agent(cfg), trace_dir=cfg.trace_dir)
    app = chat_app(session, cfg)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.click("#question")
        await pilot.press(*"q", "enter")
        await until(pilot, lambda: bool(chat_server.requests) and chat(app).state.busy)
        if stream:
            await until(pilot, lambda: "Thinking" in " ".join(texts(app)))
        await pilot.press("escape")
        await settle(pilot)
        assert chat(app).state.run == "cancelled"
        assert session.last_trace is not None
        trace = read_trace(session.last_trace)
        assert trace.events[-1].stop_reason == "cancelled"  # type: ignore[attr-defined]
        assert reduce_all(trace.events) == chat(app).state


async def test_the_offline_notice_stays_under_the_header_not_in_a_toast(config: Config) -> None:
    offline = Config(docs=config.docs, model="offline", trace_dir=config.trace_dir)
    app = chat_app(
        Session(build_agent(offline), trace_dir=offline.trace_dir),
        offline,
        notice="docsagent: no key set",
    )
    async with app.run_test(size=(80, 24)) as pilot:
        bar = chat(app).query_one(NoticeBar)
        await until(pilot, lambda: bool(bar.notices))
        assert bar.notices == ("no key set",)  # the stderr prefix is dropped in the TUI
        assert bar.region.y == 1  # the line right under the header
        assert not app._notifications


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "no-stream"])
async def test_quitting_after_escape_with_a_hung_server_is_prompt(
    chat_server: ChatServer, config: Config, stream: bool
) -> None:
    thinking = chunk({"role": "assistant", "content": "Thinking"})
    chat_server.push(Hang([thinking], seconds=HOLD_LIMIT_S))
    cfg = endpoint_config(config, chat_server, timeout=HOLD_LIMIT_S, stream=stream)
    session = Session(build_agent(cfg), trace_dir=cfg.trace_dir)
    app = chat_app(session, cfg)

    async def ask_escape_quit() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.click("#question")
            await pilot.press(*"q", "enter")
            await until(pilot, lambda: bool(chat_server.requests))
            await pilot.press("escape", "ctrl+q")

    # well before the server lets go: a loaded machine takes seconds just to start the app
    await asyncio.wait_for(ask_escape_quit(), timeout=HOLD_LIMIT_S / 4)
    assert session.last_trace is not None
    last = read_trace(session.last_trace).events[-1]
    assert isinstance(last, RunFinished) and last.stop_reason == "cancelled"


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "no-stream"])
async def test_quitting_while_the_endpoint_hangs_closes_the_trace(
    chat_server: ChatServer, config: Config, stream: bool
) -> None:
    chat_server.push(Hang(answer=False, seconds=HOLD_LIMIT_S))  # accepted, never answered
    cfg = endpoint_config(config, chat_server, timeout=HOLD_LIMIT_S, stream=stream)
    session = Session(build_agent(cfg), trace_dir=cfg.trace_dir)
    app = chat_app(session, cfg)

    async def ask_quit() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.click("#question")
            await pilot.press(*"q", "enter")
            await until(pilot, lambda: bool(chat_server.requests))
            await pilot.press("ctrl+q")

    await asyncio.wait_for(ask_quit(), timeout=HOLD_LIMIT_S / 4)  # only guards a hang
    assert session.last_trace is not None
    last = read_trace(session.last_trace).events[-1]
    assert isinstance(last, RunFinished) and last.stop_reason == "cancelled"
