"""A search result (`Hit`): where the section is, how well it matches, and its snippet
with the matched words marked."""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINK_TARGET = re.compile(  # `](path#anchor "title")`, `<https://url>`; not `Pool<Timeout>`
    r"\]\((?:[^)\]]|\](?!\())*\)|<[^<>\s]*[:/#.][^<>\s]*>"  # a target ends at the next `](`
)

MARK = "**"
"""What a snippet puts around each matched word."""

SNIPPET_WORDS = 16  # words in a snippet, around its best match


@dataclass(frozen=True)
class Hit:
    """A section that matches a search: where it is, its heading trail, how well it matches.

    `score` is the BM25 score (higher is better); `snippet` is a short extract of the
    body with matched words between `MARK`s; `matched_terms` are the query terms the
    section holds, in query order.
    """

    path: str
    start: int
    end: int
    headings: tuple[str, ...]
    score: float
    snippet: str
    matched_terms: tuple[str, ...]

    @property
    def citation(self) -> str:
        """`path:start-end`."""
        return f"{self.path}:{self.start}-{self.end}"


def marked(snippet: str) -> str:
    """The snippet on one line with its matches marked (the doc's own `**` dropped, and no
    mark inside a link's target, where it would break the link: `](guide.md#timeouts)`,
    `<https://example.org/timeouts>`)."""
    snippet = snippet.replace(MARK, "")
    snippet = _LINK_TARGET.sub(lambda m: m.group().replace("\x02", "").replace("\x03", ""), snippet)
    return " ".join(snippet.replace("\x02", MARK).replace("\x03", MARK).split())
