"""Recent traces in a folder, newest first, with the question each one asked."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

MAX_TRACES = 50


@dataclass(frozen=True)
class TraceSummary:
    """A trace file and what its header says."""

    path: Path
    question: str
    model: str


def _summary(path: Path) -> TraceSummary:
    try:
        with path.open(encoding="utf-8") as file:
            header = json.loads(file.readline())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        header = {}
    if not isinstance(header, dict):
        header = {}
    return TraceSummary(path, str(header.get("question", "?")), str(header.get("model", "?")))


def recent_traces(folder: Path, *, limit: int = MAX_TRACES) -> list[TraceSummary]:
    """The newest `limit` traces in `folder` (none if it does not exist)."""
    if not folder.is_dir():
        return []
    files = sorted(folder.glob("*.jsonl"), key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    return [_summary(path) for path in files[:limit]]
