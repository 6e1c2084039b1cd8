"""The trace format, owned here and nowhere else.

A trace is append-only JSON Lines, flushed as written: a header line (what was asked of
what, never the key), then one line per event with `seq` and `t`. This module holds the
event codec, the header, the writer and the reader (with its version check); the traces
folder (file names, the recent-traces list) is `agent.traces`."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import math
import os
import threading
import time
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from agent.errors import TraceError
from agent.events import EVENT_TYPES, Event, RunFinished, RunStarted
from agent.files import NotRegularFile, open_regular
from agent.messages import Message
from agent.newfile import create_new

if TYPE_CHECKING:
    from agent.loop import Agent

FORMAT = "docsagent-trace"
VERSION = 2
"""2: a served session's normal end is `disconnected` (1 said `ended`; both are read)."""


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


_INT_BOUND = 2**63  # counts and seconds beyond this are not from a real run


def _checked(value: Any, hint: Any, where: str) -> Any:
    """`value` read back as the annotation `hint`; ValueError saying which field is wrong.

    Numbers must be finite and within bounds, text must be text, and nested messages,
    usage and stats are checked field by field, so every event read is well typed.
    """
    if hint is Any:
        return value
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        if value is None and type(None) in args:
            return None
        (member,) = (a for a in args if a is not type(None))  # our unions are `X | None`
        return _checked(value, member, where)
    if origin is typing.Literal:
        if isinstance(value, str) and value in args:
            return value
        raise ValueError(f"{where} must be one of {', '.join(args)}")
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise ValueError(f"{where} must be true or false")
    if hint is int or hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{where} must be a number")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{where} must be a finite number")
        if abs(value) >= _INT_BOUND or (hint is int and not isinstance(value, int)):
            raise ValueError(f"{where} must be a whole number below 2**63")
        return float(value) if hint is float else value
    if hint is str:
        if isinstance(value, str):
            return value
        raise ValueError(f"{where} must be text")
    if origin is tuple:
        if not isinstance(value, list):
            raise ValueError(f"{where} must be a list")
        return tuple(_checked(item, args[0], where) for item in value)
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"{where} must be an object")
        return value
    if hint is Message:
        return Message.from_dict(value)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _build(hint, value)
    raise TypeError(f"no check for {hint!r}")  # a new field type: teach the reader


@functools.cache
def _fields(cls: Any) -> tuple[tuple[str, Any, bool], ...]:
    """Each field's name, type and whether it is required."""
    hints = typing.get_type_hints(cls)
    return tuple(
        (
            f.name,
            hints[f.name],
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
        )
        for f in dataclasses.fields(cls)
    )


def _build(cls: Any, data: Any) -> Any:
    """`cls(**data)` with every field checked against its annotation (unknown keys ignored)."""
    if not isinstance(data, dict):
        raise ValueError(f"{cls.__name__} must be an object")
    kwargs = {}
    for name, hint, required in _fields(cls):
        if name in data:
            kwargs[name] = _checked(data[name], hint, f"{cls.__name__}.{name}")
        elif required:
            raise ValueError(f"{cls.__name__}.{name} is missing")
    return cls(**kwargs)


def event_from_dict(data: dict[str, Any]) -> Event | None:
    """Rebuild an event from `event_to_dict` output; None for an unknown type.

    Raises ValueError for a line whose fields do not fit the event.
    """
    kind = data.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        return None
    event: Event = _build(cls, data)
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

    Safe to share between threads. It writes what it is given: which event ends the run,
    and that nothing follows it, is `agent.ending`'s to decide (a run's one writer).
    The file is created, never written over (`agent.newfile`): when `path` is taken, the
    next free name is used, and `self.path` says which; `replace` removes what is there.

    A line that cannot be written (a full disk) is cut off, so the file ends at its last
    whole line; `error` then says why, one line, and nothing more is written but final
    events (`RunEnding` tries a short one when the run's own did not fit). Writing never
    raises OSError but at the header (then the file is removed): each caller decides what
    a lost trace means for its run.
    """

    def __init__(
        self,
        path: Path,
        header: dict[str, Any],
        *,
        clock: Callable[[], float] = time.monotonic,
        replace: bool = False,
    ) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._fd: int | None
        self._fd, self.path = create_new(Path(path), replace=replace)
        self._clock = clock
        self._start = clock()
        self._seq = 0
        self._lock = threading.Lock()
        self._pending = memoryview(b"")  # what is left of the line being written
        self._whole = 0  # bytes of whole lines written
        self._failure: OSError | None = None
        self.error: str | None = None  # why the trace could not be written, if it could not
        self._line({"type": "header", "format": FORMAT, "version": VERSION, **header})
        if self._failure is not None:  # not even the header: no trace at all
            os.close(self._fd)
            self._fd = None
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            raise self._failure

    def _line(self, data: dict[str, Any], *, final: bool = False) -> bool:
        return self._emit(json.dumps(data, ensure_ascii=False) + "\n", final=final)

    def _emit(self, text: str, *, final: bool = False) -> bool:
        if self._fd is None:
            raise ValueError("the trace is closed")
        if self.error is not None and not final:
            return False
        # backslashreplace: a lone surrogate (odd bytes in argv, say) becomes a JSON escape
        self._pending = memoryview(text.encode("utf-8", "backslashreplace"))
        return self._drain()

    def _drain(self) -> bool:
        """Write the rest of the line being written; on failure, cut it off. Whether it went out."""
        assert self._fd is not None
        try:
            while self._pending:
                written = os.write(self._fd, self._pending)
                self._pending = self._pending[written:]
            self._whole = os.lseek(self._fd, 0, os.SEEK_CUR)
        except OSError as exc:
            self._failed(exc)
            return False
        return True

    def _failed(self, exc: OSError) -> None:
        """Cut the file back to its last whole line and remember why."""
        assert self._fd is not None
        self._pending = memoryview(b"")
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, self._whole)
            os.lseek(self._fd, self._whole, os.SEEK_SET)
        if self._failure is None:
            self._failure = exc
            self.error = f"cannot write the trace {self.path}: {exc.strerror or exc}"

    def write(self, event: Event) -> bool:
        """Append one event; whether its line was written whole."""
        with self._lock:
            self._seq += 1
            elapsed = round(self._clock() - self._start, 3)
            if isinstance(event, RunStarted) and event.history:
                return self._started(event, {"seq": self._seq, "t": elapsed})
            line = {"seq": self._seq, "t": elapsed, **event_to_dict(event)}
            return self._line(line, final=isinstance(event, RunFinished))

    def _started(self, event: RunStarted, head: dict[str, Any]) -> bool:
        """A run's first line, its history written from each message's JSON text.

        The same text as `_line` writes: every question of a session writes the whole
        conversation before it, and a message keeps its JSON text, made once.
        """
        data = {**head, **event_to_dict(dataclasses.replace(event, history=()))}
        del data["history"]
        text = json.dumps({**data, "history": []}, ensure_ascii=False)
        history = ", ".join(message.json_text for message in event.history)
        return self._emit(f"{text[:-2]}{history}]}}\n")

    def close(self) -> None:
        """Close the file (idempotent), after the rest of a line a signal interrupted."""
        with self._lock:
            if self._fd is not None:
                if self._pending:
                    self._drain()
                os.close(self._fd)
                self._fd = None


@dataclass
class Trace:
    """A trace read back: its header, its events with their times, and whether it is whole.

    `skipped` counts events of types this docsagent does not know; `damaged_tail` says the
    last line was cut off (the run stopped mid-write) and was left out.
    """

    header: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    skipped: int = 0
    damaged_tail: bool = False

    @property
    def complete(self) -> bool:
        """Whether the run's final event is there (otherwise the run was interrupted)."""
        return bool(self.events) and isinstance(self.events[-1], RunFinished)


MAX_LINE_BYTES = 32 * 1024 * 1024
"""The longest trace line read (32 MiB); a longer one is not a line docsagent wrote."""

HEADER_TEXT = ("question", "model", "docs")  # header fields the replay shows


def open_trace_file(file: Path) -> IO[bytes]:
    """`file` opened for reading if it is a regular file; TraceError otherwise (a FIFO or
    a device would hang or never end: `agent.files`)."""
    try:
        return open_regular(file)
    except NotRegularFile as exc:
        if exc.folder:
            raise TraceError(f"{file} is a folder, not a trace file") from None
        raise TraceError(f"{file} is not a regular file, so not a trace") from None
    except FileNotFoundError:
        raise TraceError(f"no trace file at {file}") from None
    except OSError as exc:
        raise TraceError(f"cannot read trace {file}: {exc.strerror or exc}") from None


def _lines(stream: IO[bytes], file: Path) -> Iterator[tuple[int, bytes]]:
    """The file's lines with their numbers, read one at a time, each at most MAX_LINE_BYTES."""
    number = 0
    while line := stream.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(line) > MAX_LINE_BYTES:
            raise TraceError(
                f"{file}: line {number} is longer than {MAX_LINE_BYTES // 2**20} MiB, "
                "so not a docsagent trace"
            )
        yield number, line


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed: numbers must be finite")


def parse_line(line: bytes) -> Any:
    """One line's JSON value (strict UTF-8, no NaN or Infinity); ValueError when damaged."""
    try:
        return json.loads(line.decode("utf-8"), parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _header(line: bytes | None, file: Path) -> dict[str, Any]:
    try:
        header = parse_line(line) if line is not None else None
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise TraceError(f"{file} is not a docsagent trace")
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version > VERSION:
        raise TraceError(
            f"{file} is a version {str(version)[:20]} trace; this docsagent reads version "
            f"{VERSION}: upgrade docsagent to replay it"
        )
    wrong = [key for key in HEADER_TEXT if not isinstance(header.get(key, ""), str)]
    if wrong:
        raise TraceError(f"{file}: the header's {wrong[0]} is not text")
    return header


def _event_line(line: bytes) -> tuple[Event | None, float]:
    """The event on a line and its time; ValueError when the line is damaged."""
    data = parse_line(line)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    event = event_from_dict(data)
    moment: float = _checked(data.get("t", 0.0), float, "t")
    return event, moment


def read_trace(path: Path | str) -> Trace:
    """Read a trace; TraceError, one line for the user, when it cannot be read.

    Only a regular file is read, one line at a time, each line at most MAX_LINE_BYTES.
    Every field of every event is checked. A last line cut off before its newline (the
    run stopped while writing it, even inside a character) is left out and `damaged_tail`
    says so; any other damaged line is an error.
    """
    file = Path(path)
    with open_trace_file(file) as stream:
        lines = _lines(stream, file)
        first = next(lines, None)
        trace = Trace(_header(first[1] if first else None, file))
        for number, line in lines:
            if not line.strip():
                continue
            try:
                event, moment = _event_line(line)
            except ValueError as exc:  # UnicodeDecodeError and JSON errors too
                if not line.endswith(b"\n"):  # the line being written when the run stopped
                    trace.damaged_tail = True
                    break
                raise TraceError(f"{file}: line {number} is damaged ({str(exc)[:200]})") from None
            if event is None:
                trace.skipped += 1
                continue
            trace.events.append(event)
            trace.times.append(moment)
    return trace
