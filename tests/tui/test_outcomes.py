"""The one table of endings, and that the header, the transcript, `ask` and the picker use it."""

from __future__ import annotations

from typing import get_args

import pytest

from agent import RunFinished, RunStarted, RunStats, StopReason, ToolCallFinished, ToolCallStarted
from tui.commands.printer import summary_line
from tui.outcomes import OUTCOMES, ending_notice, outcome_label
from tui.render import answer_notes, run_label
from tui.state import RunState, ViewState, cut_short, reduce, reduce_all
from tui.transcript.entries import NoticeEntry, TurnEntry


def test_every_stop_reason_and_a_cut_short_trace_has_one_row() -> None:
    assert set(OUTCOMES) == {*get_args(StopReason), "interrupted", "declined", "read_nothing"}
    assert set(OUTCOMES) <= set(get_args(RunState))


@pytest.mark.parametrize(
    "outcome, error, line, level",
    [
        ("cancelled", None, "cancelled", "warning"),
        ("cancelled", "interrupted", "cancelled (interrupted)", "warning"),
        ("error", None, "error: the run failed", "error"),
        ("error", "boom", "error: boom", "error"),
        ("max_steps", None, "no answer: step limit reached", "warning"),
        ("budget", "10 tokens used", "no answer: 10 tokens used", "warning"),
        ("interrupted", None, "the trace ends here: the run was interrupted", "warning"),
    ],
)
def test_the_line_that_closes_a_transcript(
    outcome: str, error: str | None, line: str, level: str
) -> None:
    assert ending_notice(outcome, error) == (line, level)


@pytest.mark.parametrize("reason", get_args(StopReason))
def test_every_view_of_an_ending_reads_the_table(reason: StopReason) -> None:
    row = OUTCOMES[reason]
    event = RunFinished(stop_reason=reason, answer=None, stats=RunStats(), error="why")
    header = run_label(reason)
    assert (header.plain, str(header.style)) == (f"● {row.label}", row.style)
    assert summary_line(event).startswith(f"{row.summary} after 0 steps")
    assert outcome_label(reason) == row.label
    if reason != "answered":
        assert reduce(ViewState(), event).entries[-1] == NoticeEntry(*ending_notice(reason, "why"))


def test_labels_for_what_is_not_a_stop_reason() -> None:
    assert outcome_label("not a trace") == "not a trace"
    assert outcome_label("max_steps") == "step limit"
    assert run_label("thinking").plain == "● thinking"
    assert cut_short(ViewState()).entries[-1] == NoticeEntry(
        "the trace ends here: the run was interrupted", "warning"
    )
    assert [OUTCOMES[r].exit_code for r in get_args(StopReason)] == [0, 3, 3, 3, 3, 3, 130, 1, 0, 0]


def answered(text: str, *, read: bool) -> list[object]:
    """A run that answers `text`, after one read_doc call when `read`."""
    calls = [
        ToolCallStarted(step=1, tool_call_id="c1", name="read_doc", arguments="{}"),
        ToolCallFinished(
            step=1, tool_call_id="c1", name="read_doc", output="x", error=False, duration_s=0
        ),
    ]
    stats = RunStats(steps=2 if read else 1, tool_calls=1 if read else 0)
    return [
        RunStarted(question="q", model="m", max_steps=8),
        *(calls if read else []),
        RunFinished(stop_reason="answered", answer=text, stats=stats),
    ]


def test_a_decline_shows_as_a_decline_in_the_header_transcript_and_summary() -> None:
    events = answered("The docs do not seem to cover bread.", read=True)
    state = reduce_all(events)  # type: ignore[arg-type]
    assert state.run == "declined" and run_label(state.run).plain == "● declined"
    answer = state.entries[-1]
    assert isinstance(answer, TurnEntry) and answer.answer and answer.outcome == "declined"
    assert answer_notes((), answer.outcome).plain == (
        "declined: the answer cites none of the docs (they do not seem to cover this)"
    )
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    line = summary_line(finished, outcome="declined", model="offline")
    assert line.startswith("declined after 2 steps · 1 tool call")
    assert "· model offline" in line
    cited = reduce_all(answered("It is guide.md:3.", read=True))  # type: ignore[arg-type]
    assert cited.run == "answered" and isinstance(cited.entries[-1], TurnEntry)
    assert answer_notes((), "answered").plain == ""


def test_an_answer_that_read_nothing_says_so_and_points_at_the_providers_page() -> None:
    state = reduce_all(answered("Use fetch() (guide.md:3).", read=False))  # type: ignore[arg-type]
    assert state.run == "read_nothing"
    assert run_label(state.run).plain == "● answered without reading the docs"
    answer = state.entries[-1]
    assert isinstance(answer, TurnEntry) and answer.outcome == "read_nothing"
    note = answer_notes(("guide.md:3",), answer.outcome).plain.splitlines()
    assert note[0].startswith("answered without reading the docs: the model called no tool; ")
    assert "may not support tools" in note[0] and "providers.md" in note[0]
    assert note[1] == "⚠ cites guide.md:3, which this run never read"
    assert [OUTCOMES[o].exit_code for o in ("declined", "read_nothing")] == [0, 0]
