"""Outside text in the TUI: control sequences shown as visible characters on every rendered
line, markup shown as typed (server errors, paths, questions), hostile tool arguments and
hostile traces shown without crashing, live and in replay."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.config import Config
from agent.errors import ModelError, TraceError
from agent.testing import call, reply
from agent.trace import read_trace
from tests.tui.conftest import SessionFactory, chat, settle, transcript, transcript_lines, until
from tui.app import DocsAgentApp, chat_app, replay_app
from tui.render import card_text, entry_text, header_text, status_text
from tui.screens.replay import ReplayScreen
from tui.screens.trace_picker import TracePicker
from tui.state import reduce_all
from tui.transcript.entries import TurnEntry

HOSTILE = "\x1b]0;PWNED\x07 \x1b]52;c;cm0gLXJmIH4=\x07 \x1b[2J\x1b[?1049h \x1b[5n \x9b6n"
SHOWN = "␛]0;PWNED␇ ␛]52;c;cm0gLXJmIH4=␇ ␛[2J␛[?1049h ␛[5n \\x9b6n"
MARKUP = "[/x] [link=https://e.test]click[/link] [bold]kept[/bold] [not a tag"
BIG = "9" * 5000
DEEP = "[" * 100_000 + "]" * 100_000


def screen_lines(app: DocsAgentApp) -> list[str]:
    """Every line of the screen as Textual hands it to the terminal (its compositor's strips)."""
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


def controls(lines: list[str]) -> list[str]:
    """Control characters but newline and tab (text such as a doc's code keeps its tabs;
    the terminal expands them, and neither moves the cursor off the line or the screen)."""
    return [
        c for line in lines for c in line if unicodedata.category(c) == "Cc" and c not in "\n\t"
    ]


@pytest.fixture
def config(tmp_path: Path) -> Config:
    """Docs whose folder name, file names and text hold terminal control sequences."""
    folder = tmp_path / "docs \x1b]0;DIR\x07"
    folder.mkdir()
    (folder / "timeouts.md").write_text(
        f"# Timeouts\n\nThe timeout is five seconds {HOSTILE} by default.\n", encoding="utf-8"
    )
    (folder / "notes \x1b[2J.md").write_text("# Notes\n", encoding="utf-8")
    return Config(docs=folder, model="script:test", trace_dir=tmp_path / "traces")


def hostile_script() -> list[object]:
    return [
        reply(f"Looking {HOSTILE}", call("list_docs"), call("read_doc", {"path": "timeouts.md"})),
        reply(
            None,
            call("read_doc", f'{{"path": "timeouts.md", "start": {BIG}}}'),
            call("grep_docs", DEEP),
            call("grep_docs", "[" * 30_000 + "]" * 30_000),
            call(f"tool {HOSTILE}", "{}"),
        ),
        reply(f"The timeout is five seconds {HOSTILE} (timeouts.md:3)."),
    ]


@pytest.mark.asyncio
async def test_live_and_replayed_screens_show_controls_as_visible_characters(
    make_session: SessionFactory, config: Config
) -> None:
    session, _ = make_session(hostile_script(), stream=True)
    app = chat_app(session, config, question=f"timeout? {HOSTILE}")
    async with app.run_test(size=(160, 90)) as pilot:
        await settle(pilot)
        assert chat(app).state.run == "answered"
        view = transcript(app)
        for card in view.model.cards():  # the whole results too
            view.model.toggle(card)
        view.to_bottom()
        await pilot.pause()
        lines = screen_lines(app) + transcript_lines(app)  # on screen, and scrolled away
        assert controls(lines) == []
        shown = "\n".join(lines)
        assert shown.count(SHOWN) >= 4  # question, streamed text, card, answer
        assert "docs ␛]0;DIR␇" in lines[0]
        assert "notes \\x1b[2J.md" in shown  # as the model reads the name
        assert '▾ read_doc({"path": "timeouts.md", "start": 999999…)' in shown
        assert f"▾ grep_docs({'[' * 39}…)" in shown
        assert "nested more than 32 levels deep" in shown
        assert "▾ tool ␛]0;PWNED␇" in shown
    assert session.last_trace is not None
    trace = read_trace(session.last_trace)
    replay = replay_app(trace, path=session.last_trace, instant=True)
    async with replay.run_test(size=(160, 90)) as pilot:
        await pilot.pause()
        lines = screen_lines(replay)
        assert controls(lines) == []
        assert SHOWN in "\n".join(lines)


@pytest.mark.asyncio
async def test_a_server_error_with_markup_is_shown_as_typed(
    make_session: SessionFactory, config: Config
) -> None:
    error = f"the server said: {MARKUP} {HOSTILE}"
    session, _ = make_session([ModelError(error)])
    app = chat_app(session, config, question="q")
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(pilot)
        await until(
            pilot, lambda: any("the last question failed" in line for line in screen_lines(app))
        )
        lines = screen_lines(app)
        assert controls(lines) == []
        shown = " ".join(" ".join(line.replace("▌", " ").split()) for line in lines)
        assert f"error: the server said: {MARKUP} {SHOWN}" in shown  # the notice line
        assert "[bold]kept[/bold]" in shown.split("the last question failed")[1]  # notice bar
        await pilot.press(*"again", "enter")  # still usable
        await settle(pilot)


@pytest.mark.asyncio
async def test_a_trace_folder_and_question_with_markup_open_in_the_picker(
    make_session: SessionFactory, config: Config, tmp_path: Path
) -> None:
    folder = tmp_path / "x[/]y [b]"
    picked = Config(docs=config.docs, model=config.model, trace_dir=folder)
    session, _ = make_session([reply("Five.")])
    session.trace_dir = folder
    app = chat_app(session, picked, question=f"{MARKUP} \x1b]0;Q\x07")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TracePicker))
        await pilot.pause()
        lines = screen_lines(app)
        assert controls(lines) == []
        shown = "\n".join(lines)
        assert f"Recent traces in {folder}" in shown
        assert f"{MARKUP} ␛]0;Q␇" in shown
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen))


@pytest.mark.asyncio
async def test_a_trace_cut_inside_a_character_replays_and_says_so(
    make_session: SessionFactory, config: Config, tmp_path: Path
) -> None:
    session, _ = make_session([reply("Délai : cinq secondes, déjà vu. 日本")], stream=True)
    list(session.ask("délai ?"))
    assert session.last_trace is not None
    data = session.last_trace.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[: data.rindex("日".encode()) + 1])  # inside the first 日
    trace = read_trace(cut)
    assert trace.damaged_tail and not trace.complete
    app = replay_app(trace, path=cut, instant=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        banner = " ".join(" ".join(screen_lines(app)).split())
        assert "and its last line was cut off mid-write; replayed to its last whole line" in banner


# -- any trace the reader accepts renders ------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)
FIELDS = ["text", "arguments", "output", "name", "content", "answer", "error", "duration_s"]


@pytest.fixture
def lines(make_session: SessionFactory) -> list[str]:
    """A trace of a hostile run (the lighter arguments, so each example stays fast)."""
    turns = hostile_script()
    turns[1] = reply(None, call("read_doc", f'{{"path": "timeouts.md", "start": {BIG}}}'))
    session, _ = make_session(turns, stream=True)
    list(session.ask(f"q {HOSTILE}"))
    assert session.last_trace is not None
    return session.last_trace.read_text(encoding="utf-8").splitlines()


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_trace_the_reader_accepts_renders_without_controls(
    lines: list[str], tmp_path: Path, data: st.DataObject
) -> None:
    decoded = [json.loads(line) for line in lines]
    for _ in range(data.draw(st.integers(1, 4))):
        event = data.draw(st.sampled_from(decoded[1:]))
        target = event.get("message", event) if data.draw(st.booleans()) else event
        if isinstance(target, dict):
            target[data.draw(st.sampled_from(FIELDS))] = data.draw(JSON_VALUES | st.text())
    path = tmp_path / "mutated.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in decoded) + "\n")
    try:
        trace = read_trace(path)
    except TraceError:
        return
    state = reduce_all(trace.events)
    rendered = [
        header_text(state, docs=state.docs, model=state.model, mode="replay", width=100),
        status_text(state, elapsed_s=None, trace=str(path), width=100),
    ]
    for entry in state.entries:
        if isinstance(entry, TurnEntry):
            rendered += [card_text(c, expanded=e) for c in entry.cards for e in (False, True)]
        else:
            rendered.append(entry_text(entry))
    assert controls([text.plain for text in rendered]) == []
