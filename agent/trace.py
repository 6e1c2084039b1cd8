"""The trace format, owned here and nowhere else.

A trace is append-only JSON Lines, flushed as written: a header line (what was asked of
what, never the key), then one line per event with `seq` and `t`. This module holds the
event codec, the header, the writer, the reader (with its version check) and the short
summaries the recent-traces list shows."""

from __future__ import annotations

import dataclasses
import json
import re
import threading
import time
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from agent.errors import TraceError
from agent.events import EVENT_TYPES, Event, RunFinished, RunStats, StopReason, Usage
from agent.messages import Message

if TYPE_CHECKING:
    from agent.loop import Agent

FORMAT = "docsagent-trace"
VERSION = 1


def _encode(value: Any) -> Any:
    if isinstance(value, Message):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_encode(v) for v in value]
    return value


def event_to_dict(event: Event) -> dict[str, Any]:
    """The event as a JSON-ready dict with its `type`."""
    data = _encode(event)
    return {"type": event.kind, **data}


_PLAIN: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "float": (int, float),
    "str": (str,),
    "bool": (bool,),
    "StopReason": (str,),
}


def _build(cls: type[Any], data: Any) -> Any:
    """`cls(**data)` after checking that each plain field has the annotated type."""
    if not isinstance(data, dict):
        raise ValueError(f"{cls.__name__} needs an object")
    fields = {f.name: str(f.type) for f in dataclasses.fields(cls)}
    kwargs = {key: value for key, value in data.items() if key in fields}
    for key, value in kwargs.items():
        kind, _, optional = fields[key].partition(" | ")
        if value is None:
            if optional == "None":
                continue
            raise ValueError(f"{cls.__name__}.{key} is missing")
        if kind == "StopReason" and value not in typing.get_args(StopReason):
            raise ValueError(f"{cls.__name__}.{key} is not a stop reason")
        expected = _PLAIN.get(kind)
        wrong_bool = isinstance(value, bool) and bool not in expected if expected else False
        if expected and (not isinstance(value, expected) or wrong_bool):
            raise ValueError(f"{cls.__name__}.{key} has the wrong type")
    return cls(**kwargs)


def _message(data: Any) -> Message:
    if not isinstance(data, dict) or not isinstance(data.get("role"), str):
        raise ValueError("a message needs a role")
    return Message.from_dict(data)


def _stats(data: Any) -> RunStats:
    stats: RunStats = _build(RunStats, {k: v for k, v in data.items() if k != "usage"})
    return dataclasses.replace(stats, usage=_build(Usage, data.get("usage") or {}))


_DECODERS: dict[str, Any] = {
    "message": _message,
    "usage": lambda data: _build(Usage, data),
    "total": lambda data: _build(Usage, data),
    "stats": lambda data: _stats(data) if isinstance(data, dict) else _build(RunStats, data),
    "history": lambda items: tuple(_message(m) for m in items),
    "stubs": lambda items: tuple(str(item) for item in items),
    "tool_call_ids": lambda items: tuple(str(item) for item in items),
}


def event_from_dict(data: dict[str, Any]) -> Event | None:
    """Rebuild an event from `event_to_dict` output; None for an unknown type.

    Raises ValueError (or TypeError) for a line whose fields do not fit the event.
    """
    cls = EVENT_TYPES.get(str(data.get("type")))
    if cls is None:
        return None
    decoded = {
        key: _DECODERS[key](value) if key in _DECODERS and value is not None else value
        for key, value in data.items()
    }
    event: Event = _build(cls, decoded)
    return event


def trace_header(agent: Agent, question: str) -> dict[str, Any]:
    """The header line of a run's trace: what was asked of what, never the key."""
    return {
        "question": question,
        "model": agent.model.name,
        "endpoint": agent.endpoint,
        "docs": agent.docs,
        "max_steps": agent.max_steps,
        "max_observation_chars": agent.max_observation_chars,
        "tools": agent.tools.schemas(),
    }


class TraceWriter:
    """Writes a header line, then one line per event with `seq` and `t`.

    Safe to share between threads. The trace ends at its first `RunFinished`: a run that
    was given up on (see `Session.close`) may still emit events, and they are dropped.
    """

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
        self._lock = threading.Lock()
        self.finished = False  # whether the run's final event is written
        self._line({"type": "header", "format": FORMAT, "version": VERSION, **header})

    def _line(self, data: dict[str, Any]) -> None:
        if self._file is None:
            raise ValueError("the trace is closed")
        self._file.write(json.dumps(data, ensure_ascii=False) + "\n")
        self._file.flush()

    def write(self, event: Event) -> None:
        """Append one event; nothing is written after the run's final event."""
        with self._lock:
            if self.finished:
                return
            self._seq += 1
            elapsed = round(self._clock() - self._start, 3)
            self._line({"seq": self._seq, "t": elapsed, **event_to_dict(event)})
            self.finished = isinstance(event, RunFinished)

    def close(self) -> None:
        """Close the file (idempotent)."""
        with self._lock:
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


MAX_TRACES = 50
TAIL_BYTES = 65536  # the final event is read from the end of the file


@dataclass(frozen=True)
class TraceSummary:
    """A trace file, what its header says, and how the run ended (a stop reason,
    "interrupted" when the final event is missing, or "not a trace")."""

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
    if not isinstance(header, dict) or header.get("format") != FORMAT:
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
        return str(data.get("stop_reason", "?"))
    return "interrupted"


def recent_traces(folder: Path, *, limit: int = MAX_TRACES) -> list[TraceSummary]:
    """The newest `limit` traces in `folder` (none if it does not exist)."""
    if not folder.is_dir():
        return []
    files = sorted(folder.glob("*.jsonl"), key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    return [_summary(path) for path in files[:limit]]
