"""A trace still being written, read as it grows (following a running `docsagent mcp`).

Each `read` takes what was appended since the last one and returns the events of its
whole lines; a last line without its newline is being written, so it is kept and
waited for, never reported as damage. Every line is checked as `read_trace` checks it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.errors import TraceError
from agent.events import Event, RunFinished
from agent.trace import MAX_LINE_BYTES, _event_line, _header, open_trace_file

READ_BYTES = 4 * 1024 * 1024
"""Bytes taken at most by one `read`, so a big trace is shown while it is read."""


class TraceTail:
    """The trace at `path`, read on from where the last `read` stopped."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.header: dict[str, Any] | None = None
        self.finished = False  # the run's final event has been read
        self._offset = 0
        self._partial = b""
        self._line = 0

    def read(self) -> tuple[list[Event], list[float]]:
        """The events (and their times) of the lines completed since the last call.

        Raises TraceError when the file is gone, is not a docsagent trace, or holds a
        damaged whole line.
        """
        with open_trace_file(self.path) as stream:
            stream.seek(self._offset)
            data = stream.read(READ_BYTES)
        self._offset += len(data)
        *lines, self._partial = (self._partial + data).split(b"\n")
        if len(self._partial) > MAX_LINE_BYTES:
            raise TraceError(f"{self.path}: a line is longer than {MAX_LINE_BYTES // 2**20} MiB")
        events: list[Event] = []
        times: list[float] = []
        for line in lines:
            self._line += 1
            if self.header is None:
                self.header = _header(line, self.path)
                continue
            if not line.strip() or self.finished:
                continue
            try:
                event, moment = _event_line(line)
            except ValueError as exc:
                raise TraceError(
                    f"{self.path}: line {self._line} is damaged ({str(exc)[:200]})"
                ) from None
            if event is not None:
                events.append(event)
                times.append(moment)
                self.finished = isinstance(event, RunFinished)
        return events, times
