"""Citations in an answer (`path:start-end`), checked against the docs and against the run.

A citation is one the answer makes in its own prose: text in code (fenced, indented or
inline) and in block quotes is what the answer shows, not what it cites (see
`agent/tools/prose.py`). Line ranges are compared as intervals, whatever their size.

`valid`: the file is a doc and the range lies inside it. `read`: the run's `read_doc` (or
`search_docs`) results showed those lines. `quoted`: the answer quotes text that stands
at those lines. The check needs only the run's events, so it works from a saved trace.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from agent.events import Event, ToolCallFinished
from agent.readers.pages import Pages, mark_label
from agent.readers.pages import shown as page_shown
from agent.readers.registry import SUFFIX_PATTERN
from agent.tools.corpus import Corpus
from agent.tools.folder import OutsideDocs
from agent.tools.prose import prose_ranges
from agent.tools.sandbox import Unreadable

READ_HEADER = re.compile(
    r"^(?P<path>\S.*?) lines (?P<start>\d+)-(?P<end>\d+) of \d+(?: \(p\. (?P<page>[^)–]+)[^)]*\))?$"
)
NUMBERED = re.compile(r"^\s*(?P<n>\d+)\| ")
# From a word's start only: tried from every character, a 60,000-character word was quadratic.
RANGE = re.compile(r"(?<![^\s:`'\"()\[\]])(?P<path>[^\s:`'\"()\[\]]+):(?P<start>\d+)-(?P<end>\d+)")
MIN_QUOTE = 12  # characters: shorter fragments ("`timeout`") prove nothing
MAX_LINE = 10**15
"""Line numbers past this (no doc has so many) are read as this: `int` of a 5,000-digit
number raises, and nothing is gained by exactness past any doc's end."""

Intervals = list[tuple[int, int]]
"""Sorted, disjoint, non-adjacent (first, last) line ranges."""

CITATION = re.compile(
    rf"(?<![\w/.-])(?P<path>[\w./-]+\.(?:{SUFFIX_PATTERN})(?:\.gz)?)"
    r"(?:#L|:)(?P<start>\d+)(?:\s*[-–]\s*L?(?P<end>\d+))?"
)


@dataclass(frozen=True)
class Citation:
    """A cited line range and what backs it (see the module docstring)."""

    path: str
    start: int
    end: int
    valid: bool
    read: bool = False
    quoted: bool = False
    page: str | None = None
    """The pages of a PDF's lines, as printed: `iv`, `12–13` (None for other docs)."""

    @property
    def label(self) -> str:
        """The citation as written: `path:start-end`, or `path:line` for one line."""
        lines = f"{self.start}-{self.end}" if self.end != self.start else str(self.start)
        return f"{self.path}:{lines}"

    @property
    def shown(self) -> str:
        """The label and, for a PDF's lines, their pages: `manual.pdf:40-52 (p. iv)`."""
        return f"{self.label} ({page_shown(self.page)})" if self.page else self.label

    def to_dict(self) -> dict[str, Any]:
        """The citation as JSON: `page` only for a PDF's lines."""
        found = asdict(self)
        if self.page is None:
            del found["page"]
        return found


def find_citations(
    answer: str, corpus: Corpus | None, events: Iterable[Event] | None = None
) -> list[Citation]:
    """Every distinct citation in `answer`, in order, checked against `corpus` and the run.

    Without `events`, `read` is False for every citation. `page` comes from the doc when
    `corpus` is given, else from the pages the run's `read_doc` results showed.
    """
    events = list(events or ())
    shown = lines_read(events)
    paged = pages_read(events) if corpus is None else {}
    fragments: list[str] | None = None  # what the answer quotes, found once a cited text is
    found: list[Citation] = []
    seen = set()
    for _, path, start, end in _cited(answer or ""):
        if (path, start, end) in seen:
            continue
        seen.add((path, start, end))
        text = _text(corpus, path, start, end)
        read = covers(shown.get(path, []), start, end)
        quoted = False
        if text is not None:
            fragments = quotes(answer) if fragments is None else fragments
            quoted = any(fragment in text for fragment in fragments)
        pages = _pages(corpus, path) if corpus is not None else paged.get(path) if read else None
        page = pages.span(start, end) if pages is not None else None
        found.append(Citation(path, start, end, text is not None, read, quoted, page))
    return found


def _pages(corpus: Corpus, path: str) -> Pages | None:
    try:
        return corpus.pages(corpus.resolve(path))
    except (OutsideDocs, Unreadable):
        return None


def pages_read(events: Iterable[Event]) -> dict[str, Pages]:
    """Where the pages start that each PDF's `read_doc` results showed: the page a result
    names in its first line, and the page marks among its lines."""
    marks: dict[str, list[tuple[int, str]]] = {}
    for event in events:
        if not isinstance(event, ToolCallFinished) or event.error or event.name != "read_doc":
            continue
        lines = event.output.splitlines()
        header = READ_HEADER.match(lines[0]) if lines else None
        if header is None or header["page"] is None:
            continue
        found = marks.setdefault(header["path"], [])
        found.append((line_number(header["start"]), header["page"]))
        for line in lines[1:]:
            number = NUMBERED.match(line)
            label = mark_label(line[number.end() :]) if number else None
            if number and label is not None:
                found.append((line_number(number["n"]), label))
    return {path: Pages.of(found) for path, found in marks.items()}


def with_pages(answer: str, citations: Iterable[Citation]) -> str:
    """The answer with the pages of each PDF citation written after it, where it cites
    them in its prose: `manual.pdf:40-52 (p. iv)`."""
    pages = {c.label: c.page for c in citations if c.page}
    if not pages:
        return answer
    out, at = [], 0
    for _, end, label in citation_spans(answer):
        page = pages.get(label)
        if page and not answer.startswith(" (p.", end):
            out += [answer[at:end], f" ({page_shown(page)})"]
            at = end
    return "".join(out) + answer[at:]


def citation_spans(answer: str) -> list[tuple[int, int, str]]:
    """Where each citation stands in `answer`: (start, end, label), label as `Citation.label`."""
    spans = []
    for match, path, start, end in _cited(answer):
        label = Citation(path, start, end, valid=False).label
        spans.append((match.start(), match.end(), label))
    return spans


def _cited(answer: str) -> Iterator[tuple[re.Match[str], str, int, int]]:
    """Each citation's match in the answer's prose, path (without `./`), first and last line."""
    if not CITATION.search(answer):
        return  # nothing that looks like one: no need to parse the Markdown
    for first, end in prose_ranges(answer):
        for match in CITATION.finditer(answer, first, end):
            start = line_number(match["start"])
            last = line_number(match["end"]) if match["end"] else start
            yield match, match["path"].removeprefix("./"), start, last


def line_number(digits: str) -> int:
    """A line number as written, at most `MAX_LINE`."""
    return int(digits) if len(digits) < 16 else MAX_LINE


def lines_read(events: Iterable[Event]) -> dict[str, Intervals]:
    """The lines each doc showed in the run, as intervals: numbered `read_doc` lines,
    `search_docs` ranges."""
    shown: dict[str, list[tuple[int, int]]] = {}
    for event in events:
        if not isinstance(event, ToolCallFinished) or event.error:
            continue
        lines = event.output.splitlines()
        if event.name == "read_doc" and lines and (header := READ_HEADER.match(lines[0])):
            found = shown.setdefault(header["path"], [])
            found += ((n, n) for line in lines[1:] if (n := _numbered(line)) is not None)
        elif event.name == "search_docs":
            for match in RANGE.finditer(event.output):
                first, last = line_number(match["start"]), line_number(match["end"])
                shown.setdefault(match["path"], []).append((first, last))
    return {path: merged(ranges) for path, ranges in shown.items()}


def _numbered(line: str) -> int | None:
    match = NUMBERED.match(line)
    return line_number(match["n"]) if match else None


def merged(ranges: Iterable[tuple[int, int]]) -> Intervals:
    """`ranges` as sorted disjoint intervals, touching ones joined (1-3 and 4-5 are 1-5)."""
    out: Intervals = []
    for first, last in sorted(r for r in ranges if r[0] <= r[1]):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out


def covers(intervals: Intervals, start: int, end: int) -> bool:
    """Whether the lines `start` to `end` all lie in `intervals` (from `merged`)."""
    at = bisect_right(intervals, (start, MAX_LINE + 1)) - 1
    return at >= 0 and intervals[at][0] <= start and end <= intervals[at][1]


def quotes(answer: str) -> list[str]:
    """What the answer quotes: block quotes, and text in quotation marks or backticks."""
    found = [line.lstrip("> ").strip() for line in answer.splitlines() if line.startswith(">")]
    found += re.findall(r'"([^"\n]+)"|“([^”“\n]+)”|`([^`\n]+)`', answer)  # type: ignore[arg-type]
    flat = [part for item in found for part in ((item,) if isinstance(item, str) else item)]
    return [n for fragment in flat if len(n := _normal(fragment)) >= MIN_QUOTE]


def _normal(text: str) -> str:
    return " ".join(text.replace("`", "").split()).lower()


def _text(corpus: Corpus | None, path: str, start: int, end: int) -> str | None:
    """The cited lines, normalised for quote matching; None when the range is not valid."""
    if corpus is None:
        return None
    try:
        rel = corpus.resolve(path)
        if not 1 <= start <= end <= corpus.line_count(rel):
            return None
        lines = corpus.lines(rel, start, end)
    except (OutsideDocs, Unreadable):
        return None
    return _normal(" ".join(lines))
