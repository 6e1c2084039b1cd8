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
  without it, see `model.py`).

The body is handed to the SDK as it is, never walked again (see `model.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent.messages import Message
from agent.models.base import ToolSchema


def request_body(
    model: str,
    messages: Sequence[Message],
    tools: Sequence[ToolSchema],
    *,
    stream: bool,
    stream_options: bool = True,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """The JSON body of one `/chat/completions` request."""
    body: dict[str, Any] = {"model": model, "messages": [m.to_wire() for m in messages]}
    if tools:
        body["tools"] = list(tools)
        body["tool_choice"] = "auto"
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
