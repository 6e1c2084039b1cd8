"""The reducer: events in, view state out, without an app."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from agent.errors import ModelError
from agent.events import (
    ContextCompacted,
    Event,
    ModelRequested,
    RunFinished,
    RunStarted,
    RunStats,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    Usage,
)
from agent.messages import Message, assistant, system, user
from agent.testing import call, reply
from tests.agent.test_pdf_docs import OUTLINE, PAGES
from tests.pdf_support import pdf_bytes
from tests.tui.conftest import SessionFactory, big_trace, timeout_script
from tui.persistent import TextParts
from tui.replayer import Replayer
from tui.state import ViewState, reduce, reduce_all
from tui.transcript.entries import Card, NoticeEntry, SystemEntry, TurnEntry, UserEntry


def run(
    make_session: SessionFactory, turns: list[Any], question: str = "timeout?", **kw: object
) -> list[Event]:
    session, _ = make_session(turns, **kw)
    return list(session.ask(question))


def test_a_run_becomes_entries_cards_and_counters(make_session: SessionFactory) -> None:
    events = run(make_session, timeout_script())
    state = reduce_all(events)
    kinds = [type(e).__name__ for e in state.entries]
    assert kinds == ["SystemEntry", "UserEntry", "TurnEntry", "TurnEntry", "TurnEntry"]
    first, second, answer = state.entries[2:]
    assert isinstance(first, TurnEntry) and isinstance(second, TurnEntry)
    assert first.text == "Let me search." and not first.streaming
    assert [(c.name, c.error) for c in first.cards] == [("grep_docs", False), ("read_doc", True)]
    assert first.cards[0].arguments == '{"keyword": "timeout"}'
    assert first.cards[0].output is not None and "advanced/timeouts.md:1:" in first.cards[0].output
    assert second.cards[0].output is not None
    assert second.cards[0].output.count("\n") == 30  # the whole result, not truncated
    assert isinstance(answer, TurnEntry) and answer.answer and answer.cards == ()
    assert (
        state.answer
        == answer.text
        == ("The default timeout is **5 seconds** (advanced/timeouts.md:3-3).")
    )
    assert (state.run, state.step, state.max_steps, state.tool_calls) == ("answered", 3, 8, 3)
    assert state.usage.estimated and state.usage.total_tokens > 0
    assert state.elapsed_s is not None


def test_the_run_state_follows_the_events(make_session: SessionFactory) -> None:
    events = run(make_session, timeout_script())
    seen: list[str] = []
    state = ViewState()
    for event in events:
        state = reduce(state, event)
        if not seen or seen[-1] != state.run:
            seen.append(state.run)
    assert seen == ["thinking", "running tool", "thinking", "running tool", "thinking", "answered"]


def test_streamed_text_grows_one_turn(make_session: SessionFactory) -> None:
    text = "a" * 16 + "b" * 16 + "c" * 8
    events = run(make_session, [reply(text)], stream=True)
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert [d.text for d in deltas] == ["a" * 16, "b" * 16, "c" * 8]
    state = reduce_all(events[: events.index(deltas[1]) + 1])
    turn = state.entries[-1]
    assert isinstance(turn, TurnEntry) and turn.text == text[:32] and turn.streaming
    final = reduce_all(events)
    assert [type(e).__name__ for e in final.entries] == ["SystemEntry", "UserEntry", "TurnEntry"]
    assert final.entries[-1] == TurnEntry(
        1, TextParts(text), streaming=False, answer=True, outcome="read_nothing"
    )


def test_a_model_error_ends_with_an_error_notice(make_session: SessionFactory) -> None:
    session, _ = make_session([ModelError("the endpoint refused the key")])
    events: list[Event] = []
    with pytest.raises(ModelError):
        for event in session.ask("q"):
            events.append(event)
    state = reduce_all(events)
    assert state.run == "error" and state.error == "the endpoint refused the key"
    assert state.entries[-1] == NoticeEntry("error: the endpoint refused the key", "error")


def test_cancel_and_limits_become_notices() -> None:
    base = reduce(ViewState(), RunStarted(question="q", model="m", max_steps=2))
    cancelled = reduce(base, RunFinished(stop_reason="cancelled", answer=None, stats=RunStats()))
    assert cancelled.run == "cancelled" and cancelled.entries == (
        NoticeEntry("cancelled", "warning"),
    )
    limit = reduce(
        base,
        RunFinished(
            stop_reason="max_steps",
            answer=None,
            stats=RunStats(steps=2),
            error="no answer within 2 steps",
        ),
    )
    assert limit.entries == (NoticeEntry("no answer within 2 steps", "warning"),)  # said once


def test_a_follow_up_keeps_the_earlier_entries(make_session: SessionFactory) -> None:
    session, model = make_session([reply("first"), reply("second")])
    state = reduce_all(session.ask("one"))
    state = reduce_all(session.ask("two"), state)
    texts = [getattr(e, "text", None) for e in state.entries]
    assert texts[1:] == ["one", "first", "two", "second"]
    assert isinstance(state.entries[0], SystemEntry) and state.runs == 2
    assert [m.content for m in model.requests[1]][1:] == ["one", "first", "two"]


def test_a_replayed_follow_up_says_it_continues() -> None:
    history: tuple[Message, ...] = (
        system("prompt"),
        user("one"),
        assistant(None, (call("list_docs"),)),
    )
    history += (assistant("first answer"),)
    state = reduce(ViewState(), RunStarted(question="two", model="m", max_steps=8, history=history))
    assert state.entries == (
        NoticeEntry("continues a conversation of 1 earlier question"),
        SystemEntry("prompt"),
        UserEntry("one"),
        TurnEntry(0, TextParts("first answer"), streaming=False, answer=True),
    )


def test_reduce_never_mutates() -> None:
    state = ViewState()
    after = reduce(state, RunStarted(question="q", model="m", max_steps=8))
    assert state == ViewState() and after is not state
    assert reduce(
        after,
        RunFinished(
            stop_reason="answered",
            answer="a",
            stats=RunStats(steps=1, tool_calls=0, usage=Usage(1, 2)),
        ),
    ).usage == Usage(1, 2)


def test_card_running_until_finished() -> None:
    state = reduce(ViewState(), RunStarted(question="q", model="m", max_steps=8))
    started = ToolCallStarted(step=1, tool_call_id="c1", name="read_doc", arguments='{"p": 1}')
    state = reduce(state, started)
    turn = state.entries[-1]
    assert isinstance(turn, TurnEntry) and state.run == "running tool"
    assert turn.cards == (Card("c1", "read_doc", '{"p": 1}'),) and turn.cards[0].running
    state = reduce(
        state,
        ToolCallFinished(
            step=1, tool_call_id="c1", name="read_doc", output="", error=False, duration_s=0.5
        ),
    )
    turn = state.entries[-1]
    assert isinstance(turn, TurnEntry) and state.tool_calls == 1
    assert turn.cards == (Card("c1", "read_doc", '{"p": 1}', "", False, 0.5),)
    assert not turn.cards[0].running  # an empty result is still a result


def test_twenty_thousand_events_reduce_to_every_entry() -> None:
    events = big_trace(3_400).events
    assert len(events) > 20_000
    end = reduce_all(events)
    assert len(end.entries) == 3_403 and (end.step, end.tool_calls) == (3_400, 3_400)
    turns = end.entries[2:-1]
    assert [t.step for t in turns if isinstance(t, TurnEntry)] == list(range(1, 3_401))
    last = turns[-1]
    assert isinstance(last, TurnEntry) and last.cards[0].call_id == "c3400"
    assert last.cards[0].output == "\n".join(["x"] * 10)
    assert end.entries[-1] == NoticeEntry("no answer: limit", "warning")


def test_replay_checkpoints_share_entries_and_going_back_forks_them() -> None:
    events = big_trace(2_000).events
    replayer = Replayer(events, [0.0] * len(events))
    end = replayer.seek(len(events))
    middle = replayer.seek(6_003)  # back to a checkpoint, then forward
    assert middle == reduce_all(events[:6_003]) and len(middle.entries) == 1_002
    assert end.entries[:1_002] == middle.entries
    checkpoint = 6_003 // 256 * 256  # the entries up to it are shared, not made again
    shared = (checkpoint - 3) // 6
    assert all(a is b for a, b in zip(end.entries[:shared], middle.entries, strict=False))
    assert replayer.seek(len(events)) == end == reduce_all(events)
    assert len(end.entries) == 2_003  # growing the fork left the first end state as it was


def test_a_long_stream_of_text_joins_once_and_earlier_states_stay() -> None:
    pieces = [f"w{n} " for n in range(20_000)]
    events: list[Event] = [
        RunStarted(question="q", model="m", max_steps=1),
        ModelRequested(step=1, n_messages=1),
    ]
    events += [TextDelta(step=1, text=piece) for piece in pieces]
    replayer = Replayer(events, [0.0] * len(events))
    tracemalloc.start()
    end = replayer.seek(len(events))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    text = "".join(pieces)
    assert peak < 20 * len(text)  # a copy of the text per checkpoint would be ~40x
    turn = end.entries[-1]
    assert isinstance(turn, TurnEntry) and turn.streaming and turn.text == text
    half = replayer.seek(10_002)
    assert isinstance(half.entries[-1], TurnEntry)
    assert half.entries[-1].text == "".join(pieces[:10_000])
    assert turn.text == text  # going back and forth leaves the final state as it was


def test_a_run_that_ends_during_a_tool_call_closes_its_card() -> None:
    started = reduce_all(
        [
            RunStarted(question="q", model="m", max_steps=8),
            ModelRequested(step=1, n_messages=2),
            TextDelta(step=1, text="Let me look"),
            ToolCallStarted(step=1, tool_call_id="c1", name="read_doc", arguments="{}"),
        ]
    )
    ended = reduce(started, RunFinished(stop_reason="cancelled", answer=None, stats=RunStats()))
    note = "(no result: the run ended before this call finished)"
    assert ended.entries == (
        TurnEntry(
            1, TextParts("Let me look"), (Card("c1", "read_doc", "{}", note, error=True),), False
        ),
        NoticeEntry("cancelled", "warning"),
    )


def checking_script() -> list:  # type: ignore[type-arg]
    """Reads lines 1-10, repeats that read, then cites them and lines 20-25 it never read."""
    read = call("read_doc", {"path": "advanced/timeouts.md", "start": 1, "end": 10})
    return [
        reply(None, read),
        reply(None, call("read_doc", {"path": "advanced/timeouts.md", "start": 1, "end": 10})),
        reply("Five seconds (advanced/timeouts.md:3-3; advanced/timeouts.md:20-25)."),
    ]


def test_an_answer_citing_unread_lines_names_them(make_session: SessionFactory) -> None:
    state = reduce_all(run(make_session, checking_script()))
    answer = state.entries[-1]
    assert isinstance(answer, TurnEntry) and answer.answer
    assert answer.unread == ("advanced/timeouts.md:20-25",)
    assert [e.name for e in state.results] == ["read_doc", "read_doc"]


def test_an_answer_citing_a_pdf_notes_the_pages_its_reads_showed(
    make_session: SessionFactory, docs: Path
) -> None:
    pdf = pdf_bytes(PAGES, labels={0: "/S /r", 2: "/S /D"}, outline=OUTLINE)
    (docs / "guide.pdf").write_bytes(pdf)
    script = [
        reply(None, call("read_doc", {"path": "guide.pdf", "start": 8, "end": 12})),
        reply("Copy the wheels (guide.pdf:10-11), as the preface says (guide.pdf:4-5)."),
    ]
    answer = reduce_all(run(make_session, script)).entries[-1]
    assert isinstance(answer, TurnEntry)
    assert answer.pages == ("guide.pdf:10-11 (p. 2)",)  # 4-5 was never read: no page known
    assert answer.unread == ("guide.pdf:4-5",)


def test_a_follow_up_is_checked_against_its_own_run_only(make_session: SessionFactory) -> None:
    session, _ = make_session([*checking_script()[:1], reply("ok"), reply("(clients.md:1-3)")])
    state = reduce_all(session.ask("one"))
    state = reduce_all(session.ask("two (advanced/timeouts.md:1-10)"), state)
    assert state.results == ()  # the follow-up read nothing itself
    answer = state.entries[-1]
    assert isinstance(answer, TurnEntry) and answer.unread == ("clients.md:1-3",)


def test_a_repeated_call_is_marked_on_its_card_and_counted(make_session: SessionFactory) -> None:
    state = reduce_all(run(make_session, checking_script()))
    cards = [c for e in state.entries if isinstance(e, TurnEntry) for c in e.cards]
    assert [c.repeat_of for c in cards] == [None, 1]
    assert state.repeats == 1


def test_compaction_is_counted_and_said_in_a_line() -> None:
    state = reduce(ViewState(), RunStarted(question="q", model="m", max_steps=9))
    stubs = tuple(f"[read a.md:{n}-{n + 9} at step {n} — shortened]" for n in range(1, 6))
    state = reduce(state, ContextCompacted(step=7, stubs=stubs[:1], tokens_saved=400))
    state = reduce(state, ContextCompacted(step=8, stubs=stubs[1:], tokens_saved=2000))
    assert (state.compacted, state.tokens_saved) == (5, 2400)
    assert state.entries == (
        NoticeEntry(
            "context shortened before step 7: 1 earlier result replaced by a stub (≈−400 tok): "
            "read a.md:1-10 at step 1"
        ),
        NoticeEntry(
            "context shortened before step 8: 4 earlier results replaced by stubs (≈−2,000 tok): "
            "read a.md:2-11 at step 2; read a.md:3-12 at step 3; read a.md:4-13 at step 4; 1 more"
        ),
    )
    again = reduce(state, RunStarted(question="q2", model="m", max_steps=9))
    assert (again.compacted, again.tokens_saved) == (0, 0)  # counted per run, like the totals
    # A follow-up's earlier results are shortened before its first step (step 0 in the events).
    follow_up = reduce(again, ContextCompacted(step=0, stubs=stubs[:1], tokens_saved=400))
    assert follow_up.entries[-1] == NoticeEntry(
        "context shortened before the first step: 1 earlier result replaced by a stub "
        "(≈−400 tok): read a.md:1-10 at step 1"
    )


def test_a_reply_cut_short_is_markdown_and_the_last_answer_stays() -> None:
    answered = reduce_all(
        [
            RunStarted(question="one", model="m", max_steps=8),
            ModelRequested(step=1, n_messages=2),
            TextDelta(step=1, text="**Five** seconds."),
            RunFinished(stop_reason="answered", answer="**Five** seconds.", stats=RunStats()),
        ]
    )
    assert answered.answer == answered.last_answer == "**Five** seconds."
    follow_up = reduce_all(
        [
            RunStarted(question="two", model="m", max_steps=8),
            ModelRequested(step=1, n_messages=4),
            TextDelta(step=1, text="Use `timeout="),
        ],
        answered,
    )
    ended = reduce(follow_up, RunFinished(stop_reason="cancelled", answer=None, stats=RunStats()))
    cut = ended.entries[-2]
    assert isinstance(cut, TurnEntry) and cut.text == "Use `timeout="
    assert cut.partial and cut.markdown and not cut.answer and not cut.streaming
    assert ended.answer is None and ended.last_answer == "**Five** seconds."
    assert not any(e.partial for e in answered.entries if isinstance(e, TurnEntry))
    assert ViewState().last_answer is None


def test_token_counters_move_while_a_reply_streams_and_the_servers_usage_replaces_them() -> None:
    from agent.events import ModelReplied
    from tui.render import tokens

    state = reduce_all(
        [
            RunStarted(question="q", model="m", max_steps=8),
            ModelRequested(step=1, n_messages=2),
            ModelReplied(step=1, usage=Usage(100, 10), total=Usage(100, 10), duration_s=1.0),
            ModelRequested(step=2, n_messages=4),
        ]
    )
    assert tokens(state.usage) == "100 in + 10 out = 110 tokens"
    moving = []
    for piece in ("Run ", "`docsagent", " replay", "`."):
        state = reduce(state, TextDelta(step=2, text=piece))
        moving.append(tokens(state.usage))
    assert moving == [
        "≈100 in + 11 out = ≈111 tokens",
        "≈100 in + 14 out = ≈114 tokens",
        "≈100 in + 16 out = ≈116 tokens",
        "≈100 in + 17 out = ≈117 tokens",
    ]
    total = Usage(300, 25)
    state = reduce(state, ModelReplied(step=2, usage=Usage(200, 15), total=total, duration_s=2.0))
    assert tokens(state.usage) == "300 in + 25 out = 325 tokens"  # the server's count, exact
