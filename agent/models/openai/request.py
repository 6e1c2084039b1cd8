"""The body of a chat-completions request: the subset every common server accepts.

Read from the request schemas of llama.cpp's servers (`llama-server`, `llama-cpp-python`),
vLLM, Ollama's OpenAI endpoint, LM Studio and OpenAI:

- messages in their wire form (`Message.to_wire`): content always a string, tool
  messages without `name`;
- `tool_choice: "auto"` whenever tools are sent: OpenAI's default, but `llama-cpp-python`
  reads a missing one as "no tools" and leaves them out of the prompt;
- `max_tokens` for the reply's length (every server takes it; `max_completion_tokens`
  is OpenAI's newer name, unknown to most local servers);
- `stream_options` only on streamed requests (servers that refuse it are asked again
  without it, `Sender.drop_stream_options`).

The body goes to the SDK as JSON bytes it does not walk again (`Sender.post`), and each
message is encoded once: messages are frozen values, and every request of a run resends
the ones before it.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent.messages import Message
from agent.models.base import ToolSchema
from agent.models.openai.errors import rejects_stream_options

if TYPE_CHECKING:
    from openai import OpenAI


def request_body(
    model: str,
    messages: Sequence[Message],
    tools: Sequence[ToolSchema],
    *,
    stream: bool,
    stream_options: bool = True,
    max_tokens: int | None = None,
    tool_choice: str | dict[str, Any] = "auto",
) -> dict[str, Any]:
    """The JSON body of one `/chat/completions` request."""
    body: dict[str, Any] = {"model": model, "messages": [m.to_wire() for m in messages]}
    if tools:
        body["tools"] = list(tools)
        body["tool_choice"] = tool_choice
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    if stream:
        body["stream"] = True
        if stream_options:
            body["stream_options"] = {"include_usage": True}
    return body


def reply_cap(max_reply: int | None, window: int | None) -> int | None:
    """The reply's token limit: `max_reply`, at most a quarter of a known context window."""
    if window is None:
        return max_reply
    quarter = max(window // 4, 1)
    return quarter if max_reply is None else min(max_reply, quarter)


class BodyEncoder:
    """Request bodies as JSON bytes, each message encoded once and then reused."""

    def __init__(self, *, limit: int = 4096) -> None:
        """Args:
        limit: encoded messages kept; past it the cache starts again (a long session).
        """
        self._limit = limit
        self._cache: dict[int, tuple[Message, bytes]] = {}  # by id: no hashing of the text
        self._last: tuple[tuple[Message, ...], bytes] = ((), b"")

    def encode(self, body: dict[str, Any], messages: Sequence[Message]) -> bytes:
        """`body` (a `request_body`) as JSON, its messages from the cache."""
        rest = {key: value for key, value in body.items() if key != "messages"}
        head = json.dumps(rest, ensure_ascii=False, separators=(",", ":")).encode()
        encoded = self._messages(messages)
        return b'{"messages":[' + encoded + b"]" + (b"," + head[1:] if rest else b"}")

    def _messages(self, messages: Sequence[Message]) -> bytes:
        """The messages encoded and joined; the last request's join is reused when this one
        starts with the same messages (the usual case: a run only appends)."""
        sent, joined = self._last
        if sent and len(sent) <= len(messages) and all(map(operator.is_, sent, messages)):
            rest = [self._message(m) for m in messages[len(sent) :]]
            joined = b",".join([joined, *rest]) if rest else joined
        else:
            joined = b",".join([self._message(m) for m in messages])
        self._last = (tuple(messages), joined)
        return joined

    def _message(self, message: Message) -> bytes:
        cached = self._cache.get(id(message))
        if cached is not None and cached[0] is message:  # (the entry holds it: its id is its own)
            return cached[1]
        if len(self._cache) >= self._limit:
            self._cache.clear()
        data = json.dumps(message.to_wire(), ensure_ascii=False, separators=(",", ":")).encode()
        self._cache[id(message)] = (message, data)
        return data


class Sender:
    """Sends one model's requests: each message encoded once, `stream_options` until refused."""

    def __init__(self) -> None:
        self.stream_options = True
        self._encoder = BodyEncoder()

    def post(
        self,
        client: OpenAI,
        model: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        stream: bool,
        max_tokens: int | None,
        tool_choice: str | dict[str, Any],
        timeout: Any,
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
            model,
            (),
            tools,
            stream=stream,
            stream_options=self.stream_options,
            max_tokens=max_tokens,
            tool_choice=tool_choice,
        )
        return client.post(
            "/chat/completions",
            content=self._encoder.encode(body, messages),
            cast_to=ChatCompletion,
            options={"timeout": timeout},
            stream=stream,
            stream_cls=openai.Stream[object],  # chunks as decoded: read as `Fields`
        )

    def drop_stream_options(self, exc: Exception) -> bool:
        """Older servers reject `stream_options`: whether to ask once more, without them."""
        if not (self.stream_options and rejects_stream_options(exc)):
            return False
        self.stream_options = False
        return True
