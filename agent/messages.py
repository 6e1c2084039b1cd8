"""Chat messages in the shape the chat-completions API expects, as frozen values."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal, get_args

Role = Literal["system", "user", "assistant", "tool"]
ROLES: tuple[Role, ...] = get_args(Role)


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
    def from_dict(cls, data: Any) -> ToolCall:
        """The call from its `to_dict` form; ValueError when a field has the wrong type."""
        if not isinstance(data, dict):
            raise ValueError("a tool call must be an object")
        function = data.get("function")
        if function is None:
            function = {}
        if not isinstance(function, dict):
            raise ValueError("a tool call's function must be an object")
        return cls(
            id=_text(data.get("id"), "a tool call's id"),
            name=_text(function.get("name"), "a tool call's name"),
            arguments=_text(function.get("arguments"), "a tool call's arguments"),
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

    def to_wire(self) -> dict[str, Any]:
        """The message as sent to an endpoint: the subset every common server accepts.

        Content is always a string (llama.cpp's Python server rejects `null` on an
        assistant's tool-call turn; OpenAI accepts `""`), and a tool message carries only
        `tool_call_id` and `content` (a `name` there is refused by strict servers).
        """
        data: dict[str, Any] = {"role": self.role, "content": self.content or ""}
        if self.tool_calls:
            data["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        return data

    # Counted once per message (it is frozen, and `replace` makes a new one): every
    # request estimates the whole conversation, which grows by a few messages a step.
    @cached_property
    def json_text(self) -> str:
        """`to_dict()` as JSON text, non-ASCII characters as they are (as a trace writes it)."""
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @cached_property
    def tokens(self) -> int:
        """A rough token count of the message as sent (about four characters a token)."""
        return (len(self.json_text) + 3) // 4

    @cached_property
    def ascii_tokens(self) -> int:
        """`tokens` with non-ASCII characters counted as JSON escapes (`\\u00e9`)."""
        return (len(json.dumps(self.to_dict())) + 3) // 4

    def with_content(self, content: str | None) -> Message:
        """This message with other content; the last one made is kept and given again."""
        made = self.__dict__.get("_with_content")
        if made is None or made.content != content:
            made = replace(self, content=content)
            self.__dict__["_with_content"] = made  # as `cached_property` does: frozen fields
        return made

    @classmethod
    def from_dict(cls, data: Any) -> Message:
        """The message from its `to_dict` form; ValueError when a field has the wrong type."""
        if not isinstance(data, dict):
            raise ValueError("a message must be an object")
        role = data.get("role")
        if role not in ROLES:
            raise ValueError("a message's role must be system, user, assistant or tool")
        calls = data.get("tool_calls")
        if calls is None:
            calls = []
        if not isinstance(calls, list):
            raise ValueError("a message's tool calls must be a list")
        return cls(
            role=role,
            content=_optional_text(data.get("content"), "a message's content"),
            tool_calls=tuple(ToolCall.from_dict(c) for c in calls),
            tool_call_id=_optional_text(data.get("tool_call_id"), "a message's tool call id"),
            name=_optional_text(data.get("name"), "a message's name"),
        )


def _text(value: Any, what: str) -> str:
    """A text field read back: missing is empty, anything but a string is an error."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text")
    return value


def _optional_text(value: Any, what: str) -> str | None:
    return None if value is None else _text(value, what)


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


def call_ids(messages: Iterable[Message]) -> set[str]:
    """The ids of every tool call in `messages`."""
    return {call.id for m in messages for call in m.tool_calls}


def with_unique_call_ids(message: Message, taken: set[str]) -> Message:
    """`message` with every tool call id unique in the conversation, empty ones filled in.

    Strict endpoints refuse a conversation in which two tool calls share an id, and some
    models repeat ids (or send none): a repeat of `x` becomes `x_2` (then `x_3`, ...), a
    missing one `call_1`, `call_2`, .... The tool results then answer the renamed calls.
    `taken` holds the conversation's ids (see `call_ids`); the message's are added to it.
    """
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
