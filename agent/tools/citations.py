"""Citations in an answer (`path:start-end`), checked against the docs and against the run.

`valid`: the file is a doc and the range lies inside it. `read`: the run's `read_doc` (or
`search_docs`) results showed those lines. `quoted`: the answer quotes text that stands
at those lines. The check needs only the run's events, so it works from a saved trace.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from agent.events import Event, ToolCallFinished
from agent.tools.corpus import Corpus, OutsideDocs
from agent.tools.sandbox import Unreadable

READ_HEADER = re.compile(r"^(?P<path>\S.*?) lines (?P<start>\d+)-(?P<end>\d+) of \d+$")
NUMBERED = re.compile(r"^\s*(?P<n>\d+)\| ")
# From a word's start only: tried from every character, a 60,000-character word was quadratic.
RANGE = re.compile(r"(?<![^\s:`'\"()\[\]])(?P<path>[^\s:`'\"()\[\]]+):(?P<start>\d+)-(?P<end>\d+)")
MIN_QUOTE = 12  # characters: shorter fragments ("`timeout`") prove nothing

CITATION = re.compile(
    r"(?<![\w/.-])(?P<path>[\w./-]+\.(?:md|markdown|rst|txt|html?)(?:\.gz)?)"
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

    @property
    def label(self) -> str:
        """The citation as written: `path:start-end`, or `path:line` for one line."""
        lines = f"{self.start}-{self.end}" if self.end != self.start else str(self.start)
        return f"{self.path}:{lines}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def find_citations(
    answer: str, corpus: Corpus | None, events: Iterable[Event] | None = None
) -> list[Citation]:
    """Every distinct citation in `answer`, in order, checked against `corpus` and the run.

    Without `events`, `read` is False for every citation.
    """
    shown = lines_read(events or ())
    fragments = quotes(answer or "")
    found: list[Citation] = []
    seen = set()
    for _, path, start, end in _cited(answer or ""):
        if (path, start, end) in seen:
            continue
        seen.add((path, start, end))
        text = _text(corpus, path, start, end)
        read = bool(shown.get(path)) and set(range(start, end + 1)) <= shown[path]
        quoted = text is not None and any(fragment in text for fragment in fragments)
        found.append(Citation(path, start, end, text is not None, read, quoted))
    return found


def citation_spans(answer: str) -> list[tuple[int, int, str]]:
    """Where each citation stands in `answer`: (start, end, label), label as `Citation.label`."""
    spans = []
    for match, path, start, end in _cited(answer):
        label = Citation(path, start, end, valid=False).label
        spans.append((match.start(), match.end(), label))
    return spans


def _cited(answer: str) -> Iterator[tuple[re.Match[str], str, int, int]]:
    """Each citation's match, path (without `./`), first and last line."""
    for match in CITATION.finditer(answer):
        start = int(match["start"])
        yield match, match["path"].removeprefix("./"), start, int(match["end"] or start)


def lines_read(events: Iterable[Event]) -> dict[str, set[int]]:
    """The lines each doc showed in the run: numbered `read_doc` lines, `search_docs` ranges."""
    shown: dict[str, set[int]] = {}
    for event in events:
        if not isinstance(event, ToolCallFinished) or event.error:
            continue
        lines = event.output.splitlines()
        if event.name == "read_doc" and lines and (header := READ_HEADER.match(lines[0])):
            numbers = {int(m["n"]) for line in lines[1:] if (m := NUMBERED.match(line))}
            shown.setdefault(header["path"], set()).update(numbers)
        elif event.name == "search_docs":
            for match in RANGE.finditer(event.output):
                first, last = int(match["start"]), int(match["end"])
                shown.setdefault(match["path"], set()).update(range(first, last + 1))
    return shown


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
