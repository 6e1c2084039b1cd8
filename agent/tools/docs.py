"""The docs tools the model calls: search_docs, list_docs, grep_docs and read_doc."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from agent.search import DocsIndex
from agent.tools.corpus import Corpus, OutsideDocs
from agent.tools.formats import skipped_summary
from agent.tools.registry import ToolContext, ToolError, ToolRegistry
from agent.tools.search import search_report

MAX_HITS = 20
MAX_FILES = 12
MAX_LINES = 80
MAX_CHARS = 2800  # a whole reply, below the loop's 3,000-character observation limit
NOTE_ROOM = 140  # what the clip note at the end may take
HIT_WIDTH = 200


@dataclass
class DocsContext(ToolContext):
    """The docs folder the tools work on, and its search index; hidden from the model."""

    corpus: Corpus
    index: DocsIndex | None = None

    def search_index(self) -> DocsIndex:
        """The index given, else one over the corpus held in memory, made on first use."""
        if self.index is None:
            self.index = DocsIndex(self.corpus)
        return self.index


def search_docs(ctx: DocsContext, query: str, limit: int = 5) -> str:
    """Find the sections of the docs that best match a query, best first (ranked search).

    Each result is a section as path:start-end with its headings and a snippet, the
    matched words marked **like this**. Start here, then read_doc the sections you use.

    Args:
        query: Key words or a question, e.g. "pool timeout"; put a phrase in double quotes.
        limit: How many sections to show, 1 to 10.
    """
    return search_report(ctx.search_index(), query, limit)


def list_docs(ctx: DocsContext) -> str:
    """List every doc in the docs folder with its line count and title."""
    rows = {}
    for rel in ctx.corpus.paths():
        title = ctx.corpus.title(rel)
        rows[rel] = f"{rel}  ({len(ctx.corpus.lines(rel))} lines)  {title}".rstrip()
    return "\n".join(_skipped_first(ctx.corpus, rows))


def _skipped_first(corpus: Corpus, rows: dict[str, str]) -> list[str]:
    """The rows of the docs that could be read, after a line counting the files skipped."""
    skipped = corpus.skipped()
    kept = [row for rel, row in rows.items() if rel not in skipped]
    if not skipped:
        return kept
    return [f"({len(kept)} docs; {skipped_summary(skipped)})", *kept]


def grep_docs(ctx: DocsContext, keyword: str, path: str | None = None) -> str:
    """Search the docs for a keyword (case-insensitive, literal text).

    Args:
        keyword: The word or phrase to look for, e.g. "timeout".
        path: Only search this doc or folder, e.g. "advanced/" (default: every doc).
    """
    needle = keyword.strip().lower()
    if not needle:
        raise ToolError("error: the keyword is empty; give a word or phrase to search for")
    paths = _scope(ctx.corpus, path)
    hits: list[str] = []
    per_file: Counter[str] = Counter()
    for rel in paths:
        for number, line in enumerate(ctx.corpus.lines(rel), start=1):
            if needle in line.lower():
                per_file[rel] += 1
                hits.append(f"{rel}:{number}: {line.strip()[:HIT_WIDTH]}")
    where = f"{len(paths)} docs" if path is None else f"'{path}'"
    if not hits:
        return f"no matches for '{keyword}' in {where}; try another keyword or call list_docs"
    if len(hits) <= MAX_HITS:
        return "\n".join(hits)
    counts = ", ".join(f"{rel} {n}" for rel, n in per_file.most_common(MAX_FILES))
    if len(per_file) > MAX_FILES:
        counts += f", and {len(per_file) - MAX_FILES} more docs"
    summary = (  # first, so that truncating a long observation never drops it
        f"({MAX_HITS} of {len(hits)} matches shown; per doc: {counts}. "
        "Use a more specific keyword, pass path= to search one doc or folder, or read_doc)"
    )
    return "\n".join([summary, *hits[:MAX_HITS]])


def _scope(corpus: Corpus, path: str | None) -> list[str]:
    """The docs a search covers: all, one doc, or those under a folder."""
    if path is None or path.strip() in {"", ".", "/"}:
        return corpus.paths()
    folder = path.strip().strip("/") + "/"
    inside = [rel for rel in corpus.paths() if rel.startswith(folder)]
    if inside:
        return inside
    try:
        return [corpus.resolve(path)]
    except OutsideDocs as exc:
        raise ToolError(f"error: {exc}; call list_docs to see the files") from None


def read_doc(ctx: DocsContext, path: str, start: int = 1, end: int = MAX_LINES) -> str:
    """Read numbered lines of one doc, at most 80 lines (and about 2,800 characters) per call.

    Args:
        path: The doc's path as list_docs shows it, e.g. "advanced/timeouts.md".
        start: First line to read (1-based).
        end: Last line to read (inclusive).
    """
    shown = read_range(ctx.corpus, path, start, end)
    if shown.total == 0:
        return f"{shown.path} is empty"
    lines = ctx.corpus.lines(shown.path)
    numbered = [_numbered(n, lines[n - 1]) for n in range(shown.start, shown.end + 1)]
    body = [f"{shown.path} lines {shown.start}-{shown.end} of {shown.total}", *numbered]
    if shown.end < min(end, shown.total):
        body.append(
            f"(clipped to lines {shown.start}-{shown.end} of {shown.total}: at most "
            f"{MAX_LINES} lines or {MAX_CHARS:,} characters per call; call read_doc with "
            f"start={shown.end + 1} to read on)"
        )
    return "\n".join(body)


@dataclass(frozen=True)
class Shown:
    """The lines a `read_doc` call shows: `start`-`end` of a doc of `total` lines."""

    path: str
    start: int
    end: int
    total: int


def read_range(corpus: Corpus, path: str, start: int, end: int) -> Shown:
    """Which lines `read_doc(path, start, end)` shows, clipped as it clips them.

    Raises ToolError for what read_doc reports as an error. A model that reads through
    read_doc learns here, without parsing its text, what the call will show.
    """
    try:
        rel = corpus.resolve(path)
    except OutsideDocs as exc:
        raise ToolError(f"error: {exc}; call list_docs to see the files") from None
    lines = corpus.lines(rel)
    _check_readable(corpus, rel)
    total = len(lines)
    if total == 0:
        return Shown(rel, 0, 0, 0)
    first = max(start, 1)
    if first > total:
        raise ToolError(f"error: start {start} is past the end: {rel} has {total} lines")
    if end < first:
        raise ToolError(f"error: end {end} is before start {first}; give end >= start")
    wanted = min(end, total, first + MAX_LINES - 1)
    size = len(f"{rel} lines {first}-{wanted} of {total}") + NOTE_ROOM  # they count too
    last = first - 1
    for n in range(first, wanted + 1):
        line = _numbered(n, lines[n - 1])
        if last >= first and size + len(line) + 1 > MAX_CHARS:
            break  # keep the whole reply under the model's observation limit
        size += len(line) + 1
        last = n
    return Shown(rel, first, last, total)


def _numbered(n: int, text: str) -> str:
    line = f"{n:>4}| {text}"
    return line if len(line) <= MAX_CHARS else line[: MAX_CHARS - 1] + "…"


def _check_readable(corpus: Corpus, rel: str) -> None:
    reason = corpus.skipped().get(rel)
    if reason is not None:
        raise ToolError(f"error: {rel} cannot be read as text ({reason}); call list_docs")


def docs_registry() -> ToolRegistry:
    """A registry holding the four docs tools."""
    return ToolRegistry([search_docs, list_docs, grep_docs, read_doc])
