"""The `ask` printer: one progress line per tool call on stderr, the answer on stdout."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from typing import TextIO

from rich.cells import cell_len, get_character_cell_size

from agent import (
    ArgumentError,
    ContextCompacted,
    Event,
    ModelNotice,
    ModelReplied,
    RetryScheduled,
    RunFinished,
    RunStats,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    parse_arguments,
)
from tui.outcomes import OUTCOMES
from tui.terminal import visible

PREVIEW = 90
ARGUMENTS_WIDTH = 200
NAME_WIDTH = 60
RESULT_MIN = 12
"""On a narrow terminal, the cells a result's start keeps before the arguments are cut."""
ARGUMENTS_MIN = 12


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


def clip(text: str, cells: int) -> str:
    """`text` within `cells` terminal cells, ending in … where cut, at a word's end if near."""
    if cell_len(text) <= cells:
        return text
    if cells <= 1:
        return "…"[: max(cells, 0)]
    end = size = 0
    while size + get_character_cell_size(text[end]) <= cells - 1:  # room left for the …
        size += get_character_cell_size(text[end])
        end += 1
    head = text[:end]
    if not text[end].isspace():  # cut inside a word: end at the last one's end, if near
        space = head.rfind(" ")
        if space >= len(head) * 2 // 3:
            head = head[:space]
    return head.rstrip() + "…"


def wrap(text: str, width: int | None) -> list[str]:
    """`text` as lines of at most `width` cells, broken between words (whole when None)."""
    if width is None or cell_len(text) <= width:
        return [text]
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [text]


def fold(line: str, width: int | None, separator: str = " · ") -> list[str]:
    """`line` broken at its separators into as few lines of `width` cells as it can be,
    as evenly as can be; a part wider than `width` (a trace's path) stays whole, for copying.
    """
    if width is None or cell_len(line) <= width:
        return [line]
    parts = line.split(separator)
    best: tuple[int, int] | None = None
    chosen = [line]
    for breaks in range(2 ** (len(parts) - 1)):
        lines = [parts[0]]
        for i, part in enumerate(parts[1:]):
            if breaks >> i & 1:
                lines.append(part)
            else:
                lines[-1] += separator + part
        joined = [cell_len(text) for text in lines if separator in text]
        if any(cells > width for cells in joined):
            continue
        cost = (len(lines), max(joined, default=0))
        if best is None or cost < best:
            best, chosen = cost, lines
    return chosen


def tokens_line(stats: RunStats) -> str:
    """`3,742 prompt + 666 completion tokens`, marked ≈ when estimated."""
    usage = stats.usage
    mark = "≈" if usage.estimated else ""
    prompt, completion = usage.prompt_tokens, usage.completion_tokens
    return f"{mark}{prompt:,} prompt + {mark}{completion:,} completion tokens"


def summary_line(
    event: RunFinished,
    trace: str | None = None,
    *,
    outcome: str | None = None,
    model: str | None = None,
    served: bool = False,
) -> str:
    """The closing line: how the run ended (`outcome`, else its stop reason), steps, tool
    calls, tokens, time, model, trace. A `served` session (`agent.is_served`) asked no
    model, so it has no tokens to show."""
    stats = event.stats
    how = OUTCOMES[outcome or event.stop_reason].summary
    parts = [
        f"{how} after {stats.steps} step{'s' if stats.steps != 1 else ''}",
        f"{stats.tool_calls} tool call{'s' if stats.tool_calls != 1 else ''}",
    ]
    if not served:
        parts.append(tokens_line(stats))
    if stats.repeats:
        parts.insert(2, f"{stats.repeats} repeated")
    if stats.cost_usd is not None:
        parts.append(f"≈${stats.cost_usd:.4f}")
    parts.append(f"{stats.elapsed_s:.1f} s")
    if model:
        parts.append(f"model {model}")
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
    """Writes progress lines for events as they happen, each through `write` (one line).

    With a `width` (a terminal's), each line fits in it: the arguments and the result's
    start share the room, cut at a word's end where they can be. Without, lines are whole.
    """

    def __init__(self, write: Callable[[str], None], *, width: int | None = None) -> None:
        self.write = write
        self.width = width
        self._calls: dict[str, ToolCallStarted] = {}
        self._text: tuple[int, str] = (0, "")  # the step's streamed text, its start only

    def __call__(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            step, text = self._text
            text = text if step == event.step else ""
            if len(text) < PREVIEW * 4:  # enough for the line; the trace keeps it all
                self._text = (event.step, text + event.text)
        elif isinstance(event, ModelReplied) and event.finish_reason == "cut_off":
            step, text = self._text
            tokens = f"≈{event.usage.completion_tokens:,} tok"
            shown = preview(text if step == event.step else "")
            self._line(f"[step {event.step}] reply cut off after {tokens}: ", result=shown)
        elif isinstance(event, ToolCallStarted):
            self._calls[event.tool_call_id] = event
        elif isinstance(event, ToolCallFinished):
            mark = "✗" if event.error else "→"
            name = preview(event.name, NAME_WIDTH)
            if event.repeat_of is not None:
                result = f"repeat of step {event.repeat_of} (not run again)"
            else:
                result = preview(event.output)
            self._line(f"[step {event.step}] {name}(", self._arguments(event), f") {mark} ", result)
        elif isinstance(event, ContextCompacted):
            saved = f"{len(event.stubs)} old result{'s' if len(event.stubs) != 1 else ''}"
            self._line(
                f"[step {event.step}] context: shortened {saved}, ≈{event.tokens_saved:,} tok saved"
            )
        elif isinstance(event, ModelNotice):
            self._line(f"[step {event.step}] {event.text}")
        elif isinstance(event, RetryScheduled):
            wait = f"retry {event.attempt} in {event.delay_s:.1f} s"
            self._line(f"[step {event.step}] {wait}: {event.reason}")

    def _line(self, head: str, arguments: str = "", middle: str = "", result: str = "") -> None:
        if self.width is not None:  # measured as shown: a control character as its picture
            head, arguments, middle, result = map(visible, (head, arguments, middle, result))
            arguments, result = _share(self.width - cell_len(head + middle), arguments, result)
            self.write(clip(head + arguments + middle + result, self.width))
        else:
            self.write(head + arguments + middle + result)

    def _arguments(self, event: ToolCallFinished) -> str:
        started = self._calls.get(event.tool_call_id)
        return compact_arguments(started.arguments) if started else ""


def _share(room: int, arguments: str, result: str) -> tuple[str, str]:
    """The arguments and the result cut to share `room` cells, the arguments first: they
    say what the model asked for, and the result's start often repeats them."""
    if cell_len(arguments) + cell_len(result) <= room:
        return arguments, result
    kept = min(cell_len(result), RESULT_MIN)
    arguments = clip(arguments, max(room - kept, ARGUMENTS_MIN))
    return arguments, clip(result, max(room - cell_len(arguments), 0))
