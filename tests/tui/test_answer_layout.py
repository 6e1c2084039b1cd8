"""How an answer is laid out in the chat, through Pilot with the app's own styles."""

from __future__ import annotations

import pytest

from agent.config import Config
from agent.testing import reply
from tests.tui.conftest import SessionFactory, rendered, transcript, until
from tui.app import chat_app
from tui.screens.chat import ChatScreen

pytestmark = pytest.mark.asyncio


async def test_a_long_code_line_in_an_answer_wraps_instead_of_being_cut(
    make_session: SessionFactory, config: Config
) -> None:
    command = "docsagent ask " + " ".join(f"--option-{n} value" for n in range(12)) + " END"
    session, _ = make_session([reply(f"Run:\n\n```sh\n{command}\n```\n")])
    app = chat_app(session, config, question="how?")
    async with app.run_test(size=(80, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        await until(pilot, lambda: screen.state.runs >= 1 and not screen.state.busy)
        await pilot.pause()
        view = transcript(app)
        await until(pilot, lambda: view.settled)
        await pilot.pause()
        assert len(command) > view.size.width  # the line is wider than the answer
        lines = rendered(view)
        assert any(line.strip().endswith("END") for line in lines)  # so it wraps, whole
        assert sum("--option-" in line for line in lines) > 3
