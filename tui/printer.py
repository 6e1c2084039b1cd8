"""The `ask` printer: one progress line per tool call on stderr, the answer on stdout."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TextIO

from agent import (
    ArgumentError,
    ContextCompacted,
    Event,
    RetryScheduled,
    RunFinished,
    RunStats,
    ToolCallFinished,
    ToolCallStarted,
    parse_arguments,
)
from tui.outcomes import OUTCOMES

PREVIEW = 90
ARGUMENTS_WIDTH = 200
NAME_WIDTH = 60


def compact_arguments(raw: str, width: int = ARGUMENTS_WIDTH) -> str:
    """Arguments as compact one-line JSON (the raw text when it is not JSON), cut to `width`."""
    try:
        shown = json.dumps(parse_arguments(raw), ensure_ascii=False)
    except ArgumentError:
        shown = raw
    return preview(shown, width)


def preview(text: str, width: int = PREVIEW) -> str:
    """The first `width` characters of `text` on one line."""
    head = text[: width * 4 + 64]  # whitespace collapses, so look a little past `width`
    flat = " ".join(head.split())
    if len(flat) <= width and len(head) == len(text):
        return flat
    return flat[: width - 1] + "…"


def tokens_line(stats: RunStats) -> str:
    """`3,742 prompt + 666 completion tokens`, marked ≈ when estimated."""
    usage = stats.usage
    mark = "≈" if usage.estimated else ""
    prompt, completion = usage.prompt_tokens, usage.completion_tokens
    return f"{mark}{prompt:,} prompt + {mark}{completion:,} completion tokens"


def summary_line(event: RunFinished, trace: str | None = None) -> str:
    """The closing line: how the run ended, steps, tool calls, tokens, time, trace."""
    stats = event.stats
    how = OUTCOMES[event.stop_reason].summary
    parts = [
        f"{how} after {stats.steps} step{'s' if stats.steps != 1 else ''}",
        f"{stats.tool_calls} tool call{'s' if stats.tool_calls != 1 else ''}",
        tokens_line(stats),
    ]
    if stats.repeats:
        parts.insert(2, f"{stats.repeats} repeated")
    if stats.cost_usd is not None:
        parts.append(f"≈${stats.cost_usd:.4f}")
    parts.append(f"{stats.elapsed_s:.1f} s")
    if trace:
        parts.append(f"trace: {trace}")
    return " · ".join(parts)


class IndexProgress:
    """Indexing progress as one line of a terminal, rewritten in place; nothing elsewhere."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.live = err.isatty()
        self._percent = -1

    def __call__(self, done: int, total: int) -> None:
        percent = done * 100 // max(total, 1)
        if not self.live or percent == self._percent:
            return
        self._percent = percent
        self.err.write(f"\rindexing the docs: {done:,} of {total:,} files ({percent}%)\x1b[K")
        self.err.flush()

    def close(self) -> None:
        """Clear the line, if one was written."""
        if self._percent >= 0:
            self.err.write("\r\x1b[K")
            self.err.flush()


class ProgressPrinter:
    """Writes progress lines for events as they happen, each through `write` (one line)."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self._calls: dict[str, ToolCallStarted] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, ToolCallStarted):
            self._calls[event.tool_call_id] = event
        elif isinstance(event, ToolCallFinished):
            mark = "✗" if event.error else "→"
            name = preview(event.name, NAME_WIDTH)
            line = f"[step {event.step}] {name}({self._arguments(event)}) {mark} "
            if event.repeat_of is not None:
                self.write(line + f"repeat of step {event.repeat_of} (not run again)")
            else:
                self.write(line + preview(event.output))
        elif isinstance(event, ContextCompacted):
            saved = f"{len(event.stubs)} old result{'s' if len(event.stubs) != 1 else ''}"
            self.write(
                f"[step {event.step}] context: shortened {saved}, ≈{event.tokens_saved:,} tok saved"
            )
        elif isinstance(event, RetryScheduled):
            wait = f"retry {event.attempt} in {event.delay_s:.1f} s"
            self.write(f"[step {event.step}] {wait}: {event.reason}")

    def _arguments(self, event: ToolCallFinished) -> str:
        started = self._calls.get(event.tool_call_id)
        return compact_arguments(started.arguments) if started else ""
