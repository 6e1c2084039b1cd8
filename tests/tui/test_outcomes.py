"""The one table of endings, and that the header, the transcript, `ask` and the picker use it."""

from __future__ import annotations

from typing import get_args

import pytest

from agent import RunFinished, RunStats, StopReason
from tui.outcomes import OUTCOMES, ending_notice, outcome_label
from tui.printer import summary_line
from tui.render import run_label
from tui.state import NoticeEntry, RunState, ViewState, cut_short, reduce


def test_every_stop_reason_and_a_cut_short_trace_has_one_row() -> None:
    assert set(OUTCOMES) == {*get_args(StopReason), "interrupted"}
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
    assert [OUTCOMES[r].exit_code for r in get_args(StopReason)] == [0, 3, 3, 3, 3, 3, 130, 1]
