"""The traces folder: a name for each new trace, and the list of recent runs.

The list reads only each file's header line and its last line (read backwards from the
end, in blocks, however long it is up to the trace reader's line cap), so a folder of
large or damaged traces lists quickly; the format itself is `agent.trace`'s."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from agent.errors import TraceError
from agent.events import RunFinished
from agent.outcome import run_outcome
from agent.tools.citations import find_citations
from agent.trace import FORMAT, MAX_LINE_BYTES, event_from_dict, open_trace_file, parse_line


def trace_filename(question: str, now: datetime | None = None) -> str:
    """A file name for a new trace: time stamp and a slug of the question."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S-%f")[:-3]
    slug = re.sub(r"[^a-z0-9]+", "-", question.lower()).strip("-")[:40].strip("-")
    return f"{stamp}-{slug or 'run'}.jsonl"


MAX_TRACES = 50
TAIL_BYTES = 65536  # the final line is read backwards from the end in blocks of this size
UNREADABLE_ENDING = "unreadable ending"  # the last line is longer than the reader accepts
SUMMARY_HEADER_BYTES = 1024 * 1024  # a header line longer than this is not listed as a trace


@dataclass(frozen=True)
class TraceSummary:
    """A trace file, what its header says, and how the run ended (`run_outcome`: a stop
    reason, declined or read_nothing; "interrupted" when the final event is missing,
    "unreadable ending" when the last line is longer than a trace line may be, or
    "not a trace")."""

    path: Path
    question: str
    model: str
    outcome: str = "interrupted"
    docs: str = ""  # the docs folder the run answered from, as the header gives it


def _summary(path: Path) -> TraceSummary:
    header: Any = None
    outcome = "interrupted"
    try:
        with open_trace_file(path) as stream:
            header = parse_line(stream.readline(SUMMARY_HEADER_BYTES))
            outcome = _outcome(stream)
    except (TraceError, OSError, ValueError):
        pass
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        return TraceSummary(path, "?", "?", "not a trace")
    question, model = header.get("question", "?"), header.get("model", "?")
    docs = header.get("docs", "")
    return TraceSummary(
        path,
        question if isinstance(question, str) else "?",
        model if isinstance(model, str) else "?",
        outcome,
        docs if isinstance(docs, str) else "",
    )


def _outcome(stream: IO[bytes]) -> str:
    """How the run ended, from the trace's last line: as `run_outcome` tells it (so a
    decline is "declined", as the replay of it says), "interrupted", or "unreadable
    ending"."""
    last = _last_line(stream)
    if last is None:
        return UNREADABLE_ENDING
    try:
        data = parse_line(last)
    except ValueError:
        return "interrupted"
    if not isinstance(data, dict) or data.get("type") != "run_finished":
        return "interrupted"
    try:
        finished = event_from_dict(data)
    except ValueError:
        finished = None
    if not isinstance(finished, RunFinished):
        reason = data.get("stop_reason")
        return reason if isinstance(reason, str) else "?"
    # Only whether the answer cites anything matters here, so no docs are needed.
    return run_outcome(finished, find_citations(finished.answer or "", None))


def _last_line(stream: IO[bytes]) -> bytes | None:
    """The file's last line (trailing newlines aside), read backwards from the end in
    blocks, or None when it is longer than MAX_LINE_BYTES."""
    position = stream.seek(0, 2)
    blocks: list[bytes] = []
    size = 0
    while position > 0:
        step = min(TAIL_BYTES, position)
        position -= step
        stream.seek(position)
        block = stream.read(step)
        if not blocks:
            block = block.rstrip(b"\n")
            if not block:
                continue
        start = block.rfind(b"\n") + 1
        blocks.append(block[start:])
        size += len(block) - start
        if size >= MAX_LINE_BYTES:  # with its newline, more than the reader accepts
            return None
        if start:
            break
    return b"".join(reversed(blocks))


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:  # a dangling link, or a file removed since the listing
        return 0.0


def recent_traces(folder: Path, *, limit: int = MAX_TRACES) -> list[TraceSummary]:
    """The newest `limit` traces in `folder` (none if it does not exist)."""
    if not folder.is_dir():
        return []
    files = sorted(folder.glob("*.jsonl"), key=lambda p: (_modified(p), p.name), reverse=True)
    return [_summary(path) for path in files[:limit]]
