"""The replay position: checkpoints give the states the reducer gives; delays follow the trace."""

from __future__ import annotations

import pytest

from tests.tui.conftest import big_trace
from tui.replayer import Replayer
from tui.state import reduce_all


def test_replayer_checkpoints_give_the_same_states() -> None:
    trace = big_trace(100)
    replayer = Replayer(trace.events, trace.times)
    end = replayer.seek(len(trace.events))
    assert end == reduce_all(trace.events)
    assert replayer.seek(300) == reduce_all(trace.events[:300])
    assert replayer.seek(-5) == reduce_all([])
    replayer.seek(10)
    assert replayer.next_delay() == pytest.approx(0.001)
    replayer.speed = 0.5
    assert replayer.next_delay() == pytest.approx(0.002)


def test_the_end_of_an_interrupted_trace_is_shown_as_cut_short() -> None:
    from agent.events import RunStarted, ToolCallStarted
    from tui.transcript.entries import NoticeEntry, TurnEntry

    events = [
        RunStarted(question="q", model="m", max_steps=8),
        ToolCallStarted(step=1, tool_call_id="c1", name="read_doc", arguments="{}"),
    ]
    replayer = Replayer(events, [0.0, 0.1], complete=False)
    assert replayer.forward().run == "thinking"  # not yet at the end
    end = replayer.forward()
    assert end.run == "interrupted"
    turn = end.entries[-2]
    assert isinstance(turn, TurnEntry)
    assert turn.cards[0].output == "(no result: the trace ends before this call finished)"
    assert end.entries[-1] == NoticeEntry("the trace ends here: the run was interrupted", "warning")
    assert replayer.seek(1).run == "thinking"  # stepping back shows the recorded state again


@pytest.mark.parametrize("whole", [False, True])
def test_a_trace_cut_off_in_its_answer_shows_the_reply_as_markdown(whole: bool) -> None:
    """Cut off while the answer streamed, or after its whole message but before the final
    event (the last line damaged mid-write): either way the reply shows as Markdown."""
    from agent.events import MessageAppended, ModelRequested, RunStarted, TextDelta
    from agent.messages import assistant
    from tui.transcript.entries import TurnEntry

    text = "Use `docsagent replay FILE` (replay.md:3)."
    events = [
        RunStarted(question="q", model="m", max_steps=8),
        ModelRequested(step=1, n_messages=2),
        TextDelta(step=1, text=text),
    ]
    if whole:
        events.append(MessageAppended(step=1, message=assistant(text)))
    end = Replayer(events, [0.0] * len(events), complete=False).seek(len(events))
    turn = end.entries[-2]
    assert isinstance(turn, TurnEntry) and turn.text == text
    assert turn.partial and turn.markdown and not turn.answer and not turn.streaming
    assert end.run == "interrupted"
