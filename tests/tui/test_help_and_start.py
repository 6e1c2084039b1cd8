"""The help screen, the start screen, the notice line, the footer and remembered settings."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from textual.widgets import Input
from textual.widgets._footer import FooterKey
from textual.widgets._toast import Toast

from agent.config import Config, build_agent, open_docs
from agent.messages import Message
from agent.session import Session
from agent.testing import ScriptedModel, reply
from tests.tui.conftest import chat, settle, until
from tui.app import DocsAgentApp, chat_app
from tui.screens.chat import ChatScreen
from tui.screens.help import HelpScreen
from tui.screens.trace_picker import TracePicker
from tui.transcript.entries import UserEntry
from tui.widgets.example_line import ExampleLine
from tui.widgets.notice_bar import NoticeBar
from tui.widgets.transcript import Transcript
from tui.widgets.welcome import Welcome

pytestmark = pytest.mark.asyncio

GUIDE = {
    "proxies.md": "# Proxies\n\n## Use a proxy\n\nPass proxy= to the client.\n",
    "timeouts.md": "# Timeouts\n\n## Setting a timeout\n\nPass timeout=5.\n",
    "uploads.md": "# Uploads\n\n## Sending Multipart Files\n\nPass files=.\n",
}


def guide(root: Path) -> Path:
    folder = root / "guide"
    folder.mkdir()
    for name, text in GUIDE.items():
        (folder / name).write_text(text)
    return folder


def guide_app(
    root: Path,
    turns: Sequence[Message] = (),
    *,
    notice: str | None = None,
    settings: Path | None = None,
    relative: bool = False,
) -> DocsAgentApp:
    """The live app over the guide, its index in memory; `relative`: paths as given."""
    docs = guide(root)
    if relative:  # the snapshots show the paths: keep them the same on every machine
        docs = Path("guide")
    config = Config(docs=docs, model="script:x", trace_dir=Path("traces"))
    if not relative:
        config = Config(docs=docs, model="script:x", trace_dir=root / "traces")
    opened = open_docs(config)
    agent = build_agent(config, model=ScriptedModel(list(turns)), docs=opened)
    session = Session(agent, trace_dir=config.trace_dir)
    return chat_app(session, config, notice=notice, index=opened.index, settings=settings)


EXAMPLES = ("How do I use a proxy?", "How do I set a timeout?", "How do I send multipart files?")


async def examples_shown(pilot: object, app: DocsAgentApp) -> None:
    await until(pilot, lambda: chat(app).examples == EXAMPLES)  # type: ignore[arg-type]
    await until(pilot, lambda: len(app.screen.query(ExampleLine)) == 3)  # type: ignore[arg-type]


async def test_f1_and_question_mark_open_the_help_and_escape_closes_it(tmp_path: Path) -> None:
    app = guide_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ChatScreen))
        await pilot.press("question_mark")  # the question box is empty
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("f1")  # F1 again closes it too
        await until(pilot, lambda: isinstance(app.screen, ChatScreen))
        await pilot.press(*"why", "question_mark")  # typing a question: ? is a character
        await pilot.pause()
        assert isinstance(app.screen, ChatScreen)
        assert app.screen.query_one(Input).value == "why?"
        await pilot.press("f1")  # F1 works while typing
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))


async def test_the_help_lists_the_keys_of_both_views_and_the_trace_folder(tmp_path: Path) -> None:
    app = guide_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        text = "\n".join(
            "".join(segment.text for segment in strip)
            for strip in app.console.render_lines(help_screen.help_text(), app.console.options)
        )
        for expected in (
            "F1 / ?",  # one row: the same help
            "ctrl+q",
            "ctrl+n",
            "Start a fresh conversation",
            "1 / 2 / 3",
            "Enter in the conversation",
            "Space",
            "→ or l",
            "s The next model step, whole",
            "t The next tool call's result",
            "a The answer",
            "↑ in the box Show the question asked before",
            "Home Scroll to the start of the conversation",
            "tool calls",
            f"saved as a trace in {tmp_path / 'traces'}",
        ):
            assert expected in " ".join(text.split())


async def test_the_palette_keys_entry_opens_our_help(tmp_path: Path) -> None:
    app = guide_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        commands = [c for c in app.get_system_commands(app.screen) if c.title == "Keys"]
        assert len(commands) == 1  # Textual's own key panel is not offered
        await pilot.press("ctrl+p", *"keys")
        await pilot.pause()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ChatScreen))
        app.call_later(app.action_show_help_panel)  # Textual's panel's action opens ours
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))


async def test_the_start_screen_asks_an_example_with_its_number(tmp_path: Path) -> None:
    app = guide_app(tmp_path, [reply("Pass timeout=5."), reply("Pass proxy=.")])
    async with app.run_test(size=(80, 24)) as pilot:
        await examples_shown(pilot, app)
        welcome = app.screen.query_one(Welcome)
        assert welcome.display and not app.screen.query_one(Transcript).display
        await pilot.press("2")
        await settle(pilot)
        screen = chat(app)
        assert [e.text for e in screen.state.entries if isinstance(e, UserEntry)] == [EXAMPLES[1]]
        assert not welcome.display and app.screen.query_one(Transcript).display
        await pilot.press("1")  # a question is on screen: the digit types itself
        await pilot.pause()
        assert screen.query_one(Input).value == "1" and screen.state.runs == 1
        await pilot.press("backspace", "ctrl+n")
        await until(pilot, lambda: screen.state.runs == 0)
        await pilot.pause()
        assert welcome.display  # back on a new conversation
        await pilot.click(ExampleLine)  # the first example
        await settle(pilot)
        assert screen.state.entries and isinstance(screen.state.entries[1], UserEntry)
        assert screen.state.entries[1].text == EXAMPLES[0]


async def test_a_digit_in_a_question_is_typed(tmp_path: Path) -> None:
    app = guide_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await examples_shown(pilot, app)
        await pilot.press("a", "1")
        await pilot.pause()
        assert chat(app).query_one(Input).value == "a1" and chat(app).state.runs == 0


async def test_a_burst_of_typing_is_typed_whole_even_with_digits_and_a_question_mark(
    tmp_path: Path,
) -> None:
    from textual import events
    from textual.keys import _character_to_key

    app = guide_app(tmp_path)
    typed = "Explain http2 and 3 for me?"
    async with app.run_test(size=(80, 24)) as pilot:
        await examples_shown(pilot, app)
        for character in typed:  # all queued at once, as a fast typist or a terminal paste
            app.post_message(events.Key(_character_to_key(character), character))
        box = chat(app).query_one(Input)
        await until(pilot, lambda: box.value == typed)
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen) and chat(app).state.runs == 0


async def test_standing_notices_go_under_the_header_and_toasts_stay_off_dialogs(
    tmp_path: Path,
) -> None:
    app = guide_app(tmp_path, notice="docsagent: no API key set")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        bar = chat(app).query_one(NoticeBar)
        await until(pilot, lambda: bar.notices == ("no API key set",))
        assert bar.region.y == 1 and not app._notifications
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TracePicker))
        app.notify("copied")
        await until(pilot, lambda: bool(app.screen.query(Toast)))
        (toast,) = app.screen.query(Toast)
        assert toast.styles.display == "none" and toast.region.area == 0


@pytest.mark.parametrize("size", [(60, 15), (80, 24), (120, 40)])
async def test_help_and_quit_stay_in_the_footer_at_any_width(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = guide_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: bool(app.screen.query(FooterKey)))
        keys = {key.action: key for key in app.screen.query(FooterKey)}
        help_key, quit_key = keys["help"].region, keys["quit"].region
        assert help_key.width > 0 and quit_key.width > 0
        assert help_key.right <= quit_key.x and quit_key.right <= size[0]
        assert help_key.y == quit_key.y == size[1] - 1


async def test_the_theme_chosen_is_remembered(tmp_path: Path) -> None:
    settings = tmp_path / "config" / "docsagent" / "settings.json"
    app = guide_app(tmp_path, settings=settings)
    async with app.run_test(size=(80, 24)) as pilot:
        app.theme = "nord"
        await until(pilot, settings.exists)
    (tmp_path / "guide").rename(tmp_path / "guide-1")
    again = guide_app(tmp_path, settings=settings)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert again.theme == "nord"
        assert chat(again).query_one(NoticeBar).notices == ()


async def test_a_damaged_settings_file_gives_the_defaults_and_one_notice(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text('{"theme": "no-such-theme"')
    app = guide_app(tmp_path, settings=settings)
    async with app.run_test(size=(80, 24)) as pilot:
        bar = chat(app).query_one(NoticeBar)
        await until(pilot, lambda: bool(bar.notices))
        (notice,) = bar.notices
        assert notice.startswith(f"the settings file {settings} cannot be used (not JSON")
        assert app.theme == "textual-dark"
