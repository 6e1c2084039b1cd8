"""A scripted chat-completions server on 127.0.0.1, standard library only.

A test pushes responses, then points a real client at `server.base_url`::

    chat_server.push(Reply(content="Hello"), Status(429, "slow down", retry_after="2"))

Each request to `/v1/chat/completions` pops the next response. `Reply` renders as SSE
when the request has `"stream": true` and as one JSON completion otherwise; `SSE`,
`Completion`, `Status`, `Hang`, `Ping`, `Cut` and `Drop` send exactly what they say. Every
request body is recorded in `server.requests`, its size in `server.request_bytes`. With
`strict=True` the request is validated the way real servers do (tool results must answer
the preceding tool calls, ids are unique, content is a string, no field a strict server
does not know) and a bad one gets a 400 without consuming a scripted response. `GET
/props` and `GET /v1/models` answer `server.props` and `server.models` when set (404
otherwise), as llama-server and vLLM tell their context size. `server.latency` delays
every answer (a distant server); `server.chat_connections` holds the connections the chat
requests came on.

Like a real server it speaks HTTP/1.1 and keeps connections open between requests
(streams are sent chunked); `server.connections` counts the connections accepted.
"""

from __future__ import annotations

import contextlib
import functools
import json
import socket
import socketserver
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.chatreplies import (
    MODEL,
    SSE,
    Call,
    Completion,
    Cut,
    Drop,
    Endless,
    Hang,
    Ping,
    Reply,
    Response,
    Slow,
    Status,
    chunk,
    completion_body,
    stream_events,
    usage_chunk,
)
from tests.strictchat import validate, validate_request

HOLD_LIMIT_S = 120.0  # the longest a Hang holds a request: `stop` ends every hold at once

__all__ = [
    "MODEL",
    "Call",
    "Reply",
    "SSE",
    "Completion",
    "Status",
    "Hang",
    "Ping",
    "Cut",
    "Drop",
    "Endless",
    "Slow",
    "Response",
    "chunk",
    "usage_chunk",
    "stream_events",
    "completion_body",
    "ChatServer",
    "validate",
    "validate_request",
]


class ChatServer:
    """The server: `push` responses, read `requests`, `stop` when done."""

    def __init__(
        self,
        *,
        strict: bool = False,
        api_key: str | None = None,
        delay: float = 0.0,
        responder: Callable[[dict[str, Any]], Response] | None = None,
    ) -> None:
        """`delay`: seconds each request waits before its answer (a slow model); with
        `responder`, each request is answered by what it returns for the request's body
        instead of from the script (requests of concurrent runs then need no order)."""
        self.strict = strict
        self.api_key = api_key
        self.delay = delay
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.request_bytes: list[int] = []
        self.headers: list[dict[str, str]] = []
        self.connections = 0
        self.chat_connections: set[int] = set()  # the connections chat requests came on
        self.latency = 0.0  # seconds every request (GET too) waits: a distant server
        self.first_chat_at: float | None = None  # time.monotonic() of the first chat request
        self.script: deque[Response] = deque()
        self.props: dict[str, Any] | None = None
        self.models: dict[str, Any] | None = None
        self.gets: list[str] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._received = threading.Condition(self._lock)
        self._open: set[socket.socket] = set()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, chat=self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def push(self, *responses: Response) -> None:
        """Queue responses, answered in order."""
        with self._lock:
            self.script.extend(responses)

    def wait_for_requests(
        self, count: int, *, client: subprocess.Popen[str] | None = None, timeout: float = 120.0
    ) -> bool:
        """Wait until `count` requests have arrived; False if the `client` process ended first.

        The `timeout` only guards a hang: a client slow to start (a loaded machine) is waited
        for, one that has exited is not.
        """
        deadline = time.monotonic() + timeout
        with self._received:
            while len(self.requests) < count:
                if client is not None and client.poll() is not None:
                    return False
                if time.monotonic() > deadline:
                    return False
                self._received.wait(0.05 if client is not None else deadline - time.monotonic())
            return True

    def start(self) -> ChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        with self._lock:
            for sock in self._open:  # end kept-alive connections so their threads finish
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def opened(self, sock: socket.socket) -> None:
        with self._lock:
            self.connections += 1
            self._open.add(sock)

    def closed(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.discard(sock)

    def next_response(self, body: dict[str, Any], headers: dict[str, str], size: int) -> Response:
        with self._lock:
            self.requests.append(body)
            self.request_bytes.append(size)
            self.headers.append(headers)
            self._received.notify_all()
            if (
                self.api_key is not None
                and headers.get("authorization") != f"Bearer {self.api_key}"
            ):
                sent = headers.get("authorization", "").removeprefix("Bearer ")
                return Status(401, f"Incorrect API key provided: {sent}.")
            if self.strict and (problem := validate_request(body)):
                return Status(400, problem)
            if self.responder is not None:
                return self.responder(body)
            if not self.script:
                return Status(500, "chatserver: no scripted response left")
            return self.script.popleft()


class _Handler(BaseHTTPRequestHandler):
    """Answers one connection's requests from `chat`, the `ChatServer` that owns it."""

    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
    disable_nagle_algorithm = True  # as real servers do: small writes go out at once

    def __init__(
        self,
        request: Any,
        client_address: Any,
        server: socketserver.BaseServer,
        *,
        chat: ChatServer,
    ) -> None:
        self.chat = chat  # before the base class, whose constructor handles the whole connection
        super().__init__(request, client_address, server)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        self.chat.opened(self.connection)

    def finish(self) -> None:
        self.chat.closed(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def handle(self) -> None:
        with contextlib.suppress(ConnectionError):  # the client went away
            super().handle()

    def do_GET(self) -> None:
        self.chat.gets.append(self.path)
        if self.chat.latency:
            self.chat.stopping.wait(self.chat.latency)
        found = {"/props": self.chat.props, "/v1/models": self.chat.models}.get(self.path)
        if found is None:
            self._json(404, {"error": {"message": f"no route {self.path}"}})
        else:
            self._json(200, found)

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        body = json.loads(raw or b"{}")
        headers = {k.lower(): v for k, v in self.headers.items()}
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._json(404, {"error": {"message": "File Not Found"}})  # as llama-server says
            return
        if self.chat.first_chat_at is None:
            self.chat.first_chat_at = time.monotonic()
        self.chat.chat_connections.add(id(self.connection))
        if self.chat.latency:
            self.chat.stopping.wait(self.chat.latency)
        response = self.chat.next_response(body, headers, len(raw))
        if self.chat.delay:
            self.chat.stopping.wait(self.chat.delay)
        # The client may have given up (timeout, cancel): nothing to do then.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._send(response, stream=bool(body.get("stream")))

    def _send(self, response: Response, *, stream: bool) -> None:
        if isinstance(response, Slow):
            if self.chat.stopping.wait(min(response.seconds, 10.0)):
                return
            response = response.reply
        if isinstance(response, Reply):
            if stream:
                self._sse(stream_events(response), done=True)
            else:
                self._json(200, completion_body(response))
        elif isinstance(response, SSE):
            self._sse(response.events, done=response.done)
        elif isinstance(response, Completion):
            self._json(200, response.body)
        elif isinstance(response, Status):
            headers = dict(response.headers)
            if response.retry_after is not None:
                headers["Retry-After"] = response.retry_after
            error = {"message": response.message, "type": "error", "code": response.code}
            self._json(response.code, {"error": error}, headers)
        elif isinstance(response, Cut):
            self._cut(response.events)
        elif isinstance(response, Hang) and not response.answer:
            self.chat.stopping.wait(min(response.seconds, HOLD_LIMIT_S))
            self.close_connection = True
        elif isinstance(response, Hang):
            self._sse(response.events, done=False, stall=min(response.seconds, HOLD_LIMIT_S))
        elif isinstance(response, Ping):
            self._ping(response)
        elif isinstance(response, Endless):
            self._endless(response)
        else:  # Drop
            self.close_connection = True

    def _json(self, code: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _cut(self, events: Sequence[Any]) -> None:
        self._start_stream()  # chunked: a body that ends early is an error
        for data in _lines(events, done=False):
            self._chunk(data)
        self.close_connection = True  # no final zero-length chunk

    def _sse(self, events: Sequence[Any], *, done: bool, stall: float = 0.0) -> None:
        self._start_stream()
        for data in _lines(events, done=done):
            self._chunk(data)
        if stall:
            self.chat.stopping.wait(stall)
            self.close_connection = True  # a stalled stream never ends cleanly
            return
        self._chunk(b"")  # the end of the body: the connection can take the next request

    def _ping(self, ping: Ping) -> None:
        self._start_stream()
        for data in _lines(ping.events, done=False):
            self._chunk(data)
        self.close_connection = True
        ticks = int(min(ping.seconds, 10.0) / ping.every)
        for _ in range(ticks):  # ends early when the client goes away (a broken pipe)
            if self.chat.stopping.wait(ping.every):
                return
            self._chunk(b": ping\n\n")

    def _endless(self, endless: Endless) -> None:
        self._start_stream()
        self.close_connection = True
        data = f"data: {json.dumps(chunk({'content': endless.piece}))}\n\n".encode()
        if endless.line:
            self._chunk(b'data: {"choices": [{"index": 0, "delta": {"content": "')
            data = endless.piece.encode()
        until = time.monotonic() + min(endless.seconds, 120.0)
        while not self.chat.stopping.is_set() and time.monotonic() < until:
            self._chunk(data)  # a broken pipe when the client goes away ends it

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _lines(events: Sequence[Any], *, done: bool) -> Iterator[bytes]:
    for event in events:
        text = event if isinstance(event, str) else json.dumps(event)
        yield f"data: {text}\n\n".encode()
    if done:
        yield b"data: [DONE]\n\n"
