"""Trace files: append-only JSON Lines, one event per line, flushed as written."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from agent.errors import TraceError
from agent.events import Event, RunFinished, event_from_dict, event_to_dict

FORMAT = "docsagent-trace"
VERSION = 1


class TraceWriter:
    """Writes a header line, then one line per event with `seq` and `t`."""

    def __init__(
        self, path: Path, header: dict[str, Any], *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # backslashreplace: a lone surrogate (odd bytes in argv, say) becomes a JSON escape
        self._file: IO[str] | None = self.path.open(
            "w", encoding="utf-8", errors="backslashreplace"
        )
        self._clock = clock
        self._start = clock()
        self._seq = 0
        self.finished = False  # whether the run's final event is written
        self._line({"type": "header", "format": FORMAT, "version": VERSION, **header})

    def _line(self, data: dict[str, Any]) -> None:
        if self._file is None:
            raise ValueError("the trace is closed")
        self._file.write(json.dumps(data, ensure_ascii=False) + "\n")
        self._file.flush()

    def write(self, event: Event) -> None:
        """Append one event."""
        self._seq += 1
        elapsed = round(self._clock() - self._start, 3)
        self._line({"seq": self._seq, "t": elapsed, **event_to_dict(event)})
        self.finished = self.finished or isinstance(event, RunFinished)

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._file is not None:
            self._file.close()
            self._file = None


@dataclass
class Trace:
    """A trace read back: its header, its events with their times, and whether it is whole."""

    header: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    skipped: int = 0

    @property
    def complete(self) -> bool:
        """Whether the run's final event is there (otherwise the run was interrupted)."""
        return bool(self.events) and isinstance(self.events[-1], RunFinished)


def read_trace(path: Path | str) -> Trace:
    """Read a trace; tolerates a cut-off last line; TraceError when it cannot be read."""
    file = Path(path)
    if file.is_dir():
        raise TraceError(f"{file} is a folder, not a trace file")
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TraceError(f"no trace file at {file}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceError(f"cannot read trace {file}: {exc}") from None
    lines = text.split("\n")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        raise TraceError(f"{file} is not a docsagent trace (no header line)") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise TraceError(f"{file} is not a docsagent trace")
    version = header.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise TraceError(
            f"{file} is a version {version} trace; this docsagent reads version {VERSION}: "
            "upgrade docsagent to replay it"
        )
    trace = Trace(header)
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            event = event_from_dict(data)
            moment = float(data.get("t", 0.0))
        except (TypeError, KeyError, ValueError, AttributeError):  # JSONDecodeError too
            if number >= len(lines) - 1:
                break  # the line being written when the run stopped
            raise TraceError(f"{file}: line {number} is damaged") from None
        if event is None:
            trace.skipped += 1
            continue
        trace.events.append(event)
        trace.times.append(moment)
    return trace


def trace_filename(question: str, now: datetime | None = None) -> str:
    """A file name for a new trace: time stamp and a slug of the question."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S-%f")[:-3]
    slug = re.sub(r"[^a-z0-9]+", "-", question.lower()).strip("-")[:40].strip("-")
    return f"{stamp}-{slug or 'run'}.jsonl"
