"""What the TUI marks on a run, live and in replay: unread citations, repeats, compaction;
and ctrl+s, which exports the run beside its trace."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from agent import export_trace
from agent.compaction import Compaction
from agent.config import Config, open_docs
from agent.loop import Agent
from agent.messages import Message
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.tools.docs import docs_registry
from agent.trace import read_trace
from tests.tui.conftest import SessionFactory, chat, entry_texts, settle, transcript, until
from tests.tui.test_live_replay import assert_replay_matches
from tui.app import DocsAgentApp, chat_app, replay_app
from tui.screens.base import TraceScreen
from tui.screens.replay import ReplayScreen
from tui.widgets.header_bar import HeaderBar
from tui.widgets.status_bar import StatusBar

pytestmark = pytest.mark.asyncio

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def read(start: int, end: int) -> Message:
    return reply(
        None, call("read_doc", {"path": "advanced/timeouts.md", "start": start, "end": end})
    )


def script() -> list[Message]:
    """Three reads (the second one twice), then an answer citing lines 3 and 20-25 (never read)."""
    return [
        read(1, 10),
        read(11, 15),
        read(11, 15),
        read(26, 30),
        reply("Five seconds (advanced/timeouts.md:3-3), unless set (advanced/timeouts.md:20-25)."),
    ]


def session_for(config: Config, turns: list[Message]) -> Session:
    """A session that shortens its context at once: all but the last step's results."""
    docs = open_docs(config)
    agent = Agent(
        ScriptedModel(list(turns)),
        docs_registry(),
        context=[docs],
        max_steps=config.max_steps,
        compaction=Compaction(after_tokens=1, keep_steps=1),
        docs=str(config.docs),
    )
    return Session(agent, trace_dir=config.trace_dir)


def notices(app: DocsAgentApp) -> list[str]:
    return [n.message for n in app._notifications]


def marks(screen: TraceScreen) -> dict[str, object]:
    """What the screen shows of the checks: the answer's note, repeat cards, lines, counters."""
    shown = entry_texts(screen.app)
    answer = [text for text in shown if text.startswith("assistant")][-1]
    return {
        "note": answer.splitlines()[-1],
        "repeats": [t.splitlines()[0] for t in shown if "↻ repeat of step" in t.splitlines()[0]],
        "compaction lines": [t for t in shown if t.startswith("context shortened")],
        "status": screen.query_one(StatusBar).render().plain,
    }


async def test_the_marks_live_and_in_replay(config: Config) -> None:
    session = session_for(config, script())
    app = chat_app(session, config, question="timeout?")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        live = assert_replay_matches(app, session)
        assert live.entries[-1].unread == ("advanced/timeouts.md:20-25",)  # type: ignore[union-attr]
        shown = marks(chat(app))
    assert shown["note"] == "⚠ cites advanced/timeouts.md:20-25, which this run never read"
    assert shown["repeats"] == [
        '▸ read_doc(path="advanced/timeouts.md", start=11, end=15)  ↻ repeat of step 2'
    ]
    lines = shown["compaction lines"]
    assert isinstance(lines, list) and lines[0].startswith(
        "context shortened before step 3: 1 earlier result replaced by a stub (≈−"
    )
    assert lines[0].endswith("read advanced/timeouts.md:1-10 at step 1")
    status = shown["status"]
    assert isinstance(status, str)
    assert "4 tool calls · 1 repeated call · " in status, status
    assert f"compacted: {live.compacted} results, −{live.tokens_saved:,} tok" in status
    assert live.compacted == 3

    assert session.last_trace is not None
    replay = replay_app(read_trace(session.last_trace), path=session.last_trace, instant=True)
    async with replay.run_test(size=(200, 50)) as pilot:
        screen = replay.screen
        assert isinstance(screen, ReplayScreen)
        await until(pilot, lambda: screen.state.run == "answered" and transcript(replay).settled)
        await pilot.pause()
        assert screen.state == live
        assert marks(screen) == shown


async def test_a_run_stopped_for_repeating_reads_well(config: Config) -> None:
    again = call("grep_docs", {"keyword": "timeout"})
    session = session_for(config, [reply(None, again)] * 3)
    app = chat_app(session, config, question="timeout?")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        header = app.screen.query_one(HeaderBar).render().plain
        assert header.endswith("● stopped: repeated call")
        last = entry_texts(app)[-1]
        assert last == "no answer: the model repeated the same grep_docs call twice in a row"
        assert " · 2 repeated · " in app.screen.query_one(StatusBar).render().plain


async def test_ctrl_s_exports_the_last_run_beside_its_trace(
    make_session: SessionFactory, config: Config
) -> None:
    gate = threading.Event()
    session, model = make_session([reply(None, call("list_docs")), reply("Two docs.")], gate=gate)
    app = chat_app(session, config)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("ctrl+s")  # the question box has focus: the key still reaches the screen
        assert notices(app) == ["nothing to export yet: ask a question first"]
        chat(app).ask("which docs?")
        await until(pilot, lambda: len(model.requests) == 1 and chat(app).state.busy)
        await pilot.press("ctrl+s")
        assert notices(app)[-1] == (
            "a run is in progress: export it once it ends (Escape cancels it)"
        )
        gate.set()
        await settle(pilot)
        await pilot.press("ctrl+s")
        trace = session.last_trace
        assert trace is not None
        markdown = trace.with_suffix(".md")
        assert notices(app)[-1] == f"exported the run to {markdown}"
        assert markdown.read_text(encoding="utf-8") == export_trace(read_trace(trace), "markdown")
        chat(app).export_html()
        page = trace.with_suffix(".html")
        await until(pilot, lambda: len(notices(app)) == 4)
        assert notices(app)[-1] == f"exported the run to {page}"
        assert page.read_text(encoding="utf-8") == export_trace(read_trace(trace), "html")
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert {"Export as Markdown", "Export as HTML"} <= set(titles)


async def test_ctrl_s_exports_a_run_whose_trace_file_was_named_as_text(
    config: Config, tmp_path: Path
) -> None:
    named = str(tmp_path / "named.jsonl")  # as `--trace FILE` hands it over
    docs = open_docs(config)
    agent = Agent(ScriptedModel([reply("Two docs.")]), docs_registry(), context=[docs])
    session = Session(agent, trace_dir=tmp_path, trace_path=named)
    app = chat_app(session, config, question="which docs?")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")
        assert notices(app)[-1] == f"exported the run to {tmp_path / 'named.md'}"


async def test_ctrl_s_in_replay_exports_the_whole_trace(tmp_path: Path) -> None:
    path = tmp_path / "interrupted.jsonl"
    shutil.copy(FIXTURES / "interrupted.jsonl", path)
    app = replay_app(read_trace(path), path=path, step=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("ctrl+s")  # paused at the start: the export still holds every step
        written = tmp_path / "interrupted.md"
        assert notices(app) == [f"exported the run to {written}"]
        assert written.read_text(encoding="utf-8") == export_trace(read_trace(path), "markdown")


async def test_ctrl_s_keeps_the_users_file_and_never_writes_through_a_link(
    tmp_path: Path,
) -> None:
    path = tmp_path / "report.jsonl"
    shutil.copy(FIXTURES / "answered.jsonl", path)
    (tmp_path / "report.md").write_text("my own report\n")
    victim = tmp_path / "victim.txt"
    victim.write_text("not yours\n")
    (tmp_path / "report.html").symlink_to(victim)
    (tmp_path / "report-2.html").mkdir()  # a folder in the way is passed over too
    app = replay_app(read_trace(path), path=path, instant=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("ctrl+s")
        app.screen.export_html()  # type: ignore[attr-defined]
        await until(pilot, lambda: len(notices(app)) == 2)
        markdown, page = tmp_path / "report-2.md", tmp_path / "report-3.html"
        assert notices(app) == [f"exported the run to {markdown}", f"exported the run to {page}"]
    assert (tmp_path / "report.md").read_text() == "my own report\n"
    assert victim.read_text() == "not yours\n"
    assert markdown.read_text(encoding="utf-8") == export_trace(read_trace(path), "markdown")
    assert page.read_text(encoding="utf-8") == export_trace(read_trace(path), "html")
