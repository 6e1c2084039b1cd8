"""What the docs tools showed the offline model: parsed tool observations.

The formats are those of `agent.docs_tools`: `list_docs` lines (`path  (N lines)  Title`),
`grep_docs` hits (`path:LINE: text`) with, past the cap, a line of per-doc match counts,
and `read_doc` pages (`path lines A-B of N` then `  12| text`). A truncation marker
(`[... truncated: ...]`) and the lines it may have cut are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

_LISTING = re.compile(r"^(?P<path>\S.*?)\s+\((?P<n>\d+) lines?\)(?:\s+(?P<title>.*))?$")
_HIT = re.compile(r"^(?P<path>[^\s:][^:]*):(?P<line>\d+):\s?(?P<text>.*)$")
_SHOWN = re.compile(
    r"^\((?P<shown>\d+) of (?P<total>\d+) matches shown"
    r"(?:; per doc: (?P<counts>.*?)(?:, and (?P<more>\d+) more docs?)?\.(?: |\)|$))?"
)
_COUNT = re.compile(r"(?P<path>\S.*?) (?P<n>\d+)(?:, |$)")
_NONE = re.compile(r"^no matches for .* in (?P<docs>\d+) docs")
_HEADER = re.compile(r"^(?P<path>\S.*?) lines (?P<a>\d+)-(?P<b>\d+) of (?P<n>\d+)\s*$")
_NUMBERED = re.compile(r"^\s*(?P<n>\d+)\|(?: (?P<text>.*))?$")
_MARKER = re.compile(r"^\[\.\.\.\s*truncated")


@dataclass(frozen=True)
class DocInfo:
    """One `list_docs` line: a file, its length and first heading."""

    path: str
    lines: int
    title: str = ""


@dataclass(frozen=True)
class Hit:
    """One `grep_docs` hit."""

    path: str
    line: int
    text: str


@dataclass(frozen=True)
class GrepResult:
    """A `grep_docs` observation: the hits shown, the total, and matches per doc if capped.

    `path` is the doc or folder the search was limited to (None: every doc);
    `more_docs` counts the docs with matches that the per-doc list left out; `cut` says
    a truncation hid the end of the observation, and with it the true total.
    """

    keyword: str
    hits: tuple[Hit, ...]
    total: int
    n_docs: int | None = None
    per_doc: tuple[tuple[str, int], ...] = ()
    more_docs: int = 0
    path: str | None = None
    cut: bool = False

    def counts(self) -> dict[str, int]:
        """Matches per doc: the reported counts, else those of the hits shown."""
        counts: dict[str, int] = {}
        for hit in self.hits:
            counts[hit.path] = counts.get(hit.path, 0) + 1
        for path, n in self.per_doc:
            counts[path] = max(n, counts.get(path, 0))
        return counts

    def shown(self) -> dict[str, int]:
        """Hits shown per doc."""
        shown: dict[str, int] = {}
        for hit in self.hits:
            shown[hit.path] = shown.get(hit.path, 0) + 1
        return shown


@dataclass(frozen=True)
class Page:
    """A `read_doc` observation: the numbered lines actually received."""

    path: str
    lines: Mapping[int, str] = field(default_factory=dict)
    total: int | None = None


def _whole_lines(text: str) -> list[str]:
    """The observation's lines minus a truncation marker and the lines beside it."""
    lines = text.splitlines()
    cut = {i + d for i, line in enumerate(lines) if _MARKER.match(line) for d in (-1, 0, 1)}
    return [line for i, line in enumerate(lines) if i not in cut]


def parse_listing(text: str) -> list[DocInfo]:
    """The files of a `list_docs` observation."""
    docs = []
    for line in _whole_lines(text):
        match = _LISTING.match(line.strip())
        if match:
            docs.append(DocInfo(match["path"], int(match["n"]), (match["title"] or "").strip()))
    return docs


def parse_grep(keyword: str, text: str, *, path: str | None = None) -> GrepResult:
    """The hits of a `grep_docs` observation, the total, and the per-doc counts if capped."""
    hits: list[Hit] = []
    total: int | None = None
    n_docs: int | None = None
    per_doc: list[tuple[str, int]] = []
    more = 0
    for line in _whole_lines(text):
        if shown := _SHOWN.match(line):
            total = int(shown["total"])
            counts = _COUNT.finditer(shown["counts"] or "")
            per_doc = [(m["path"], int(m["n"])) for m in counts]
            more = int(shown["more"] or 0)
        elif none := _NONE.match(line):
            n_docs = int(none["docs"])
        elif hit := _HIT.match(line):
            hits.append(Hit(hit["path"], int(hit["line"]), hit["text"]))
    total = max(total or 0, len(hits))
    cut = total == len(hits) and any(_MARKER.match(line) for line in text.splitlines())
    return GrepResult(keyword, tuple(hits), total, n_docs, tuple(per_doc), more, path, cut)


def parse_page(text: str) -> Page | None:
    """The numbered lines of a `read_doc` observation; None for an error message."""
    lines = _whole_lines(text)
    header = _HEADER.match(lines[0]) if lines else None
    if header is None:
        return None
    numbered: dict[int, str] = {}
    for line in lines[1:]:
        if match := _NUMBERED.match(line):
            numbered[int(match["n"])] = match["text"] or ""
    return Page(header["path"], numbered, int(header["n"]))


def merge_scoped(
    greps: Mapping[str, GrepResult], scoped: Sequence[GrepResult]
) -> dict[str, GrepResult]:
    """The searches with the hits of their path-limited repeats added."""
    merged = dict(greps)
    for result in scoped:
        base = merged.get(result.keyword)
        if base is None:
            merged[result.keyword] = result
            continue
        hits = tuple(sorted(set(base.hits) | set(result.hits), key=lambda h: (h.path, h.line)))
        merged[result.keyword] = replace(base, hits=hits)
    return merged
