"""Recent traces in a folder, newest first, with the question each one asked."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

MAX_TRACES = 50
OUTCOMES = {"max_steps": "step limit", "budget": "budget used up"}  # as the header says them
TAIL_BYTES = 65536  # the final event is read from the end of the file


@dataclass(frozen=True)
class TraceSummary:
    """A trace file and what its header says."""

    path: Path
    question: str
    model: str
    outcome: str = "interrupted"


def _summary(path: Path) -> TraceSummary:
    try:
        with path.open(encoding="utf-8") as file:
            header = json.loads(file.readline())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        header = {}
    if not isinstance(header, dict) or header.get("format") != "docsagent-trace":
        return TraceSummary(path, "?", "?", "not a trace")
    question, model = str(header.get("question", "?")), str(header.get("model", "?"))
    return TraceSummary(path, question, model, _outcome(path))


def _outcome(path: Path) -> str:
    """How the run ended, from the trace's last line: its stop reason, or "interrupted"."""
    try:
        with path.open("rb") as file:
            file.seek(max(file.seek(0, 2) - TAIL_BYTES, 0))
            last = file.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        data = json.loads(last)
    except (OSError, ValueError):
        return "interrupted"
    if isinstance(data, dict) and data.get("type") == "run_finished":
        reason = str(data.get("stop_reason", "?"))
        return OUTCOMES.get(reason, reason)
    return "interrupted"


def recent_traces(folder: Path, *, limit: int = MAX_TRACES) -> list[TraceSummary]:
    """The newest `limit` traces in `folder` (none if it does not exist)."""
    if not folder.is_dir():
        return []
    files = sorted(folder.glob("*.jsonl"), key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    return [_summary(path) for path in files[:limit]]
