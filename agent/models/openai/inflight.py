"""The queries in flight: each one's stop flag and open stream, reached by `cancel` from
any thread."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class Request:
    """One query in flight: `cancel` sets `stop` and shuts its stream's socket."""

    stop: threading.Event = field(default_factory=threading.Event)
    stream: Any = None
    received: bool = False  # whether any reply data arrived on the current attempt
    partial: str = ""  # the text that had arrived when the current attempt's stream failed

    def begin(self) -> None:
        """Start an attempt: nothing has arrived yet."""
        self.received = False
        self.partial = ""

    def cancel(self) -> None:
        """Stop this query; a read blocked on its stream returns at once."""
        self.stop.set()
        stream = self.stream
        if stream is not None:
            shutdown(stream.response)
            stream.close()

    def wait(
        self, delay: float, stopped: Callable[[], bool], *, sleep: Callable[[float], None] | None
    ) -> None:
        """Wait `delay` seconds, or until `stopped` (a cancel cuts the wait short); `sleep`,
        when given, waits instead."""
        if sleep is not None:
            sleep(delay)
            return
        deadline = time.monotonic() + delay
        while not stopped() and (left := deadline - time.monotonic()) > 0:
            self.stop.wait(min(left, 0.05))  # a cancel of the run's event is polled


class InFlight:
    """The requests in flight, for `cancel`: its lock is never held for long."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: set[Request] = set()

    def start(self) -> Request:
        """A new request, in flight until `end`."""
        request = Request()
        with self._lock:
            self._requests.add(request)
        return request

    def end(self, request: Request) -> None:
        """`request` is done: `cancel` no longer reaches it."""
        with self._lock:
            self._requests.discard(request)

    def cancel(self) -> None:
        """Cancel every request in flight."""
        with self._lock:
            requests = list(self._requests)
        for request in requests:
            request.cancel()


def shutdown(response: Any) -> None:
    """Shut the response's socket down: unlike close(), this wakes a thread blocked reading it."""
    stream = getattr(response, "extensions", {}).get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
