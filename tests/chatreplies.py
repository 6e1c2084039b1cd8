"""What the scripted chat-completions server (`tests.chatserver`) sends: the responses a
test pushes (`Reply`, `SSE`, `Completion`, `Status`, `Hang`, `Ping`, `Cut`, `Drop`, `Slow`) and
the chat-completions JSON and stream events a `Reply` becomes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

MODEL = "test-model"


@dataclass(frozen=True)
class Call:
    """A tool call in a scripted reply; `arguments` is streamed in `pieces` fragments."""

    name: str
    arguments: str
    id: str | None = "call_1"
    pieces: int = 3


@dataclass(frozen=True)
class Reply:
    """An assistant reply, streamed (text in pieces, tool calls in fragments) or whole."""

    content: str | None = None
    calls: Sequence[Call] = ()
    usage: tuple[int, int] | None = (10, 5)
    finish_reason: str | None = "stop"
    text_piece: int = 4
    interleave: bool = False


@dataclass(frozen=True)
class SSE:
    """A raw stream: dicts are sent as JSON `data:` lines, strings verbatim."""

    events: Sequence[dict[str, Any] | str]
    done: bool = True


@dataclass(frozen=True)
class Completion:
    """A raw non-streamed body: a dict is sent as JSON, a string verbatim."""

    body: dict[str, Any] | str


@dataclass(frozen=True)
class Status:
    """An error status with an OpenAI-style error body."""

    code: int
    message: str = "error"
    retry_after: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Hang:
    """Send `events` as a stream, then stall for `seconds` (bounded) and close.

    With `answer=False` nothing at all is sent, not even the status line.
    """

    events: Sequence[dict[str, Any] | str] = ()
    seconds: float = 3.0
    answer: bool = True


@dataclass(frozen=True)
class Ping:
    """Send `events` as a stream, then an SSE comment every `every` s until the client leaves."""

    events: Sequence[dict[str, Any] | str] = ()
    every: float = 0.1
    seconds: float = 10.0  # a bound, so a client that never gives up cannot hold the test


@dataclass(frozen=True)
class Cut:
    """Stream `events` with chunked encoding, then close the connection mid-body."""

    events: Sequence[dict[str, Any] | str] = ()


@dataclass(frozen=True)
class Drop:
    """Close the connection without answering."""


@dataclass(frozen=True)
class Endless:
    """Stream content deltas of `piece` as fast as the client reads, without ever finishing,
    until the client leaves, the server stops, or `seconds` pass (a bound for the test).
    With `line`, the stream is one `data:` line that never ends: `piece` after `piece`."""

    piece: str = "x" * 8192
    seconds: float = 60.0
    line: bool = False


@dataclass(frozen=True)
class Slow:
    """Send `reply` only after `seconds` (bounded): a slow model working on a whole reply."""

    reply: Reply
    seconds: float = 1.0


Response = Reply | SSE | Completion | Status | Hang | Ping | Cut | Drop | Endless | Slow


def chunk(delta: dict[str, Any] | None = None, finish_reason: str | None = None) -> dict[str, Any]:
    """One `chat.completion.chunk` with a single choice."""
    choice = {"index": 0, "delta": delta or {}, "finish_reason": finish_reason}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": MODEL,
        "choices": [choice],
    }


def usage_chunk(prompt: int, completion: int) -> dict[str, Any]:
    """The final chunk `include_usage` asks for: no choices, only usage."""
    usage = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": MODEL,
        "choices": [],
        "usage": usage,
    }


def _split(text: str, n: int) -> list[str]:
    size = max(1, -(-len(text) // max(1, n)))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def stream_events(reply: Reply) -> list[dict[str, Any]]:
    """The chunks a provider would stream for `reply`."""
    events = [chunk({"role": "assistant", "content": ""})]
    text = reply.content or ""
    events += [
        chunk({"content": text[i : i + reply.text_piece]})
        for i in range(0, len(text), reply.text_piece)
    ]
    per_call: list[list[dict[str, Any]]] = []
    for index, call in enumerate(reply.calls):
        frags: list[dict[str, Any]] = []
        for n, piece in enumerate(_split(call.arguments, call.pieces)):
            frag: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
            if n == 0:
                frag.update(type="function", id=call.id)
                frag["function"]["name"] = call.name
            frags.append(frag)
        per_call.append(frags)
    order = _interleave(per_call) if reply.interleave else [f for fs in per_call for f in fs]
    events += [chunk({"tool_calls": [frag]}) for frag in order]
    events.append(chunk({}, reply.finish_reason))
    if reply.usage is not None:
        events.append(usage_chunk(*reply.usage))
    return events


def _interleave(lists: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(max((len(x) for x in lists), default=0)):
        out += [x[i] for x in lists if i < len(x)]
    return out


def completion_body(reply: Reply) -> dict[str, Any]:
    """The JSON body a provider would return for `reply` without streaming."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in reply.calls
        ]
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
    }
    if reply.usage is not None:
        body["usage"] = usage_chunk(*reply.usage)["usage"]
    return body
