"""What the docs tools showed the offline model: parsed tool observations.

The formats are those of `agent.tools.docs`: `list_docs` lines (`path  (N lines)  Title`),
`grep_docs` hits (`path:LINE: text`) with, past the cap, a line of per-doc match counts,
and `read_doc` pages (`path lines A-B of N` then `  12| text`). A truncation marker
(`[... truncated: ...]`) and the lines it may have cut are ignored. `findings` gathers
them from the conversation since the last question.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agent.messages import Message, ToolCall
from agent.textutil import count_terms
from agent.tools.arguments import parse_arguments
from agent.tools.schema import ArgumentError

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
_CAMEL = re.compile(r"([a-z])([A-Z])")


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


def as_words(result: GrepResult) -> GrepResult:
    """The search with only the hits where its keyword occurs as a word or a form of one.

    `grep_docs` matches text inside longer words (`capital` in "capitalization"); a part
    of a CamelCase name counts as a word. A hit cut short before the keyword is kept.
    Past the cap, the total and per-doc counts are scaled by the share kept of each
    doc's hits shown (of all hits shown, for the others); if none is kept, the total is
    what the cap hid, words or not: unknown, so the keyword is not known to be missing.
    """
    needle = result.keyword.lower()

    def kept(hit: Hit) -> bool:
        if needle not in hit.text.lower():
            return True
        split = _CAMEL.sub(r"\1 \2", hit.text)  # a TimeoutException is an exception
        return any(count_terms(text, (result.keyword,)) for text in (hit.text, split))

    hits = tuple(hit for hit in result.hits if kept(hit))
    if len(hits) == len(result.hits):
        return result
    if not hits:  # none shown is a word; those the cap or a truncation hid may be
        return replace(result, hits=(), total=result.total - len(result.hits) + result.cut)
    share = len(hits) / len(result.hits)
    shown, kept_here = result.shown(), replace(result, hits=hits).shown()

    def scaled(path: str, n: int) -> int:
        here = kept_here.get(path, 0) / shown[path] if path in shown else share
        return max(kept_here.get(path, 0), math.ceil(n * here))

    per_doc = tuple((path, scaled(path, n)) for path, n in result.per_doc if scaled(path, n))
    more = math.ceil(result.more_docs * share)
    total = max(len(hits), math.ceil(result.total * share))
    return replace(result, hits=hits, total=total, per_doc=per_doc, more_docs=more)


@dataclass
class Findings:
    """What the conversation since the last user message tells the offline model."""

    question: str = ""
    asked: int = 0
    turn: int = 1
    read_rounds: int = 0
    search_rounds: int = 0
    docs: list[DocInfo] = field(default_factory=list)
    greps: dict[str, GrepResult] = field(default_factory=dict)
    scoped: list[GrepResult] = field(default_factory=list)
    pages: dict[str, dict[int, str]] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    reads: list[str] = field(default_factory=list)


def _arguments(call: ToolCall) -> dict[str, Any]:
    try:
        data = parse_arguments(call.arguments)
    except ArgumentError:
        return {}
    return data if isinstance(data, dict) else {}


def findings(messages: Sequence[Message]) -> Findings:
    """The question (and how many were asked), and the tool observations that followed it."""
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    last_user = users[-1] if users else -1
    found = Findings(question=messages[last_user].content or "" if users else "", asked=len(users))
    calls: dict[str, ToolCall] = {}
    for message in messages[last_user + 1 :]:
        if message.role == "assistant":
            found.turn += 1
            calls.update((c.id, c) for c in message.tool_calls)
            found.read_rounds += any(c.name == "read_doc" for c in message.tool_calls)
            found.search_rounds += any(c.name == "grep_docs" for c in message.tool_calls)
        elif message.role == "tool" and message.tool_call_id in calls:
            call, text = calls[message.tool_call_id], message.content or ""
            args = _arguments(call)
            if call.name == "list_docs":
                found.docs = parse_listing(text)
            elif call.name == "grep_docs" and "keyword" in args:
                keyword, path = str(args["keyword"]), args.get("path")
                result = parse_grep(keyword, text, path=str(path) if path else None)
                if result.path is None:
                    found.greps[keyword] = result
                else:
                    found.scoped.append(result)
            elif call.name == "read_doc" and (page := parse_page(text)) is not None:
                found.pages.setdefault(page.path, {}).update(page.lines)
                found.sizes[page.path] = page.total or 0
                first, last = min(page.lines, default=0), max(page.lines, default=0)
                found.reads.append(f"{page.path}:{first}-{last}")
    return found
