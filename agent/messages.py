"""Chat messages in the shape the chat-completions API expects, as frozen values."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    """One tool call requested by the model; `arguments` is the raw JSON text as sent."""

    id: str
    name: str
    arguments: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCall:
        function = data.get("function") or {}
        return cls(
            id=str(data.get("id", "")),
            name=str(function.get("name", "")),
            arguments=str(function.get("arguments") or ""),
        )


@dataclass(frozen=True)
class Message:
    """A chat message: system, user, assistant (maybe with tool calls) or tool result."""

    role: Role
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = field(default=())
    tool_call_id: str | None = None
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The message as the chat-completions API wants it."""
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        if self.name is not None and self.role == "tool":
            data["name"] = self.name
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        return cls(
            role=data["role"],
            content=data.get("content"),
            tool_calls=tuple(ToolCall.from_dict(c) for c in data.get("tool_calls") or ()),
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
        )


def system(text: str) -> Message:
    """A system message."""
    return Message(role="system", content=text)


def user(text: str) -> Message:
    """A user message."""
    return Message(role="user", content=text)


def assistant(text: str | None = None, tool_calls: tuple[ToolCall, ...] = ()) -> Message:
    """An assistant message, optionally with tool calls."""
    return Message(role="assistant", content=text, tool_calls=tool_calls)


def tool_result(call: ToolCall, text: str) -> Message:
    """The tool message that answers `call`."""
    return Message(role="tool", content=text, tool_call_id=call.id, name=call.name)


def with_unique_call_ids(message: Message, earlier: Iterable[Message]) -> Message:
    """`message` with every tool call id unique in the conversation, empty ones filled in.

    Strict endpoints refuse a conversation in which two tool calls share an id, and some
    models repeat ids (or send none): a repeat of `x` becomes `x_2` (then `x_3`, ...), a
    missing one `call_1`, `call_2`, .... The tool results then answer the renamed calls.
    """
    taken = {call.id for m in earlier for call in m.tool_calls}
    calls = []
    for call in message.tool_calls:
        fresh = call.id
        if not fresh or fresh in taken:
            stem, n = (call.id, 2) if call.id else ("call", 1)
            while f"{stem}_{n}" in taken:
                n += 1
            fresh = f"{stem}_{n}"
        taken.add(fresh)
        calls.append(call if fresh == call.id else replace(call, id=fresh))
    return replace(message, tool_calls=tuple(calls)) if calls else message
