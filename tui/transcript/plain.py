"""Plain text wrapped as rich wraps it, written out for the lines rich is slow to wrap.

Measured (CPU; `tests/bench/bench_long_answer.py`'s 200 KB answer at 116 columns, the
layout alone): streamed in 4,000 updates, each drawing its last plain chunk again, it
took 4.6 s with this and 12.1 s with rich wrapping each line that does not fit
(`Console.render_lines`); its 180 KB of plain text drawn at once, 13 ms and 275 ms. So
a line that fits is one segment, an ASCII line of single spaces is cut at spaces here as
rich cuts it, and rich wraps every other line (tabs, runs of spaces, wide characters, a
word longer than the width). `tests/tui/test_layout.py` checks both against rich."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.text import Text


def wrap(console: Console, options: ConsoleOptions, text: str, width: int) -> list[list[Segment]]:
    """`text` wrapped at `width` cells as rich wraps it, each line padded to `width`."""
    lines: list[list[Segment]] = []
    for line in text.split("\n"):
        size = width + 1 if "\t" in line else len(line) if line.isascii() else cell_len(line)
        if size <= width:
            lines.append([Segment(line), Segment(" " * (width - size))])
        elif (parts := _simple_wrap(line, width)) is not None:
            lines += ([Segment(part), Segment(" " * (width - len(part)))] for part in parts)
        else:
            long_line = Text(line)
            long_line.expand_tabs()  # as rich's wrap of a whole text does
            lines += console.render_lines(long_line, options.update_width(width))
    return lines


def _simple_wrap(line: str, width: int) -> list[str] | None:
    """An ASCII line of single spaces cut at spaces to `width`; None for any other line,
    and for one with a word longer than `width` (rich folds it, with its own rules)."""
    if not line.isascii() or "  " in line or "\t" in line or line[:1] == " " or line[-1:] == " ":
        return None
    parts, start = [], 0
    while len(line) - start > width:
        cut = line.rfind(" ", start, start + width + 1)
        if cut <= start:
            return None
        parts.append(line[start:cut])
        start = cut + 1
    parts.append(line[start:])
    return parts
