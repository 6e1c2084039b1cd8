"""The OpenAI-compatible model: chat completions with tools, streamed or not.

Retries are ours, not the SDK's (the client is built with `max_retries=0`), so each one
is visible as a `Retry` chunk: 429 and 5xx answers, and a connection dropped before any
reply, are retried with exponential backoff (or the server's Retry-After, capped). A
refused connection, an unknown host and timeouts are not retried: they fail fast.

One client, and so one connection pool, serves every request of the model's life (see
`transport.py`: it also sets each request's deadline and lets `close` wake a blocked read).

The API key is checked on the first `query`, not at construction, so the failure travels
the same road as a 401 and ends the run (and its trace) cleanly. `openai` is imported
on first use, so building this model costs nothing until it is asked something.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import socket
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import agent.errors as errors
from agent.defaults import (
    DEFAULT_BASE_URL,
    DEFAULT_MAX_REPLY_CHARS,
    DEFAULT_MAX_REPLY_TOKENS,
    DEFAULT_MAX_RETRIES,
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_TIMEOUT,
)
from agent.messages import Message
from agent.models.base import Chunk, Delta, Notice, Retry, ToolSchema
from agent.models.openai.endpoint import display_url, endpoint_of, is_local
from agent.models.openai.errors import (
    Context,
    rejects_stream_options,
    retry_delay,
    retry_reason,
    server_message,
    translate,
)
from agent.models.openai.known import Known, KnownEndpoints
from agent.models.openai.request import BodyEncoder, reply_cap, request_body
from agent.models.openai.secret import KeyFilter
from agent.models.openai.stream import StreamAssembler, fields, reply_from_completion
from agent.models.openai.window import Facts

if TYPE_CHECKING:
    from openai import OpenAI

    from agent.models.openai.transport import ModelHTTPClient

LOCAL_DUMMY_KEY = "not-needed"


@dataclass(eq=False)
class _Request:
    """One query in flight: `cancel` sets `stop` and shuts its stream's socket."""

    stop: threading.Event = field(default_factory=threading.Event)
    stream: Any = None
    received: bool = False  # whether any reply data arrived on the current attempt


class OpenAIModel:
    """A chat model behind an OpenAI-compatible `/chat/completions` endpoint."""

    def __init__(
        self,
        name: str,
        *,
        api_key: str | None,
        base_url: str | None = None,
        stream: bool = True,
        timeout: float = DEFAULT_TIMEOUT,
        request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_reply_chars: int = DEFAULT_MAX_REPLY_CHARS,
        max_reply_tokens: int | None = DEFAULT_MAX_REPLY_TOKENS,
        context: int | None = None,
        tool_choice: str | dict[str, Any] = "auto",
        backoff: float = 1.0,
        sleep: Callable[[float], None] | None = None,
        http_client: ModelHTTPClient | None = None,
        known: KnownEndpoints | None = None,
    ) -> None:
        """Args:
        name: the model name sent to the endpoint.
        api_key: the key; may be None or empty for a server on this machine.
        base_url: the endpoint, e.g. "http://localhost:11434/v1"; default OpenAI's.
        stream: stream the reply (text shows as it arrives) or ask for it whole.
        timeout: seconds to connect, and to wait for each piece of the reply.
        request_timeout: seconds one request may take in all, its reply included
            (None: no limit); a stream kept alive by keep-alive comments ends there.
        max_retries: retries after a 429, a 5xx or a dropped connection.
        max_reply_chars: characters a streamed reply may bring; past them it is cut short
            (ended as at the length limit), so a stream that never ends cannot run on.
        max_reply_tokens: the reply's token limit, sent as `max_tokens` (None: the server's).
        context: the server's context window in tokens; None: asked of the server.
        tool_choice: sent with the tools: "auto", or a named tool to force a call (checks).
        backoff: the first retry's delay in seconds; it doubles each retry.
        sleep: waits between retries; by default a wait that a cancel cuts short.
        http_client: a client (and its connection pool) shared with other models, as
            eval's questions share one; its owner closes it. By default the model makes
            its own on first use and closes it in `close`.
        known: what earlier runs learned of endpoints (the cache folder's file); by
            default nothing is kept and the server is asked on first use.
        """
        self.name = name
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.stream = stream
        self.timeout = timeout
        self.request_timeout = request_timeout
        self.max_retries = max_retries
        self.max_reply_chars = max_reply_chars
        self.max_reply_tokens = max_reply_tokens
        self.context_window = context
        self.tool_choice = tool_choice
        self._probe = True  # learn of the server once, on first use (no probe with a context)
        self._streams = True  # set off for good when the server cannot stream a reply
        self._known = known if known is not None else KnownEndpoints(None)
        self.backoff = backoff
        self._api_key = (api_key or "").strip()
        self._sleep = sleep
        self._client: OpenAI | None = None
        self._http: ModelHTTPClient | None = None
        self._shared_http = http_client
        self._lock = threading.Lock()  # the requests in flight: `cancel` never waits long on it
        # Building the client imports `openai` (a second on a loaded machine): a lock of its
        # own, so a cancel or a quit meanwhile does not wait for the import to finish.
        self._connecting = threading.Lock()
        self._requests: set[_Request] = set()  # in flight, for `cancel`
        self._stream_options = True
        self._ids = itertools.count(1)
        self._encoder = BodyEncoder()

    @property
    def endpoint(self) -> str:
        """Scheme, host and port of the endpoint, for display; never the key."""
        return endpoint_of(self.base_url)

    def __repr__(self) -> str:
        return f"OpenAIModel({self.name!r}, endpoint={self.endpoint!r}, stream={self.stream})"

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        """Ask the model; yield `Delta`s and `Retry`s, then one `Reply` (none if cancelled)."""
        if cancel is not None and cancel.is_set():
            return
        client = self._connect()
        if self._probe:  # once: what the server says of itself (see window.py, known.py)
            self._probe = False
            yield from self._learn()
        self._check_fits(messages)
        request = _Request()
        with self._lock:
            self._requests.add(request)
        try:
            yield from self._attempts(client, messages, tools, request, cancel)
        finally:
            with self._lock:
                self._requests.discard(request)

    def _learn(self) -> Iterator[Chunk]:
        """The endpoint's context and listing, from the cache folder or else asked once (the
        probes at once); a warning when the listing does not hold this model's name."""
        from agent.models.openai.window import probe_endpoint, unlisted

        http = self._http
        assert http is not None  # connected
        url = display_url(self.base_url)
        key = f"Bearer {self._api_key or LOCAL_DUMMY_KEY}"

        given = self.context_window

        def learn() -> Known | None:
            known = self._known.get(url, self.name)
            if given is None and (known is None or not known.probed):
                facts = probe_endpoint(
                    http, self.base_url, self.name, headers={"Authorization": key}
                )
                streams = known.streams_tools if known is not None else None
                known = self._known.put(url, self.name, Known(facts, streams))
            return known

        # Asked once per HTTP client: models sharing one (eval's questions) share it.
        known = http.once(
            ("endpoint", self.base_url, self.name, "probe" if given is None else "given"), learn
        )
        if known is None:
            return  # the context given, nothing learned before: no probe
        if given is None:
            self.context_window = known.facts.context
        if known.streams_tools is False:
            self._streams = False
        if given is not None:
            return
        warning = unlisted(self.name, known.facts, f"{url}/models")
        first: list[bool] = []
        http.once(("warned", self.base_url, self.name), lambda: first.append(True))
        if warning is not None and first:
            yield Notice(warning)

    def _check_fits(self, messages: Sequence[Message]) -> None:
        """Refuse, before sending, a question that alone does not fit the context."""
        window = self.context_window
        question = next((m for m in reversed(messages) if m.role == "user"), None)
        if window is None or question is None or (tokens := question.ascii_tokens) <= window:
            return
        raise errors.BadRequestError(
            f"the question is about {tokens:,} tokens, more than the whole context of "
            f"{self.endpoint} ({window:,} tokens): not sent; shorten the question"
        )

    def cancel(self) -> None:
        """Stop the queries in flight, from any thread: a stream's blocked read returns at once.

        Between chunks a cancel is noticed anyway; shutting the socket down is what ends a
        read that waits on a stalled stream. A request that is not streamed cannot be cut
        short (the HTTP client has no way to abort it): it runs to its reply or its
        timeout, and the reply is dropped.
        """
        with self._lock:
            requests = list(self._requests)
        for request in requests:
            request.stop.set()
            stream = request.stream
            if stream is not None:
                _shutdown(stream.response)
                stream.close()

    def close(self) -> None:
        """Cancel the queries in flight and release the HTTP client (made again when needed).

        Shutting the client's connections down also ends a whole (not streamed) request
        that is blocked on a hung server, which `cancel` alone leaves to finish.
        """
        self.cancel()
        http, self._http = self._http, None
        client, self._client = self._client, None
        if http is None or http is self._shared_http:
            return  # a shared client's connections serve other models: its owner closes it
        http.shutdown()
        if client is not None:
            client.close()

    def _attempts(
        self,
        client: OpenAI,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        request: _Request,
        cancel: threading.Event | None,
    ) -> Iterator[Chunk]:
        """The request, tried again after transient failures, until a reply or a stop.

        A stream that brings nothing (no finish, no text, no tool call), or an error event
        before anything else, is asked again once without streaming, and every later
        request goes unstreamed too: servers that cannot stream tool calls do this, and a
        whole request gets the server's own error message where a stream got nothing.
        """

        def stopped() -> bool:
            return request.stop.is_set() or (cancel is not None and cancel.is_set())

        retries = 0
        while True:
            streamed = self.stream and self._streams
            ctx = Context(
                self.name,
                self.base_url,
                self.timeout if streamed else self._whole_timeout,
                self._api_key,
                retries=retries,
                request_timeout=self.request_timeout,
            )
            request.received = False
            cut: list[str] = []  # the text that had arrived when a stream failed
            try:
                if streamed:
                    why = yield from self._streamed(client, messages, tools, request, stopped, cut)
                    if why is not None and not stopped():
                        self._streams = False
                        self._remember_no_streaming()
                        yield Notice(f"{why}; asking without streaming from now on")
                        continue
                elif not stopped():
                    yield from self._whole(client, messages, tools, stopped)
                return
            except errors.ModelError:
                raise
            except Exception as exc:
                if stopped():
                    return  # shutting the stream down under us is how a cancel lands mid-read
                if not isinstance(exc, self._sdk_errors()):
                    raise
                if self._drop_stream_options(exc):
                    yield Retry(retries + 1, 0.0, "endpoint rejected stream_options")
                    continue
                reason = retry_reason(exc, request.received)
                if reason is None or retries >= self.max_retries:
                    ctx = dataclasses.replace(ctx, received=request.received, partial="".join(cut))
                    raise translate(exc, ctx) from exc
                retries += 1
                delay = retry_delay(exc, retries, self.backoff)
                yield Retry(retries, delay, reason)
                self._wait(delay, request, stopped)
                if stopped():
                    return

    def _remember_no_streaming(self) -> None:
        """Keep that this endpoint cannot stream this model's replies, so later runs (each
        `ask`, each eval question) ask unstreamed at once, without the wasted request."""
        url = display_url(self.base_url)
        known = self._known.get(url, self.name) or Known(Facts(), probed=False)
        self._known.put(url, self.name, replace(known, streams_tools=False))

    def _connect(self) -> OpenAI:
        if not self._api_key and not is_local(self.base_url):
            raise errors.AuthenticationError(
                f"no API key to use {self.endpoint}", fields=("api_key",)
            )
        if any(not " " < char <= "~" for char in self._api_key):
            raise errors.AuthenticationError(
                "the API key holds a line break, a space or another character no key has",
                fields=("api_key",),
            )
        with self._connecting:
            if self._client is None:
                import openai

                from agent.models.openai.transport import ModelHTTPClient

                self._http = self._shared_http or ModelHTTPClient(
                    timeout=self.timeout, request_timeout=self.request_timeout
                )
                self._client = openai.OpenAI(
                    api_key=self._api_key or LOCAL_DUMMY_KEY,
                    base_url=self.base_url,
                    timeout=self.timeout,
                    max_retries=0,
                    http_client=self._http,
                )
            return self._client

    def _post(
        self,
        client: OpenAI,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        stream: bool,
    ) -> Any:
        """Send one request. The body goes to the SDK ready-made, so it is not walked again.

        `chat.completions.create` runs its whole argument through the SDK's type-driven
        transform, which took 4.9 ms at 4 messages and 113 ms at 240 on every request;
        `post` sends our own JSON bytes, each message encoded once per model
        (tests/bench/test_bench_endpoint.py measures it).
        """
        import openai
        from openai.types.chat import ChatCompletion

        body = request_body(
            self.name,
            (),
            tools,
            stream=stream,
            stream_options=self._stream_options,
            max_tokens=reply_cap(self.max_reply_tokens, self.context_window),
            tool_choice=self.tool_choice,
        )
        # A whole reply comes in one piece: it may take the request's time in all to come.
        timeout = self.timeout if stream else openai.Timeout(self.timeout, read=self._whole_timeout)
        return client.post(
            "/chat/completions",
            content=self._encoder.encode(body, messages),
            cast_to=ChatCompletion,
            options={"timeout": timeout},
            stream=stream,
            stream_cls=openai.Stream[object],  # chunks as decoded: read as `Fields`
        )

    @property
    def _whole_timeout(self) -> float:
        """How long a whole (not streamed) reply may take to start arriving."""
        return max(self.timeout, self.request_timeout or self.timeout)

    def _streamed(
        self,
        client: OpenAI,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        request: _Request,
        stopped: Callable[[], bool],
        cut: list[str],
    ) -> Generator[Chunk, None, str | None]:
        """Stream one reply; return why to ask again without streaming, or None when done."""
        import openai

        stream = self._post(client, messages, tools, stream=True)
        # Set before checking `stopped`: a cancel either sees the stream or is seen here.
        request.stream = stream
        assembler = StreamAssembler()
        secret = KeyFilter(self._api_key)
        why: str | None = None
        try:
            if stopped():
                return None
            try:
                for chunk in stream:
                    if stopped():
                        return None
                    request.received = True
                    text = secret.feed(assembler.feed(fields(chunk)))
                    if text:
                        yield Delta(text)
                    if assembler.size > self.max_reply_chars:
                        assembler.finish_reason = "length"  # a runaway stream: cut short here
                        break
                if stopped():
                    return None  # the stream ended because it was shut down under us
                why = assembler.unfinished(self.endpoint)
            except Exception:  # what the key filter held back was shown before the failure
                if rest := secret.flush():
                    yield Delta(rest)
                raise
        except openai.APIError as exc:
            if type(exc) is not openai.APIError or not assembler.empty:
                cut[:] = assembler.text  # kept by the error: the run shows it, as cut off
                raise
            # An error event before any reply: the server could not stream this one.
            message = server_message(exc, self._api_key)
            why = f"{self.endpoint} could not stream this reply ({message})"
        except BaseException:
            cut[:] = assembler.text  # kept by the error: the run shows it, marked as cut off
            raise
        finally:
            request.stream = None
            if why is not None:  # a server that failed a stream drops its connection: not reused
                _shutdown(stream.response)
            stream.close()
        if why is None:
            if rest := secret.flush():
                yield Delta(rest)
            yield secret.reply(assembler.reply(messages, tools, self._new_id))
        return why

    def _whole(
        self,
        client: OpenAI,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        stopped: Callable[[], bool],
    ) -> Iterator[Chunk]:
        completion = self._post(client, messages, tools, stream=False)
        if not stopped():
            reply = reply_from_completion(completion, messages, tools, self._new_id)
            yield KeyFilter(self._api_key).reply(reply)

    def _new_id(self) -> str:
        return f"call_{next(self._ids)}"

    def _wait(self, delay: float, request: _Request, stopped: Callable[[], bool]) -> None:
        if self._sleep is not None:
            self._sleep(delay)
            return
        deadline = time.monotonic() + delay
        while not stopped() and (left := deadline - time.monotonic()) > 0:
            request.stop.wait(min(left, 0.05))  # a cancel of the run's event is polled

    def _drop_stream_options(self, exc: Exception) -> bool:
        """Older servers reject `stream_options`; ask once more without it."""
        if not (self.stream and self._stream_options and rejects_stream_options(exc)):
            return False
        self._stream_options = False
        return True

    @staticmethod
    def _sdk_errors() -> tuple[type[Exception], ...]:
        import openai

        return (openai.OpenAIError, json.JSONDecodeError)


def _shutdown(response: Any) -> None:
    """Shut the response's socket down: unlike close(), this wakes a thread blocked reading it."""
    stream = getattr(response, "extensions", {}).get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
