"""The OpenAI-compatible model: chat completions with tools, streamed or not.

Retries are ours, not the SDK's (the client is built with `max_retries=0`), so each one
is visible as a `Retry` chunk: 429 and 5xx answers, and a connection dropped before any
reply, are retried with exponential backoff (or the server's Retry-After, capped). A
refused connection, an unknown host and timeouts are not retried: they fail fast.

The clients are made on first use (`connection.py`), what the server says of itself is
learned on the first query (`endpoint.py`), and `cancel` reaches the queries in flight
from any thread (`inflight.py`).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
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
from agent.models.base import Chunk, Notice, Retry, ToolSchema
from agent.models.openai.address import endpoint_of
from agent.models.openai.connection import Connection
from agent.models.openai.endpoint import Endpoint
from agent.models.openai.errors import (
    Context,
    retry_delay,
    retry_reason,
    translate,
)
from agent.models.openai.inflight import InFlight, Request
from agent.models.openai.known import KnownEndpoints
from agent.models.openai.reading import read_stream
from agent.models.openai.request import Sender, reply_cap
from agent.models.openai.secret import KeyFilter
from agent.models.openai.stream import reply_from_completion

if TYPE_CHECKING:
    from openai import OpenAI

    from agent.models.openai.transport import ModelHTTPClient


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
        self.backoff = backoff
        self._api_key = (api_key or "").strip()
        self._sleep = sleep
        self._connection = Connection(self.base_url, self._api_key, shared=http_client)
        self._endpoint = Endpoint(self.base_url, name, known=known)
        self._in_flight = InFlight()
        self._sender = Sender()
        self._ids = itertools.count(1)

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
        client = self._connection.open(self.timeout, self.request_timeout)
        yield from self._learn()
        self._check_fits(messages)
        request = self._in_flight.start()
        try:
            yield from self._attempts(client, messages, tools, request, cancel)
        finally:
            self._in_flight.end(request)

    def _learn(self) -> Iterator[Chunk]:
        """On the first query: the endpoint's context, unless given, and a warning when its
        listing does not hold this model's name (endpoint.py)."""
        learned = self._endpoint.learn(self._connection, self.context_window)
        if learned is None:
            return
        self.context_window = learned.context
        if learned.warning is not None:
            yield Notice(learned.warning)

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
        self._in_flight.cancel()

    def close(self) -> None:
        """Cancel the queries in flight and release the HTTP client (made again when needed).

        Shutting the client's connections down also ends a whole (not streamed) request
        that is blocked on a hung server, which `cancel` alone leaves to finish.
        """
        self.cancel()
        self._connection.close()

    def _attempts(
        self,
        client: OpenAI,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        request: Request,
        cancel: threading.Event | None,
    ) -> Iterator[Chunk]:
        """The request, tried again after transient failures, until a reply or a stop."""

        def stopped() -> bool:
            return request.stop.is_set() or (cancel is not None and cancel.is_set())

        retries = 0
        while True:
            streamed = self.stream and self._endpoint.streams
            request.begin()
            try:
                if (yield from self._attempt(client, messages, tools, request, stopped, streamed)):
                    continue  # asked again, unstreamed
                return
            except errors.ModelError:
                raise
            except Exception as exc:
                if stopped():
                    return  # shutting the stream down under us is how a cancel lands mid-read
                if not isinstance(exc, self._sdk_errors()):
                    raise
                if self.stream and self._sender.drop_stream_options(exc):
                    yield Retry(retries + 1, 0.0, "endpoint rejected stream_options")
                    continue
                retry = self._retry(exc, self._context(streamed, retries, request))
                retries = retry.attempt
                yield retry
                request.wait(retry.delay_s, stopped, sleep=self._sleep)
                if stopped():
                    return

    def _attempt(
        self,
        client: OpenAI,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        request: Request,
        stopped: Callable[[], bool],
        streamed: bool,
    ) -> Generator[Chunk, None, bool]:
        """Ask once; return True when the request is to be asked again without streaming.

        A stream that brings nothing (no finish, no text, no tool call), or an error event
        before anything else, is asked again once without streaming, and every later
        request goes unstreamed too: servers that cannot stream tool calls do this, and a
        whole request gets the server's own error message where a stream got nothing.
        """
        if not streamed:
            if not stopped():
                yield from self._whole(client, messages, tools, stopped)
            return False
        why = yield from self._streamed(client, messages, tools, request, stopped)
        if why is None or stopped():
            return False
        self._endpoint.cannot_stream()
        yield Notice(f"{why}; asking without streaming from now on")
        return True

    def _retry(self, exc: Exception, ctx: Context) -> Retry:
        """The next retry after `exc`; the run-ending error when it is not worth one, or
        the retries are spent."""
        reason = retry_reason(exc, ctx.received)
        if reason is None or ctx.retries >= self.max_retries:
            raise translate(exc, ctx) from exc
        return Retry(ctx.retries + 1, retry_delay(exc, ctx.retries + 1, self.backoff), reason)

    def _context(self, streamed: bool, retries: int, request: Request) -> Context:
        """What the error of a failed attempt may mention."""
        return Context(
            self.name,
            self.base_url,
            self.timeout if streamed else self._whole_timeout,
            self._api_key,
            received=request.received,
            retries=retries,
            request_timeout=self.request_timeout,
            partial=request.partial,
        )

    def _post(
        self,
        client: OpenAI,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        stream: bool,
    ) -> Any:
        import openai

        # A whole reply comes in one piece: it may take the request's time in all to come.
        timeout = self.timeout if stream else openai.Timeout(self.timeout, read=self._whole_timeout)
        return self._sender.post(
            client,
            self.name,
            messages,
            tools,
            stream=stream,
            max_tokens=reply_cap(self.max_reply_tokens, self.context_window),
            tool_choice=self.tool_choice,
            timeout=timeout,
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
        request: Request,
        stopped: Callable[[], bool],
    ) -> Generator[Chunk, None, str | None]:
        """Stream one reply; return why to ask again without streaming, or None when done."""
        return (
            yield from read_stream(
                self._post(client, messages, tools, stream=True),
                request,
                stopped,
                limit=self.max_reply_chars,
                endpoint=self.endpoint,
                api_key=self._api_key,
                reply=lambda assembler: assembler.reply(messages, tools, self._new_id),
            )
        )

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

    @staticmethod
    def _sdk_errors() -> tuple[type[Exception], ...]:
        import openai

        return (openai.OpenAIError, json.JSONDecodeError)
