"""How each way a run can end is shown: one row per stop reason (and for a cut-short trace).

The header, the trace picker, the line that closes a transcript, `ask`'s summary line
and its exit code all read this table, so an ending is worded the same everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

NoticeLevel = Literal["info", "warning", "error"]


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """How one ending is shown."""

    label: str
    """In the header and the trace picker: "step limit"."""
    style: str
    """The rich style of the label."""
    summary: str
    """How `ask`'s closing line starts: "no answer" (then "after 3 steps")."""
    notice: str
    """The line that closes the transcript; `{}` is the run's error, or `detail`."""
    detail: str | None = None
    """What `{}` says when the run gives no error; with neither, the notice is the label."""
    level: NoticeLevel = "warning"
    exit_code: int


OUTCOMES: dict[str, Outcome] = {
    "answered": Outcome(
        label="answered", style="bold green", summary="answered", notice="{}", level="info",
        exit_code=0,
    ),
    "truncated": Outcome(
        label="cut short", style="bold magenta", summary="cut short", notice="cut short: {}",
        detail="the reply stopped at the length limit", exit_code=3,
    ),
    "empty": Outcome(
        label="no answer: empty reply", style="bold magenta", summary="no answer",
        notice="no answer: {}", detail="the model sent an empty reply", exit_code=3,
    ),
    "max_steps": Outcome(
        label="step limit", style="bold magenta", summary="no answer", notice="no answer: {}",
        detail="step limit reached", exit_code=3,
    ),
    "budget": Outcome(
        label="budget used up", style="bold magenta", summary="stopped: token budget",
        notice="no answer: {}", detail="budget", exit_code=3,
    ),
    "repeated": Outcome(
        label="stopped: repeated call", style="bold magenta", summary="stopped: repeated call",
        notice="no answer: {}",
        detail="the model repeated the same call twice in a row", exit_code=3,
    ),
    "cancelled": Outcome(
        label="cancelled", style="bold magenta", summary="cancelled", notice="cancelled ({})",
        exit_code=130,
    ),
    "error": Outcome(
        label="error", style="bold red", summary="failed", notice="error: {}",
        detail="the run failed", level="error", exit_code=1,
    ),
    "interrupted": Outcome(
        label="interrupted", style="bold magenta", summary="interrupted",
        notice="the trace ends here: {}", detail="the run was interrupted", exit_code=130,
    ),
}  # fmt: skip
"""By stop reason, and "interrupted" for a trace that ends without its final event."""


def outcome_label(outcome: str) -> str:
    """How a run ended, in words (a stop reason, "interrupted", or as given: "not a trace")."""
    found = OUTCOMES.get(outcome)
    return found.label if found else outcome


def ending_notice(outcome: str, error: str | None) -> tuple[str, NoticeLevel]:
    """The line (and its level) that closes a transcript which ended this way."""
    row = OUTCOMES[outcome]
    detail = error or row.detail
    return (row.notice.format(detail) if detail else row.label), row.level
