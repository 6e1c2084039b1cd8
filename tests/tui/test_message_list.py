"""The message list on its own: updates that come before earlier mounts and removals finish.

`show` is called several times without letting the app run in between, as happens when
events arrive faster than widgets mount, compose and are removed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
from textual.app import App, ComposeResult

from agent.events import (
    Event,
    MessageAppended,
    ModelRequested,
    RunFinished,
    RunStarted,
    RunStats,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
)
from agent.messages import system, user
from tui.state import Entry, ViewState, reduce
from tui.widgets.entry_line import EntryLine
from tui.widgets.message_list import MessageList
from tui.widgets.tool_card import ToolCard
from tui.widgets.turn_view import TurnView

pytestmark = pytest.mark.asyncio
LIMIT = 10


class ListApp(App[None]):
    def compose(self) -> ComposeResult:
        yield MessageList(limit=LIMIT)


def run_events(steps: int, *, answer: str = "All done.") -> list[Event]:
    """A run of `steps` steps, each streaming a little text, then one tool call."""
    events: list[Event] = [
        RunStarted(question="q", model="m", max_steps=steps + 1),
        MessageAppended(step=0, message=system("prompt")),
        MessageAppended(step=0, message=user("q")),
    ]
    for step in range(1, steps + 1):
        events += [
            ModelRequested(step=step, n_messages=step),
            TextDelta(step=step, text=f"step {step}"),
            TextDelta(step=step, text=" thinks"),
            ToolCallStarted(step=step, tool_call_id=f"c{step}", name="list_docs", arguments="{}"),
            ToolCallFinished(
                step=step,
                tool_call_id=f"c{step}",
                name="list_docs",
                output=f"result {step}",
                error=False,
                duration_s=0.01,
            ),
        ]
    events += [
        ModelRequested(step=steps + 1, n_messages=steps + 1),
        TextDelta(step=steps + 1, text=answer),
        RunFinished(
            stop_reason="answered", answer=answer, stats=RunStats(steps=steps + 1, tool_calls=steps)
        ),
    ]
    return events


def states(events: Sequence[Event]) -> Iterator[ViewState]:
    state = ViewState()
    for event in events:
        state = reduce(state, event)
        yield state


def assert_shows(messages: MessageList, entries: Sequence[Entry]) -> None:
    """The mounted widgets show the newest `LIMIT` entries, in order, and nothing else."""
    tail = list(entries[max(len(entries) - LIMIT, 0) :])
    assert [w.entry for w in messages.shown] == tail  # type: ignore[attr-defined]
    in_dom = [w for w in messages.children if isinstance(w, (EntryLine, TurnView))]
    assert in_dom == messages.shown
    for widget in messages.shown:
        if isinstance(widget, TurnView) and not widget.entry.answer:
            assert widget.text.text == widget.entry.text
            assert [c.card for c in widget.query_children(ToolCard)] == list(widget.entry.cards)


async def test_every_event_shown_before_the_app_catches_up() -> None:
    app = ListApp()
    async with app.run_test(size=(80, 24)) as pilot:
        messages = app.query_one(MessageList)
        state = ViewState()
        for state in states(run_events(3 * LIMIT)):
            messages.show(state.entries)
        await pilot.pause()
        assert_shows(messages, state.entries)
        last = messages.shown[-1]
        assert isinstance(last, TurnView) and last.text.text == "All done."


async def test_a_turn_updated_before_it_is_composed() -> None:
    app = ListApp()
    async with app.run_test(size=(80, 24)) as pilot:
        messages = app.query_one(MessageList)
        events = run_events(1)
        all_states = list(states(events))
        for state in all_states[:5]:  # up to the first text delta: the turn is mounted
            messages.show(state.entries)
        messages.show(all_states[5].entries)  # more text, before the turn has composed
        messages.show(all_states[6].entries)  # its tool call
        await pilot.pause()
        assert_shows(messages, all_states[6].entries)
        turn = messages.shown[-1]
        assert isinstance(turn, TurnView)
        assert turn.text.text.endswith("step 1 thinks")


async def test_pruning_then_going_back_and_starting_over() -> None:
    app = ListApp()
    async with app.run_test(size=(80, 24)) as pilot:
        messages = app.query_one(MessageList)
        all_states = list(states(run_events(2 * LIMIT)))
        for state in all_states:
            messages.show(state.entries)
        back = all_states[len(all_states) // 2]
        messages.show(back.entries)  # going back while the removals are pending
        await pilot.pause()
        assert_shows(messages, back.entries)
        for state in reversed(all_states):  # one event back at a time, from the end
            messages.show(state.entries)
        messages.show(all_states[-1].entries)
        await pilot.pause()
        assert_shows(messages, all_states[-1].entries)
        messages.clear_entries()
        messages.show(all_states[10].entries)
        await pilot.pause()
        assert_shows(messages, all_states[10].entries)
        assert not messages.query_one("#pruned").has_class("shown")


async def test_a_turn_that_becomes_the_answer_keeps_its_widget() -> None:
    # The text streams into the widget it ends in: the end of a long answer redraws little.
    app = ListApp()
    async with app.run_test(size=(80, 24)) as pilot:
        messages = app.query_one(MessageList)
        events = run_events(2 * LIMIT, answer="The answer.")
        all_states = list(states(events))
        messages.show(all_states[-2].entries)  # the answer is still a streaming turn
        await pilot.pause()
        streaming = messages.shown[-1]
        messages.show(all_states[-1].entries)  # it became the answer, in the same widget
        messages.show(all_states[-1].entries)
        await pilot.pause()
        assert_shows(messages, all_states[-1].entries)
        answer = messages.shown[-1]
        assert answer is streaming and answer.has_class("answer")
        assert isinstance(answer, TurnView) and answer.text.text == "The answer."


async def test_every_entry_stays_reachable_past_the_mounted_limit() -> None:
    app = ListApp()
    async with app.run_test(size=(80, 24)) as pilot:
        messages = app.query_one(MessageList)
        entries = list(states(run_events(4 * LIMIT)))[-1].entries
        messages.show(entries)
        await pilot.pause()
        assert len(messages.shown) == LIMIT and messages.first_shown > 0
        seen: set[int] = set()
        messages.focus()
        while messages.first_shown > 0:  # ctrl+up: half a window earlier each time
            seen.update(range(messages.first_shown, messages.first_shown + LIMIT))
            await pilot.press("ctrl+up")
        seen.update(range(LIMIT))
        assert seen == set(range(len(entries)))  # every entry was on screen at some point
        assert [w.entry for w in messages.shown] == list(entries[:LIMIT])  # type: ignore[attr-defined]
        assert messages.query_one("#later").has_class("shown")
        assert len(messages.children) - 2 == LIMIT  # still a bounded number mounted
        more = list(states(run_events(4 * LIMIT + 3)))[-1].entries
        messages.show(more)  # a run going on does not move a window paged back
        await pilot.pause()
        assert [w.entry for w in messages.shown] == list(entries[:LIMIT])  # type: ignore[attr-defined]
        messages.to_bottom()  # End: the newest again, followed
        await pilot.pause()
        assert_shows(messages, more)
        assert not messages.query_one("#later").has_class("shown")
        messages.to_top()  # Home: the first entry
        await pilot.pause()
        assert messages.shown[0].entry is more[0]  # type: ignore[attr-defined]
