"""A paged doc's pages: how its text marks where each page starts, and the page of a range.

A PDF's text (`agent.readers.pdf`) starts each page with a line of its own, `[p. iv]`,
holding the label the page prints (or its number, where the PDF gives no labels). A
line of the doc's own text that reads like a mark is indented by the reader, so every
mark is one. `Pages.span` is the one place that names the page of a line range.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

OPEN, CLOSE = "[p. ", "]"
MAX_LABEL = 32
"""Characters of a page label kept at most (a label is outside text: a PDF sets it)."""


def page_mark(label: str) -> str:
    """The line that starts a page printed as `label`."""
    return f"{OPEN}{label}{CLOSE}"


def clean_label(label: str, number: int) -> str:
    """A page's label as a mark can hold it: one short line, no brackets or dashes that
    would make a mark, a span or a tool's `(p. iv)` ambiguous; the page's number when
    nothing is left."""
    kept = "".join(c if c.isprintable() and c not in "[]()–" else " " for c in label[:MAX_LABEL])
    return " ".join(kept.split()) or str(number)


def mark_label(line: str) -> str | None:
    """The label a page mark holds, or None for any other line."""
    if line.startswith(OPEN) and line.endswith(CLOSE) and len(line) <= len(OPEN) + MAX_LABEL + 1:
        return line[len(OPEN) : -len(CLOSE)] or None
    return None


@dataclass(frozen=True)
class Pages:
    """Where pages start: `starts[i]` is the first line (1-based) of the page `labels[i]`."""

    starts: tuple[int, ...] = ()
    labels: tuple[str, ...] = ()

    @classmethod
    def of(cls, marks: Iterable[tuple[int, str]]) -> Pages:
        """Pages from (line, label) pairs in any order (a line given twice: its last label)."""
        found = dict(marks)
        ordered = sorted(found.items())
        return cls(tuple(n for n, _ in ordered), tuple(label for _, label in ordered))

    def label(self, line: int) -> str | None:
        """The label of the page line `line` stands on (None before the first mark)."""
        at = bisect_right(self.starts, line) - 1
        return self.labels[at] if at >= 0 else None

    def span(self, start: int, end: int) -> str | None:
        """The pages of lines `start`-`end` as a citation names them: `iv`, `12–13`."""
        first, last = self.label(start), self.label(max(start, end))
        if first is None or last is None:
            return None
        return first if first == last else f"{first}–{last}"


def pages_in(text: str) -> Pages:
    """The page marks of a paged doc's text (lines split at `\\n`): found with `str.find`,
    the lines between them counted, not split."""
    marks = []
    line, counted = 1, 0
    at = 0 if text.startswith(OPEN) else _next_mark(text, 0)
    while at >= 0:
        line += text.count("\n", counted, at)
        counted = at
        end = text.find("\n", at)
        label = mark_label(text[at : end if end >= 0 else len(text)])
        if label is not None:
            marks.append((line, label))
        at = _next_mark(text, at)
    return Pages(tuple(n for n, _ in marks), tuple(label for _, label in marks))


def _next_mark(text: str, at: int) -> int:
    """Where the next line from `at` on that starts like a mark begins, or -1."""
    found = text.find("\n" + OPEN, at)
    return found + 1 if found >= 0 else -1


def shown(span: str) -> str:
    """A span as the answer and the tools show it: `p. iv`, `p. 12–13`."""
    return f"p. {span}"
