"""What the offline model quotes of a section: whole blocks around its best one.

A block is a run of non-blank lines (a paragraph, a list, a fenced code block kept
whole). The quote is the section whole when it fits in `QUOTE_LINES`, else the blocks
around the one that holds most of the question's weight; a quote that ends on a line
announcing more ("as follows:") goes on with the block after it, or says it stops short.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from agent.search.stemming import terms_held

QUOTE_LINES = 30
"""Lines quoted from the best section at most: a whole list, table or example fits,
and the answer stays short enough to read at a glance."""

_FENCE = re.compile(r"^\s*(```|~~~)")


class Weighed(Protocol):
    """A search term and its weight (the policy's `Term`)."""

    @property
    def text(self) -> str: ...

    @property
    def weight(self) -> float: ...


def quote_range(lines: Sequence[str], start: int, terms: Sequence[Weighed]) -> tuple[int, int]:
    """The lines to quote, as (first, last) line numbers, of `lines` that begin at `start`.

    All of them when they fit in `QUOTE_LINES`; else the run of whole blocks (paragraphs,
    lists, code blocks) around the block that holds the most of the question's weight.
    """
    blocks = blocks_of(lines)
    if not blocks:
        return start, start + len(lines) - 1
    if blocks[-1][1] - blocks[0][0] < QUOTE_LINES:
        return start + blocks[0][0], start + blocks[-1][1]
    weights = {t.text: t.weight for t in terms}
    texts = ["\n".join(lines[a : b + 1]) for a, b in blocks]
    scores = [sum(weights[t] for t in held) for held in terms_held(texts, list(weights))]
    best = max(range(len(blocks)), key=lambda i: (scores[i], -i))
    first = last = best
    while last + 1 < len(blocks) and blocks[last + 1][1] - blocks[first][0] < QUOTE_LINES:
        last += 1  # what follows the best block first: a list or an example goes on
    while first > 0 and blocks[last][1] - blocks[first - 1][0] < QUOTE_LINES:
        first -= 1
    while last + 1 < len(blocks) and lines[blocks[last][1]].rstrip().endswith(":"):
        if blocks[last + 1][1] - blocks[first][0] < QUOTE_LINES:
            last += 1  # "…as follows:" goes on with what follows
        elif first < best:
            first += 1  # room for it, from the blocks before the best
        else:
            break  # it does not fit: the answer ends the quote with "…" (`cut_short`)
    end = min(blocks[last][1], blocks[first][0] + QUOTE_LINES - 1)
    return start + blocks[first][0], start + end


def cut_short(lines: Sequence[str], last: int) -> bool:
    """Whether a quote that ends at index `last` of a section's `lines` stops before its
    text does: inside a paragraph or code block, or on a line that announces more ("as
    follows:"). Such a quote ends with "…"."""
    rest = [line for line in lines[last + 1 :] if line.strip()]
    if not rest:
        return False
    ending = lines[last].rstrip()
    return ending.endswith(":") or bool(last + 1 < len(lines) and lines[last + 1].strip())


def blocks_of(lines: Sequence[str]) -> list[tuple[int, int]]:
    """Runs of non-blank lines as (first, last) indexes; a fenced code block is one run."""
    found: list[tuple[int, int]] = []
    begin: int | None = None
    fenced = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        if line.strip() or fenced:
            begin = i if begin is None else begin
        elif begin is not None:
            found.append((begin, i - 1))
            begin = None
    if begin is not None:
        found.append((begin, len(lines) - 1))
    return found
