"""Citations in an answer (`path:start-end`), checked against the docs folder."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from agent.tools.corpus import Corpus, OutsideDocs

CITATION = re.compile(
    r"(?<![\w/.-])(?P<path>[\w./-]+\.(?:md|markdown|rst|txt))"
    r"(?:#L|:)(?P<start>\d+)(?:\s*[-–]\s*L?(?P<end>\d+))?"
)


@dataclass(frozen=True)
class Citation:
    """A cited line range; `valid` when the file is a doc and the range lies inside it."""

    path: str
    start: int
    end: int
    valid: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def find_citations(answer: str, corpus: Corpus | None) -> list[Citation]:
    """Every distinct citation in `answer`, in order, each checked against `corpus`."""
    found: list[Citation] = []
    seen = set()
    for match in CITATION.finditer(answer or ""):
        path = match["path"].removeprefix("./")
        start = int(match["start"])
        end = int(match["end"] or start)
        if (path, start, end) in seen:
            continue
        seen.add((path, start, end))
        found.append(Citation(path, start, end, _valid(corpus, path, start, end)))
    return found


def _valid(corpus: Corpus | None, path: str, start: int, end: int) -> bool:
    if corpus is None:
        return False
    try:
        rel = corpus.resolve(path)
    except OutsideDocs:
        return False
    return 1 <= start <= end <= len(corpus.lines(rel))
