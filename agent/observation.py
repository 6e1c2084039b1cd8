"""Helpers beside the loop: truncating observations and tool names, collecting a run's result."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agent.defaults import DEFAULT_MAX_OBSERVATION
from agent.events import Event, MessageAppended, RunFinished, RunStats, StopReason
from agent.messages import Message


def truncate(text: str, limit: int = DEFAULT_MAX_OBSERVATION) -> str:
    """`text` cut to about `limit` characters, with a marker that gives the full length."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    head = text[: cut if cut > limit // 2 else limit]
    return f"{head}\n[... truncated: {len(text):,} characters in all]"


MAX_TOOL_NAME = 256
"""Characters of a tool name kept (real ones are under 64); a longer one is cut with its
length, so that a name a server or client made up cannot fill a trace line."""

MAX_CALL_ID = 256
"""Characters of a tool call's id kept; a longer id is replaced by one of ours."""


def cut_name(name: str, length: int | None = None) -> str:
    """`name` if it is at most MAX_TOOL_NAME characters; else its start and its length
    (`length`: the whole name's, when only its start was kept)."""
    length = len(name) if length is None else length
    if length <= MAX_TOOL_NAME:
        return name
    return f"{name[:64]}… ({length:,} characters)"


@dataclass
class RunResult:
    """What a run came to, collected from its events."""

    stop_reason: StopReason = "error"
    answer: str | None = None
    stats: RunStats = field(default_factory=RunStats)
    error: str | None = None
    output: dict[str, Any] | None = None
    messages: list[Message] = field(default_factory=list)

    def add(self, event: Event) -> None:
        """Fold one event into the result."""
        if isinstance(event, MessageAppended):
            self.messages.append(event.message)
        elif isinstance(event, RunFinished):
            self.stop_reason = event.stop_reason
            self.answer = event.answer
            self.stats = event.stats
            self.error = event.error
            self.output = event.output

    @classmethod
    def collect(cls, events: Iterable[Event]) -> RunResult:
        """Run the events to the end and return the result."""
        result = cls()
        for event in events:
            result.add(event)
        return result
