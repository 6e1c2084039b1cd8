"""Turning chat-completions replies (streamed chunks or one completion) into a `Reply`.

Providers disagree on the details, so everything here reads the SDK's objects (and the
streamed chunks, as `Fields`) leniently: fields may be missing or None, tool-call
fragments may lack an `index`, ids and names may be repeated or arrive late, and usage
may never come.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.errors import ProtocolError
from agent.events import Usage
from agent.messages import Message, ToolCall
from agent.models.base import Reply, ToolSchema, estimate_usage
from agent.observation import MAX_CALL_ID, MAX_TOOL_NAME, cut_name


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""  # at most MAX_TOOL_NAME characters of it are kept ...
    name_length: int = 0  # ... and its whole length counted
    arguments: list[str] = field(default_factory=list)

    def add_name(self, piece: str) -> None:
        """Append a piece of a name streamed in pieces (only what fits is kept)."""
        if len(self.name) <= MAX_TOOL_NAME:
            self.name += piece[: MAX_TOOL_NAME + 1 - len(self.name)]
        self.name_length += len(piece)

    @property
    def whole_name(self) -> str:
        """The name, cut with its length when it is longer than MAX_TOOL_NAME."""
        return cut_name(self.name, self.name_length)

    @property
    def complete_json(self) -> bool:
        try:
            json.loads("".join(self.arguments))
        except (ValueError, RecursionError):
            return False
        return True


class ToolCallAssembler:
    """Rebuilds tool calls streamed in fragments, in the order they first appear."""

    def __init__(self) -> None:
        self.calls: list[_PartialCall] = []
        self._by_index: dict[int, _PartialCall] = {}

    def add(self, fragment: Any) -> None:
        """Merge one `delta.tool_calls[i]` fragment."""
        index = getattr(fragment, "index", None)
        call_id = getattr(fragment, "id", None) or ""
        function = getattr(fragment, "function", None)
        name = getattr(function, "name", None) or ""
        arguments = arguments_text(getattr(function, "arguments", None))
        call = self._slot(index if isinstance(index, int) else None, call_id, name)
        if call_id and not call.id:
            call.id = call_id
        if name and not call.name:
            call.add_name(name)
        elif name and name != call.name:
            call.add_name(name)  # a name streamed in pieces
        if arguments:
            call.arguments.append(arguments)

    def _slot(self, index: int | None, call_id: str, name: str) -> _PartialCall:
        if index is not None:
            call = self._by_index.get(index)
            # Some providers reuse index 0 for every parallel call, each with its own id.
            if call is None or (call_id and call.id and call_id != call.id):
                call = self._by_index[index] = self._new()
            return call
        last = self.calls[-1] if self.calls else None
        if call_id:
            known = next((c for c in self.calls if c.id == call_id), None)
            if known is not None:
                return known
            return last if last is not None and not last.id else self._new()
        if last is None:
            return self._new()
        if name and last.name and (name != last.name or last.complete_json):
            return self._new()  # whole calls sent one per fragment, without index or id
        return last

    def _new(self) -> _PartialCall:
        call = _PartialCall()
        self.calls.append(call)
        return call


class Fields:
    """A streamed chunk's JSON object, read as the SDK's objects are read: `chunk.choices`.

    The SDK would build a typed object from every chunk (its `construct_type`), a sixth of
    eval's CPU at `--concurrency 16`, for fields this module reads leniently anyway. A
    field the object lacks is an AttributeError, as on the SDK's objects.
    """

    __slots__ = ("_json",)

    def __init__(self, json_object: dict[str, Any]) -> None:
        self._json = json_object

    def __getattr__(self, name: str) -> Any:
        try:
            value = self._json[name]
        except KeyError:
            raise AttributeError(name) from None
        return fields(value)

    def __repr__(self) -> str:
        return repr(self._json)


def fields(value: Any) -> Any:
    """A JSON value with its objects read as `Fields` (a chunk as the stream decoded it)."""
    if isinstance(value, dict):
        return Fields(value)
    if isinstance(value, list):
        return [fields(item) for item in value]
    return value


class StreamAssembler:
    """Accumulates `chat.completion.chunk`s: text, tool calls, finish reason and usage."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.tools = ToolCallAssembler()
        self.finish_reason: str | None = None
        self.usage: Any = None
        self.chunks = 0
        self.size = 0
        """Characters of text and tool-call arguments so far."""

    @property
    def empty(self) -> bool:
        """Whether no text and no tool call has arrived."""
        return not self.text and not self.tools.calls

    def feed(self, chunk: Any) -> str:
        """Take one chunk; return its text (empty if it brought none)."""
        if not hasattr(chunk, "choices"):
            raise ProtocolError(f"the endpoint sent unexpected stream data: {str(chunk)[:80]}")
        self.chunks += 1
        if getattr(chunk, "usage", None) is not None:
            self.usage = chunk.usage
        choices = chunk.choices or []
        if not isinstance(choices, list):
            raise ProtocolError(f"the endpoint sent unexpected stream data: {str(chunk)[:80]}")
        text = ""
        for choice in choices[:1]:  # we ask for one choice; ignore any others
            delta = getattr(choice, "delta", None)
            for fragment in _tool_calls(delta):
                self.tools.add(fragment)
                function = getattr(fragment, "function", None)
                for part in (getattr(function, "arguments", None), getattr(function, "name", None)):
                    self.size += len(part) if isinstance(part, str) else 0
            text = _text_of(delta)
            if text:
                self.text.append(text)
                self.size += len(text)
            if getattr(choice, "finish_reason", None):
                self.finish_reason = str(choice.finish_reason)
        return text

    def unfinished(self, endpoint: str) -> str | None:
        """Once the stream has ended: why to ask again without streaming, or None.

        A stream with nothing in it and no finish is what servers that cannot stream this
        reply send; one with text but neither a finish nor the usage that closes a stream
        was cut off (ProtocolError).
        """
        if self.finish_reason is not None:
            return None
        if self.empty:
            return f"{endpoint} ended a streamed reply with nothing in it"
        if self.usage is None and not self.tools.calls:
            raise ProtocolError(
                f"{endpoint} ended the stream before the reply was finished (no finish "
                "reason); a server that runs one request at a time ends a stream when "
                "another request arrives"
            )
        return None

    def reply(
        self, messages: Sequence[Message], tools: Sequence[ToolSchema], new_id: Callable[[], str]
    ) -> Reply:
        """The complete reply once the stream has ended."""
        calls = [(c.id, c.whole_name, "".join(c.arguments)) for c in self.tools.calls]
        text = "".join(self.text)
        return build_reply(text, calls, self.finish_reason, self.usage, messages, tools, new_id)


def reply_from_completion(
    completion: Any,
    messages: Sequence[Message],
    tools: Sequence[ToolSchema],
    new_id: Callable[[], str],
) -> Reply:
    """The reply of a non-streamed `chat.completion`."""
    choices = getattr(completion, "choices", None)
    if not choices:
        raise ProtocolError("the endpoint sent a reply with no choices")
    choice = choices[0]
    message = getattr(choice, "message", None)
    calls = [
        (
            getattr(call, "id", None) or "",
            getattr(getattr(call, "function", None), "name", None) or "",
            arguments_text(getattr(getattr(call, "function", None), "arguments", None)),
        )
        for call in _tool_calls(message)
    ]
    finish = getattr(choice, "finish_reason", None)
    usage = getattr(completion, "usage", None)
    return build_reply(_text_of(message), calls, finish, usage, messages, tools, new_id)


def build_reply(
    text: str,
    calls: Sequence[tuple[str, str, str]],
    finish_reason: str | None,
    usage: Any,
    messages: Sequence[Message],
    tools: Sequence[ToolSchema],
    new_id: Callable[[], str],
) -> Reply:
    """A `Reply` from the parts, normalising what providers leave out."""
    tool_calls = tuple(
        ToolCall(
            id=call_id if 0 < len(call_id) <= MAX_CALL_ID else new_id(),
            name=cut_name(name),
            arguments=arguments if arguments.strip() else "{}",
        )
        for call_id, name, arguments in calls
    )
    if tool_calls and finish_reason in (None, "stop", "function_call"):
        finish_reason = "tool_calls"  # some providers say "stop" (or nothing) with tool calls
    message = Message(role="assistant", content=text or None, tool_calls=tool_calls)
    prompt = _count(getattr(usage, "prompt_tokens", None))
    completion = _count(getattr(usage, "completion_tokens", None))
    if usage is None or prompt is None or completion is None:
        return Reply(message, estimate_usage(messages, tools, message), finish_reason)
    return Reply(message, Usage(prompt, completion), finish_reason)


MAX_COUNT = 10**12
"""Tokens one call may report: far past any context, far below what a trace can hold
(its numbers stay under 2**63 even summed over millions of calls)."""


def _count(value: Any) -> int | None:
    """A token count as the server reported it (0 when left out); None when it is not one:
    negative, fractional, not a number, or past `MAX_COUNT` (10**30, 1e308, "NaN")."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():  # NaN and infinities too
        return None
    return int(value) if 0 <= value <= MAX_COUNT else None


def arguments_text(arguments: Any) -> str:
    """A call's arguments as JSON text: some servers send them as an object, not a string."""
    if arguments is None:
        return ""
    if isinstance(arguments, Fields):
        arguments = arguments._json
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(arguments)


@dataclass(frozen=True)
class _Function:
    name: Any
    arguments: Any


@dataclass(frozen=True)
class _LegacyCall:
    """A legacy `function_call` read as a tool call (no id: one is made up)."""

    function: _Function
    index: int = 0
    id: None = None


def _tool_calls(delta_or_message: Any) -> list[Any]:
    """The tool calls of a delta or message; a legacy `function_call` when there are none."""
    calls = getattr(delta_or_message, "tool_calls", None)
    if calls:
        return list(calls)
    legacy = getattr(delta_or_message, "function_call", None)
    if legacy is None:
        extra = getattr(delta_or_message, "model_extra", None) or {}
        legacy = extra.get("function_call") if isinstance(extra, dict) else None
    if legacy is None:
        return []
    name = legacy.get("name") if isinstance(legacy, dict) else getattr(legacy, "name", None)
    arguments = (
        legacy.get("arguments") if isinstance(legacy, dict) else getattr(legacy, "arguments", None)
    )
    return [_LegacyCall(_Function(name, arguments))]


def _text_of(delta_or_message: Any) -> str:
    content = getattr(delta_or_message, "content", None)
    if content is None:
        content = getattr(delta_or_message, "refusal", None)  # a refusal is the answer
    return content if isinstance(content, str) else ""
