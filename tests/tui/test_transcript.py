"""The transcript's keys through Pilot: the card cursor, and jumping between questions."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from agent.config import Config
from agent.testing import reply
from tests.tui.conftest import (
    SessionFactory,
    chat,
    rendered,
    settle,
    timeout_script,
    transcript,
    transcript_lines,
    until,
)
from tui.app import chat_app

pytestmark = pytest.mark.asyncio


async def test_tab_walks_the_cards_and_back_to_the_question_box(
    make_session: SessionFactory, config: Config
) -> None:
    session, _ = make_session(timeout_script())
    app = chat_app(session, config, question="timeout?")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = transcript(app)
        cards = view.model.cards()
        assert len(cards) == 3
        await pilot.press("tab")  # from the question box: the first card in view
        assert view.has_focus and view.selected == cards[0]
        await pilot.press("tab", "tab")
        assert view.selected == cards[2]
        await pilot.press("shift+tab")
        assert view.selected == cards[1]
        await pilot.press("ctrl+y")
        assert app.clipboard.startswith('▾ read_doc(path="missing.md")')
        await pilot.press("tab", "tab")  # past the last card
        assert isinstance(app.focused, Input) and view.selected is None
        await pilot.press("ctrl+y")  # no card has the cursor: the answer
        assert app.clipboard.startswith("The default timeout is **5 seconds**")


async def test_ctrl_up_and_down_go_from_question_to_question(
    make_session: SessionFactory, config: Config
) -> None:
    long = "\n\n".join(f"Paragraph {n}." for n in range(40))
    session, _ = make_session([reply(long), reply(long), reply(long)])
    app = chat_app(session, config, question="first?")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for n, question in enumerate(("second?", "third?"), start=2):
            chat(app).ask(question)
            await settle(pilot, runs=n)
        view = transcript(app)
        await until(pilot, lambda: view.settled)
        view.focus()
        shown = lambda: [line.strip() for line in rendered(view)]  # noqa: E731
        await pilot.press("ctrl+up")
        assert shown()[0] == "you third?"
        await pilot.press("ctrl+up", "ctrl+up")
        assert shown()[0] == "you first?"
        await pilot.press("ctrl+up")  # none above: stays
        assert shown()[0] == "you first?"
        await pilot.press("ctrl+down")
        assert shown()[0] == "you second?"
        await pilot.press("end")
        assert view.following and shown()[-1] == transcript_lines(app)[-1].strip()


async def test_the_card_cursor_is_never_on_a_card_out_of_view(
    make_session: SessionFactory, config: Config
) -> None:
    long = "\n\n".join(f"Paragraph {n}." for n in range(60))
    session, _ = make_session([*timeout_script()[:2], reply(long)])
    app = chat_app(session, config, question="timeout?")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = transcript(app)
        await until(pilot, lambda: view.settled)
        cards = view.model.cards()
        shown = lambda: "\n".join(rendered(view))  # noqa: E731
        assert "read_doc(" not in shown()  # the answer fills the view
        await pilot.press("tab")  # no card in view: none has the cursor
        assert view.has_focus and view.selected is None and view.following
        await pilot.press("tab")  # the last card above the view, brought into view
        assert view.selected == cards[-1]
        assert '▸ read_doc(path="advanced/timeouts.md"' in shown()
        await pilot.press("enter")  # the card the user sees opens
        assert '▾ read_doc(path="advanced/timeouts.md"' in shown()
        await pilot.press("shift+tab")
        assert view.selected == cards[-2] and "missing.md" in shown()


async def test_a_new_width_keeps_the_line_at_the_top_of_the_view(
    make_session: SessionFactory, config: Config
) -> None:
    long = "\n\n".join(f"Paragraph {n}: " + "some words to wrap " * 8 for n in range(30))
    session, _ = make_session([reply(long), reply(long), reply(long)])
    app = chat_app(session, config, question="first?")
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        for n, question in enumerate(("second?", "third?"), start=2):
            chat(app).ask(question)
            await settle(pilot, runs=n)
        view = transcript(app)
        await until(pilot, lambda: view.settled)
        view.focus()
        await pilot.press("ctrl+up", "ctrl+up")
        top = lambda: rendered(view)[0].strip()  # noqa: E731
        assert top() == "you second?" and not view.following

        async def resize(width: int) -> None:
            await pilot.resize_terminal(width, 24)
            await until(pilot, lambda: view.settled and app.size.width == width)
            await pilot.pause()

        for width in (60, 140, 100):
            await resize(width)
            assert top() == "you second?", width


async def test_page_keys_scroll_the_conversation_from_the_question_box(
    make_session: SessionFactory, config: Config
) -> None:
    long = "\n\n".join(f"Paragraph {n}." for n in range(60))
    session, _ = make_session([reply(long)])
    app = chat_app(session, config, question="first?")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = transcript(app)
        await until(pilot, lambda: view.settled and view.scroll_y == view.max_scroll_y > 0)
        bottom = rendered(view)
        await pilot.press("pageup")
        assert isinstance(app.focused, Input)  # typing goes on in the box
        assert not view.following and rendered(view) != bottom
        await pilot.press("pagedown")
        assert view.following and rendered(view) == bottom


async def test_shift_tab_from_no_card_goes_to_the_last_card_in_view(
    make_session: SessionFactory, config: Config
) -> None:
    long = "\n\n".join(f"Paragraph {n}." for n in range(60))
    session, _ = make_session([*timeout_script()[:2], reply(long)])
    app = chat_app(session, config, question="timeout?")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = transcript(app)
        await until(pilot, lambda: view.settled)
        await pilot.press("tab")  # no card in view: none under the cursor
        assert view.has_focus and view.selected is None
        last = view.model.card_span(view.model.cards()[-1])
        assert last is not None
        for _ in range(round(view.scroll_y)):  # up until the last card shows whole
            if last[0] >= round(view.scroll_y) and last[1] <= view.scroll_y + view.size.height:
                break
            await pilot.press("up")
        assert view.selected is None
        await pilot.press("shift+tab")
        assert view.selected == view.model.cards()[-1]


async def test_typing_on_a_card_goes_to_the_question_box(
    make_session: SessionFactory, config: Config
) -> None:
    session, _ = make_session(timeout_script())
    app = chat_app(session, config, question="timeout?")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = transcript(app)
        await pilot.press("tab")  # the cursor on a card
        assert view.has_focus and view.selected is not None
        await pilot.press("w", "h", "y", "space", "1")
        box = app.screen.query_one("#question", Input)
        assert app.focused is box and box.value == "why 1"
