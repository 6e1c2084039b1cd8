"""What a strict chat-completions server refuses (llama-cpp-python's request model): the
checks `ChatServer(strict=True)` applies before it answers."""

from __future__ import annotations

from typing import Any

FIELDS = {"model", "messages", "tools", "tool_choice", "stream", "stream_options", "max_tokens"}
MESSAGE_FIELDS = {
    "system": {"role", "content"},
    "user": {"role", "content"},
    "assistant": {"role", "content", "tool_calls"},
    "tool": {"role", "content", "tool_call_id"},
}


def validate_request(body: dict[str, Any]) -> str | None:
    """Why a strict server (llama-cpp-python's request model) would reject this body, or None."""
    unknown = sorted(set(body) - FIELDS)
    if unknown:
        return f"body: extra inputs are not permitted: {unknown}"
    return validate(body.get("messages") or [])


def validate(messages: list[dict[str, Any]]) -> str | None:
    """Why a strict provider would reject this conversation, or None."""
    pending: list[str] = []
    seen: set[str] = set()
    for i, message in enumerate(messages):
        role = message.get("role")
        if not isinstance(message.get("content"), str):
            return f"messages[{i}].content: Input should be a valid string"
        extra = sorted(set(message) - MESSAGE_FIELDS.get(str(role), set()))
        if extra:
            return f"messages[{i}]: extra inputs are not permitted: {extra}"
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                return (
                    f"messages[{i}]: a tool message must answer a preceding tool call; "
                    f"no pending tool_call_id {call_id!r}"
                )
            pending.remove(call_id)
            continue
        if pending:
            return f"messages[{i}]: tool_call_ids {pending} have no tool response message"
        calls = (message.get("tool_calls") or ()) if role == "assistant" else ()
        for call in calls:
            call_id = call.get("id")
            if not call_id or call_id in seen:
                return f"messages[{i}]: missing or duplicate tool_call id {call_id!r}"
            seen.add(call_id)
            pending.append(call_id)
    if pending:
        return f"tool_call_ids {pending} have no tool response message"
    return None
