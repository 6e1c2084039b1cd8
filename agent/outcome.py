"""How a run turned out, beyond its stop reason: an answer, a decline, or an answer that
read nothing.

- `declined`: the run answered, called a tool, and its answer cites nothing (or its final
  output says `"declined": true`). docsagent asks every model to cite what it read, so an
  answer without a citation is one the docs do not back: the model found nothing.
- `read_nothing`: the run answered without calling any tool. Whatever it says, it is not
  from the docs; a model that never calls a tool may not support tools at all.
- `answered`: any other answer. A run that did not answer keeps its stop reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from agent.events import RunFinished, StopReason
from agent.tools.citations import Citation

Outcome = StopReason | Literal["declined", "read_nothing"]


def run_outcome(finished: RunFinished, citations: Sequence[Citation]) -> Outcome:
    """How the run ended: its stop reason, or for an answer `declined` or `read_nothing`.

    `citations` are the answer's (`find_citations`; without docs is enough).
    """
    if finished.stop_reason != "answered":
        return finished.stop_reason
    if finished.stats.tool_calls == 0:
        return "read_nothing"
    flagged = bool(finished.output and finished.output.get("declined") is True)
    return "declined" if flagged or not citations else "answered"


def is_decline(finished: RunFinished, citations: Sequence[Citation]) -> bool:
    """Whether the run declined: it answered after reading, and cites nothing (or says so)."""
    return run_outcome(finished, citations) == "declined"
