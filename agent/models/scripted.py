"""The scripted model: replays fixed assistant turns (tests, demos and `--model script:FILE`)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from agent.errors import ConfigError, ModelError
from agent.messages import Message, ToolCall, assistant
from agent.models.base import Chunk, Delta, Reply, ToolSchema, estimate_usage


def call(name: str, arguments: dict[str, Any] | str | None = None, *, id: str = "") -> ToolCall:
    """A tool call; `arguments` may be a dict (JSON-encoded) or raw text (sent as is)."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return ToolCall(id=id, name=name, arguments=raw)


def reply(text: str | None = None, *calls: ToolCall) -> Message:
    """An assistant turn with text and/or tool calls."""
    return assistant(text, tuple(calls))


class ScriptedModel:
    """Replays a fixed list of assistant turns, one per query.

    A turn may also be a `ModelError` to raise. Tool calls without an id get
    `call_<turn>_<n>`. When the script runs out the model raises `ModelError`.
    Each query is recorded in `.requests` (the messages it was given).
    """

    def __init__(
        self,
        turns: Sequence[Message | ModelError],
        *,
        name: str = "scripted",
        stream: bool = False,
        gate: threading.Event | None = None,
    ) -> None:
        self.turns = list(turns)
        self.name = name
        self.stream = stream
        self.gate = gate
        self.requests: list[list[Message]] = []
        self._stop = threading.Event()  # the query in flight's: `cancel` sets it

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        """Yield the next scripted turn (streamed in pieces if `stream`)."""
        index = len(self.requests)
        self.requests.append(list(messages))
        stop = self._stop = threading.Event()

        def stopped() -> bool:
            return stop.is_set() or (cancel is not None and cancel.is_set())

        if self.gate is not None:
            # Hold the reply until the test opens the gate or the run is cancelled.
            while not self.gate.wait(0.01):
                if stopped():
                    return
        if index >= len(self.turns):
            raise ModelError(f"the script has only {len(self.turns)} turns")
        turn = self.turns[index]
        if isinstance(turn, ModelError):
            raise turn
        calls = tuple(
            ToolCall(c.id or f"call_{index + 1}_{n}", c.name, c.arguments)
            for n, c in enumerate(turn.tool_calls, start=1)
        )
        message = Message(role="assistant", content=turn.content, tool_calls=calls)
        if self.stream and turn.content:
            for start in range(0, len(turn.content), 16):
                if stopped():
                    return
                yield Delta(turn.content[start : start + 16])
        if stopped():
            return
        yield Reply(
            message, estimate_usage(messages, tools, message), "tool_calls" if calls else "stop"
        )

    def cancel(self) -> None:
        """Stop the query in flight: a held reply is dropped, a streamed one cut short."""
        self._stop.set()


def load_script(path: Path | str) -> ScriptedModel:
    """A scripted model from a JSON file: a list of `{"content": ...}` / `{"tool_calls": [...]}`."""
    file = Path(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"script file not found: {file}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read script file {file}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"script file {file} is not valid JSON: line {exc.lineno}: {exc.msg}"
        ) from None
    if not isinstance(data, list) or not data:
        raise ConfigError(f"script file {file} must hold a non-empty JSON list of turns")
    turns = []
    for number, item in enumerate(data, start=1):
        if not isinstance(item, dict) or not ({"content", "tool_calls"} & set(item)):
            raise ConfigError(f'script file {file}: turn {number} needs "content" or "tool_calls"')
        if not isinstance(item.get("content"), (str, type(None))):
            raise ConfigError(f'script file {file}: turn {number}: "content" must be text')
        if not isinstance(item.get("tool_calls"), (list, type(None))):
            raise ConfigError(f'script file {file}: turn {number}: "tool_calls" must be a list')
        calls = []
        for raw in item.get("tool_calls") or []:
            if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
                raise ConfigError(
                    f"script file {file}: turn {number} has a tool call without a name"
                )
            if not isinstance(raw.get("arguments"), (dict, str, type(None))):
                problem = f"turn {number}: the arguments of {raw['name']} must be an object"
                raise ConfigError(f"script file {file}: {problem}")
            calls.append(call(raw["name"], raw.get("arguments"), id=str(raw.get("id", ""))))
        turns.append(reply(item.get("content"), *calls))
    return ScriptedModel(turns, name=f"script:{file.name}")
