"""Pure scoring helpers of the offline model: parse tool observations, weigh terms, plan reads.

The observation formats are those of `agent.docs_tools`: `list_docs` lines
(`path  (N lines)  Title`), `grep_docs` hits (`path:LINE: text`) and `read_doc`
pages (`path lines A-B of N` then `  12| text`). A truncation marker
(`[... truncated: ...]`) and the lines it may have cut are ignored.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from agent.textutil import count_terms, tokens

_LISTING = re.compile(r"^(?P<path>\S.*?)\s+\((?P<n>\d+) lines?\)(?:\s+(?P<title>.*))?$")
_HIT = re.compile(r"^(?P<path>[^\s:][^:]*):(?P<line>\d+):\s?(?P<text>.*)$")
_SHOWN = re.compile(r"^\((?P<shown>\d+) of (?P<total>\d+) matches shown")
_NONE = re.compile(r"^no matches for .* in (?P<docs>\d+) docs")
_HEADER = re.compile(r"^(?P<path>\S.*?) lines (?P<a>\d+)-(?P<b>\d+) of (?P<n>\d+)\s*$")
_NUMBERED = re.compile(r"^\s*(?P<n>\d+)\|(?: (?P<text>.*))?$")
_MARKER = re.compile(r"^\[\.\.\.\s*truncated")
_HEADING = re.compile(r"^#{2,6}\s")


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
    """A `grep_docs` observation: the hits shown and how many there were in all."""

    keyword: str
    hits: tuple[Hit, ...]
    total: int
    n_docs: int | None = None


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


def parse_grep(keyword: str, text: str) -> GrepResult:
    """The hits of a `grep_docs` observation and the total number of matches."""
    hits: list[Hit] = []
    total: int | None = None
    n_docs: int | None = None
    for line in _whole_lines(text):
        if shown := _SHOWN.match(line):
            total = int(shown["total"])
        elif none := _NONE.match(line):
            n_docs = int(none["docs"])
        elif hit := _HIT.match(line):
            hits.append(Hit(hit["path"], int(hit["line"]), hit["text"]))
    return GrepResult(keyword, tuple(hits), max(total or 0, len(hits)), n_docs)


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


def term_weights(
    keywords: Sequence[str], greps: Mapping[str, GrepResult], n_docs: int
) -> dict[str, float]:
    """IDF-like weights: rare across files is heavy; unseen terms weigh like the rarest seen.

    When a search showed only some of its matches, the number of files is extrapolated
    from the files among those shown.
    """
    weights: dict[str, float] = {}
    unseen: list[str] = []
    for keyword in keywords:
        result = greps.get(keyword)
        if result is None or not result.hits:
            unseen.append(keyword)
            continue
        files = len({hit.path for hit in result.hits})
        df = files * result.total / len(result.hits)
        df = min(float(max(n_docs, files)), max(float(files), df))
        weights[keyword] = max(0.05, math.log((n_docs + 1) / (df + 0.5)))
    ceiling = math.log((n_docs + 1) / 0.5)
    heaviest = max(weights.values(), default=ceiling)
    for keyword in unseen:
        weights[keyword] = min(ceiling, heaviest) if keyword in greps else 1.0
    return weights


def _hits_by_file(greps: Mapping[str, GrepResult]) -> dict[str, dict[int, str]]:
    by_file: dict[str, dict[int, str]] = {}
    for result in greps.values():
        for hit in result.hits:
            by_file.setdefault(hit.path, {})[hit.line] = hit.text
    return by_file


def _line_score(text: str, weights: Mapping[str, float]) -> float:
    counts = count_terms(text, tuple(weights))
    boost = 1.5 if _HEADING.match(text) else 1.0
    return boost * sum(weights[t] * (1 + 0.3 * math.log(n)) for t, n in counts.items())


def rank_files(
    weights: Mapping[str, float], greps: Mapping[str, GrepResult], docs: Sequence[DocInfo]
) -> list[tuple[float, str]]:
    """Files by evidence: weighted hits (diminishing per term), plus terms in path or title."""
    titles = {doc.path: doc.title for doc in docs}
    scores: dict[str, float] = {}
    for path, lines in _hits_by_file(greps).items():
        per_term: dict[str, int] = {}
        for text in lines.values():
            for term in count_terms(text, tuple(weights)):
                per_term[term] = per_term.get(term, 0) + 1
        scores[path] = sum(weights[t] * (1 + math.log(n)) for t, n in per_term.items())
    for path in set(scores) | set(titles):
        named = " ".join(tokens(path.replace("-", " ").replace("_", " ")))
        named += " " + titles.get(path, "").lower()
        bonus = sum(1.5 * w for t, w in weights.items() if count_terms(named, (t,)))
        if bonus:
            scores[path] = scores.get(path, 0.0) + bonus
    return sorted(((s, p) for p, s in scores.items() if s > 0), key=lambda sp: (-sp[0], sp[1]))


def best_windows(
    lines: Mapping[int, str], weights: Mapping[str, float], *, radius: int = 8
) -> list[tuple[float, int]]:
    """Hit lines as window centres, scored by the distinct terms and hits within `radius`."""
    scored = {n: count_terms(text, tuple(weights)) for n, text in lines.items()}
    windows = []
    for centre in scored:
        around = [n for n in scored if abs(n - centre) <= radius]
        present = {t for n in around for t in scored[n]}
        score = sum(weights[t] for t in present) + 0.1 * len(around)
        score += 0.5 * _line_score(lines[centre], weights)
        windows.append((score, centre))
    return sorted(windows, key=lambda sc: (-sc[0], sc[1]))


def _window_start(lines: Mapping[int, str], centre: int, span: int) -> int:
    """Where to start reading around `centre`: a heading hit just above it, else a bit above."""
    headings = [
        n for n, text in lines.items() if _HEADING.match(text) and 0 <= centre - n < span // 2
    ]
    start = min(headings) if headings else centre - span // 4
    return 1 if start <= span // 4 else start


def plan_reads(
    weights: Mapping[str, float],
    greps: Mapping[str, GrepResult],
    docs: Sequence[DocInfo],
    *,
    max_calls: int = 4,
    span: int = 40,
) -> list[tuple[str, int, int]]:
    """`(path, start, end)` reads: short top files whole, long ones around their best hits."""
    ranked = rank_files(weights, greps, docs)
    if not ranked:
        return []
    sizes = {doc.path: doc.lines for doc in docs}
    hits = _hits_by_file(greps)
    reads: list[tuple[str, int, int]] = []
    for rank, (score, path) in enumerate(ranked):
        if score < 0.5 * ranked[0][0] or len(reads) >= max_calls:
            break
        size = sizes.get(path)
        if size is not None and size <= (2 if rank == 0 else 1) * span:
            starts = range(1, size + 1, span)
            reads += [(path, s, min(size, s + span - 1)) for s in starts]
            continue
        windows = best_windows(hits.get(path, {}), weights)
        taken: list[int] = []
        for window_score, centre in windows:
            if taken and (rank > 0 or window_score < 0.7 * windows[0][0]):
                break
            if any(abs(centre - t) < span for t in taken):
                continue
            start = _window_start(hits.get(path, {}), centre, span)
            end = start + span - 1 if size is None else min(size, start + span - 1)
            reads.append((path, start, end))
            taken.append(centre)
        if not taken:
            reads.append((path, 1, span if size is None else min(size, span)))
    return reads[:max_calls]
