"""The HTTP client under the SDK: kept connections, a deadline per request, a shutdown.

- **One connection for a run.** The SDK stops reading a stream at `data: [DONE]` and
  closes the response before the body's last bytes are read, which throws the
  connection away: every streamed step opened a new one. We read on to the end of the
  body first, so the pool keeps it. A server that does not end the body promptly after
  `[DONE]` only loses the connection (after `DRAIN_S`), never the reply.
- **A deadline per request.** The timeout bounds each wait for data, so a server that
  sends keep-alive comments forever never trips it. Every piece of a body is checked
  against the request's deadline, which ends such a stream with `DeadlineExceeded`.
- **What the server said, once.** Models that share the client (eval's questions) share
  what each would ask the server before its first request (its context window): asked
  once for them all, not three requests a question.
- **Bounded where it is read.** The SDK's stream decoder keeps a line, and an event's
  lines, until they end, with no limit: a server that sends one `data:` line and never
  ends it grew the process 75 MB a second. Each streamed event (the bytes up to a blank
  line) may hold `MAX_EVENT_BYTES`, and a whole reply that is not streamed
  `MAX_BODY_BYTES`; past them the request ends with `ReplyTooLarge`, one line naming the
  bound, and is not retried.
- **A shutdown that wakes readers.** Closing a socket does not wake a thread blocked
  reading it; shutting it down does. Every socket the client opens is remembered
  (weakly), so a cancel ends a stalled stream or a non-streamed request at once.

Imported only when a model first connects, like `openai` itself.
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import httpx2
import openai

from agent.errors import ProtocolError
from agent.models.openai.address import endpoint_of

DRAIN_S = 1.0
"""How long the end of a finished stream's body may take before the connection is dropped."""

DRAIN_BYTES = 65536
"""How much a server may send after `[DONE]` before the connection is dropped instead."""

MAX_EVENT_BYTES = 8 * 1024 * 1024
"""Bytes one streamed event (its lines up to a blank line) may hold: a chunk is a few
hundred bytes; a server that sends a whole long reply as one chunk stays far below."""

MAX_BODY_BYTES = 32 * 1024 * 1024
"""Bytes a whole reply that is not streamed may hold (one JSON object)."""

_DONE = re.compile(rb"data: ?\[DONE\]\s*$")
_TAIL = 32  # enough bytes of the stream to see `data: [DONE]` split across pieces
_CONNECTED = {"connection.connect_tcp.complete", "connection.connect_unix_socket.complete"}

T = TypeVar("T")


class DeadlineExceeded(httpx2.ReadTimeout):
    """A request was still going at its deadline."""


class ReplyTooLarge(ProtocolError):
    """A reply (or one event of a streamed reply) went past its bound in bytes."""


class ModelHTTPClient(openai.DefaultHttpxClient):
    """The SDK's default HTTP client, plus the deadline, the kept connections and `shutdown`."""

    def __init__(
        self,
        *,
        request_timeout: float | None,
        clock: Callable[[], float] = time.monotonic,
        **options: Any,
    ) -> None:
        """Args:
        request_timeout: seconds a whole request may take, the reply included; None: no limit.
        clock: monotonic seconds.
        options: passed to `httpx2.Client` (e.g. `timeout`).
        """
        super().__init__(**options)
        self.request_timeout = request_timeout
        self._clock = clock
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._answers: dict[tuple[str, ...], Any] = {}
        self._asking: dict[tuple[str, ...], threading.Lock] = {}

    def send(
        self, request: httpx2.Request, *, stream: bool = False, **kwargs: Any
    ) -> httpx2.Response:
        """Send `request`; its body is read through the deadline and drain checks."""
        deadline = None
        if self.request_timeout is not None:
            deadline = self._clock() + self.request_timeout
        request.extensions = {**request.extensions, "trace": self._tracer(request.extensions)}
        response = super().send(request, stream=True, **kwargs)
        body = _Body(
            response,
            deadline=deadline,
            limit=self.request_timeout,
            clock=self._clock,
            bound=MAX_EVENT_BYTES if _streamed(response) else MAX_BODY_BYTES,
            events=_streamed(response),
        )
        response.stream = body
        try:
            body.check()  # the headers alone may have taken too long
            if not stream:
                response.read()
        except BaseException:
            response.close()
            raise
        return response

    def once(self, key: tuple[str, ...], ask: Callable[[], T]) -> T:
        """What `ask` returns for `key`, asked once for every model sharing this client.

        A caller that comes while the first is asking waits for its answer.
        """
        with self._lock:
            gate = self._asking.setdefault(key, threading.Lock())
        with gate:
            if key not in self._answers:
                self._answers[key] = ask()
            answer: T = self._answers[key]
            return answer

    def shutdown(self) -> None:
        """Shut down every socket this client opened: any thread reading one fails at once."""
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            _shutdown(sock)

    def _tracer(self, extensions: dict[str, Any]) -> Callable[[str, dict[str, Any]], None]:
        """The httpcore trace hook: remembers each new connection's socket."""
        outer = extensions.get("trace")

        def trace(name: str, info: dict[str, Any]) -> None:
            if name in _CONNECTED:
                stream = info.get("return_value")
                sock = stream.get_extra_info("socket") if stream is not None else None
                if isinstance(sock, socket.socket):
                    with self._lock:
                        self._sockets.add(sock)
            if outer is not None:
                outer(name, info)

        return trace

    def __del__(self) -> None:
        # Like the SDK's own client: pooled connections are closed, not left to the GC.
        with contextlib.suppress(Exception):
            self.close()


class _Body(httpx2.SyncByteStream):
    """A response body read through the deadline check and, after `[DONE]`, to its end."""

    def __init__(
        self,
        response: httpx2.Response,
        *,
        deadline: float | None,
        limit: float | None,
        clock: Callable[[], float],
        bound: int = MAX_BODY_BYTES,
        events: bool = False,
    ) -> None:
        self._response = response
        self._inner = response.stream
        self._deadline = deadline
        self._limit = limit
        self._clock = clock
        self._bound = bound  # bytes of the body, or of each event when `events`
        self._events = events
        self._open = 0  # bytes read since the last event ended (or in all)

    def check(self) -> None:
        """Raise `DeadlineExceeded` if the request's deadline has passed."""
        if self._deadline is not None and self._clock() > self._deadline:
            raise DeadlineExceeded(
                f"no complete reply within {self._limit:g} s", request=self._response.request
            )

    def __iter__(self) -> Iterator[bytes]:
        assert isinstance(self._inner, httpx2.SyncByteStream)
        pieces = iter(self._inner)
        tail = b""
        for piece in pieces:
            self.check()
            self._count(tail[-3:], piece)
            tail = (tail + piece)[-_TAIL:]
            if _DONE.search(tail):
                yield piece + self._drain(pieces)
                return
            yield piece

    def _count(self, before: bytes, piece: bytes) -> None:
        """Add `piece` to the bytes read since the last event ended (`before`: the bytes
        just before it); ReplyTooLarge past the bound."""
        data = before + piece
        end = _event_end(data) if self._events else -1
        self._open = len(data) - end if end >= 0 else self._open + len(piece)
        if self._open > self._bound:
            what = "a stream event (one line or more)" if self._events else "a reply"
            raise ReplyTooLarge(
                f"{endpoint_of(str(self._response.request.url))} sent {what} longer than "
                f"{self._bound // 2**20} MiB, the most docsagent reads; the reply was cut off"
            )

    def close(self) -> None:
        assert isinstance(self._inner, httpx2.SyncByteStream)
        self._inner.close()

    def _drain(self, pieces: Iterator[bytes]) -> bytes:
        """The rest of a finished stream's body, read so the connection can be reused."""
        network = self._response.extensions.get("network_stream")
        sock = network.get_extra_info("socket") if network is not None else None
        guard = threading.Timer(DRAIN_S, _shutdown, [sock]) if sock is not None else None
        if guard is not None:
            guard.daemon = True
            guard.start()
        rest: list[bytes] = []
        size = 0
        try:
            for piece in pieces:
                rest.append(piece)
                size += len(piece)
                if size > DRAIN_BYTES:
                    break
        except httpx2.HTTPError:
            pass  # the reply is whole; only the connection is lost
        finally:
            if guard is not None:
                guard.cancel()
        return b"".join(rest)


def _streamed(response: httpx2.Response) -> bool:
    """Whether the reply is a stream of server-sent events."""
    return response.headers.get("content-type", "").startswith("text/event-stream")


def _event_end(data: bytes) -> int:
    """The offset just past the last blank line in `data` (where an event ended), or -1."""
    end = -1
    for mark in (b"\n\n", b"\r\r", b"\r\n\r\n"):
        at = data.rfind(mark)
        if at >= 0:
            end = max(end, at + len(mark))
    return end


def _shutdown(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
