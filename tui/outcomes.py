"""How each way a run can end is shown: one row per stop reason (and for a cut-short trace),
and one per way an answer can turn out (`agent.run_outcome`: a decline, an answer that
read nothing).

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


TOOLS_HINT = "the model or server may not support tools (see providers.md in the manual)"
"""Said when a model answered without calling any of the tools it was offered."""

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
    "disconnected": Outcome(
        label="disconnected", style="bold green", summary="session ended",
        notice="disconnected: {}", detail="the client closed the session", level="info",
        exit_code=0,
    ),
    "ended": Outcome(  # a served session's normal end in version 1 traces
        label="session ended", style="bold green", summary="session ended",
        notice="session ended: {}", detail="the client closed the session", level="info",
        exit_code=0,
    ),
    "interrupted": Outcome(
        label="interrupted", style="bold magenta", summary="interrupted",
        notice="the trace ends here: {}", detail="the run was interrupted", exit_code=130,
    ),
}  # fmt: skip
"""By stop reason, and "interrupted" for a trace that ends without its final event."""

ANSWER_OUTCOMES: dict[str, Outcome] = {
    "declined": Outcome(
        label="declined", style="bold yellow", summary="declined", notice="declined: {}",
        detail="the answer cites none of the docs (they do not seem to cover this)",
        level="info", exit_code=0,
    ),
    "read_nothing": Outcome(
        label="answered without reading the docs", style="bold yellow",
        summary="answered without reading the docs", notice="{}",
        detail="answered without reading the docs: the model called no tool", exit_code=0,
    ),
}  # fmt: skip
"""By `agent.run_outcome` for an answer that is not a plain one; shown under the answer.

A decline exits 0 like an answer: the run worked and says the docs do not cover the
question. `--json`'s `outcome` (or `declined`) tells them apart."""
OUTCOMES.update(ANSWER_OUTCOMES)


def outcome_label(outcome: str) -> str:
    """How a run ended, in words (a stop reason, "interrupted", or as given: "not a trace")."""
    found = OUTCOMES.get(outcome)
    return found.label if found else outcome


def ending_notice(outcome: str, error: str | None) -> tuple[str, NoticeLevel]:
    """The line (and its level) that closes a transcript which ended this way."""
    row = OUTCOMES[outcome]
    detail = error or row.detail
    if not detail:
        return row.label, row.level
    said = row.notice.format(detail)
    prefix = row.notice.split("{}")[0]
    if prefix and detail.startswith(prefix.rstrip(": ")):  # "no answer within 8 steps"
        said = detail
    return said, row.level


def answer_note(outcome: str) -> tuple[str, NoticeLevel] | None:
    """The line under an answer that is a decline or read nothing (None for an answer)."""
    if outcome not in ANSWER_OUTCOMES:
        return None
    text, level = ending_notice(outcome, None)
    return (f"{text}; {TOOLS_HINT}" if outcome == "read_nothing" else text), level
