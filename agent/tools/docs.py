"""The docs tools the model calls: search_docs, list_docs, grep_docs and read_doc."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent.readers.names import skipped_summary, unread_summary
from agent.search import DocsIndex
from agent.tools.corpus import Corpus
from agent.tools.folder import OutsideDocs
from agent.tools.registry import ToolContext, ToolError, ToolRegistry
from agent.tools.sandbox import Unreadable, printable
from agent.tools.search import search_report
from agent.tools.textscan import (
    MARK_FROM,
    count_lines,
    count_lines_from,
    has_break,
    hit_lines,
    line_count,
    line_pattern,
    lines_at,
    rarest,
)

MAX_HITS = 20
MAX_FILES = 12
MAX_LINES = 80
MAX_CHARS = 2800  # a whole reply, below the loop's 3,000-character observation limit
NOTE_ROOM = 140  # what the clip note at the end may take
HIT_WIDTH = 200
LIST_HINT = "call list_docs to see the files"
RETRY_HINT = "try another keyword or call list_docs"
NOTE_NAMES = 3  # files named in a note about files skipped
NAME_WIDTH = 80  # a longer name is shown with an ellipsis in such a note


@dataclass
class DocsContext(ToolContext):
    """The docs folder the tools work on, and its search index; hidden from the model."""

    corpus: Corpus
    index: DocsIndex | None = None

    def __post_init__(self) -> None:
        self._keep_texts()

    def search_index(self) -> DocsIndex:
        """The index given, else one over the corpus held in memory, made on first use."""
        if self.index is None:
            self.index = DocsIndex(self.corpus)
            self._keep_texts()
        return self.index

    def _keep_texts(self) -> None:
        """The index over the corpus keeps its PDFs' texts: the corpus reads them there."""
        if self.index is not None and self.index.source is self.corpus:
            self.corpus.kept = self.index


def search_docs(ctx: DocsContext, query: str, limit: int = 5) -> str:
    """Ranked search: the doc sections best matching a query, as path:start-end + snippet.

    Args:
        query: Words to look for, such as an option's name or an error message.
        limit: How many sections to return, 1 to 10.
    """
    return search_report(ctx.search_index(), query, limit, pages=ctx.corpus.page_span)


def list_docs(ctx: DocsContext) -> str:
    """List the docs with line counts and titles."""
    rows: list[str] = []
    unread: list[Unreadable] = []
    for rel in ctx.corpus.paths():
        try:
            title = ctx.corpus.title(rel)  # first: the doc is then folded from the text it kept
            lines = ctx.corpus.doc(rel).lines
        except Unreadable as exc:
            unread.append(exc)
            continue
        rows.append(f"{rel}  ({lines} lines)  {title}".rstrip())
    notes = [
        skipped_note(unread, "docs", "could not be read"),
        skipped_note(ctx.corpus.skipped, "folders or files", "could not be opened"),
    ]
    passed_over = ctx.corpus.passed_over()  # not docs by their names: counted, never read
    if passed_over:
        docs = f"{len(rows)} doc{'s' if len(rows) != 1 else ''}"
        notes.insert(0, f"({docs}; {skipped_summary(passed_over)})")
    return "\n".join([*(n for n in notes if n), *rows])


def grep_docs(ctx: DocsContext, keyword: str, path: str | None = None) -> str:
    """Search the docs for a keyword (literal, any case); path limits it to a doc or folder.

    Args:
        keyword: A word or phrase, matched literally in any case.
        path: A doc or folder to search in, as list_docs names it; all docs when left out.
    """
    needle = keyword.strip()
    if not needle:
        raise ToolError("error: the keyword is empty; give a word or phrase to search for")
    paths = _scope(ctx.corpus, path)
    found = _Found()
    if not has_break(needle):  # a line break in the keyword matches no line
        _search(ctx.corpus, paths, needle, found)
    per_file, unread = found.per_file, found.unread
    if path is not None and unread and len(unread) == len(paths) == 1:
        raise ToolError(f"error: cannot read {unread[0].name}: {unread[0].reason}; {LIST_HINT}")
    where = f"{len(paths) - len(unread)} docs" if path is None else f"'{printable(path)}'"
    hits = _hit_lines(ctx.corpus, found.shown, unread)
    note = skipped_note(unread, "docs", "could not be read")
    head = [note] if note else []
    total = sum(per_file.values())
    if not total:
        return "\n".join([*head, f"no matches for '{printable(keyword)}' in {where}; {RETRY_HINT}"])
    if total <= MAX_HITS:
        return "\n".join([*head, *hits])
    counts = ", ".join(f"{rel} {n}" for rel, n in per_file.most_common(MAX_FILES))
    if len(per_file) > MAX_FILES:
        counts += f", and {len(per_file) - MAX_FILES} more docs"
    summary = (  # first, so that truncating a long observation never drops it
        f"({MAX_HITS} of {total} matches shown; per doc: {counts}. "
        "Use a more specific keyword, pass path= to search one doc or folder, or read_doc)"
    )
    return "\n".join([*head, summary, *hits])


@dataclass
class _Found:
    """What a search found: matching lines per doc, the hits to show, the docs not read."""

    per_file: Counter[str] = field(default_factory=Counter)
    shown: list[tuple[str, list[int]]] = field(default_factory=list)
    unread: list[Unreadable] = field(default_factory=list)


def _search(corpus: Corpus, paths: Sequence[str], keyword: str, found: _Found) -> None:
    """Count the lines holding `keyword` in each doc; locate only the first MAX_HITS."""
    needle = keyword.lower().encode("utf-8", "surrogatepass")
    full = not keyword.isascii()  # only a keyword beyond ASCII needs docs fully folded
    room = MAX_HITS
    per_file, unread = found.per_file, found.unread
    findall = None  # what count_lines does for a doc of common size, made for the first hit
    for rel, doc in zip(paths, corpus.docs(paths, full=full), strict=True):
        if isinstance(doc, Unreadable):
            unread.append(doc)
            continue
        folded = doc.folded
        at = folded.find(needle)  # most docs: none, found fast whatever the letters
        if at < 0:
            continue
        if len(folded) >= MARK_FROM:
            count = count_lines(folded, needle)
        else:
            if findall is None:  # its rarest byte counted in the first doc that holds it
                findall = line_pattern(needle, rarest(needle, folded)).findall
            count = count_lines_from(folded, needle, at, findall)
        if count:
            per_file[rel] = count
            if room > 0:
                found.shown.append((rel, hit_lines(doc.folded, needle, room)))
                room -= len(found.shown[-1][1])


def _hit_lines(
    corpus: Corpus, shown: Sequence[tuple[str, list[int]]], unread: list[Unreadable]
) -> list[str]:
    """The hits shown, `path:line: text`, their lines read from each doc now."""
    hits: list[str] = []
    for rel, numbers in shown:
        try:
            text = corpus.text(rel).text
        except Unreadable as exc:  # gone since it was searched
            unread.append(exc)
            continue
        lines = lines_at(text, numbers)
        hits.extend(f"{rel}:{n}: {lines[n].strip()[:HIT_WIDTH]}" for n in numbers if n in lines)
    return hits


def skipped_note(skipped: Sequence[Unreadable], what: str, why: str) -> str | None:
    """One line naming the files left out and why, or None if none were."""
    if not skipped:
        return None
    reasons = {_short(s.name): s.reason for s in skipped}
    return f"({unread_summary(reasons, what, why, NOTE_NAMES)})"


def _short(name: str) -> str:
    if len(name) <= NAME_WIDTH:
        return name
    half = (NAME_WIDTH - 1) // 2
    return f"{name[:half]}…{name[-half:]}"


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
        raise ToolError(f"error: {exc}; {LIST_HINT}") from None


def read_doc(ctx: DocsContext, path: str, start: int = 1, end: int = MAX_LINES) -> str:
    """Read numbered lines of a doc, at most 80 per call.

    Args:
        path: The doc's path, as list_docs or search_docs gives it.
        start: The first line to read (the first line is 1).
        end: The last line to read; at most 80 lines are shown per call.
    """
    shown = read_range(ctx.corpus, path, start, end)
    if shown.total == 0:
        return f"{shown.path} is empty"
    numbered = [_numbered(n, shown.lines[n]) for n in range(shown.start, shown.end + 1)]
    head = f"{shown.path} lines {shown.start}-{shown.end} of {shown.total}"
    page = ctx.corpus.page_span(shown.path, shown.start, shown.end)
    body = [f"{head} ({page})" if page else head, *numbered]
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
    lines: dict[int, str] = field(default_factory=dict, repr=False, compare=False)
    """The text of each line shown, by line number."""


def read_range(corpus: Corpus, path: str, start: int, end: int) -> Shown:
    """Which lines `read_doc(path, start, end)` shows, clipped as it clips them.

    Raises ToolError for what read_doc reports as an error. A model that reads through
    read_doc learns here, without parsing its text, what the call will show.
    """
    try:
        rel = corpus.resolve(path)
        text = corpus.text(rel).text
    except OutsideDocs as exc:
        raise ToolError(f"error: {exc}; {LIST_HINT}") from None
    except Unreadable as exc:
        raise ToolError(f"error: cannot read {exc.name}: {exc.reason}; {LIST_HINT}") from None
    total = line_count(text)
    if total == 0:
        return Shown(rel, 1, 0, 0)
    first = max(start, 1)
    if first > total:
        raise ToolError(f"error: start {start} is past the end: {rel} has {total} lines")
    if end < first:
        raise ToolError(f"error: end {end} is before start {first}; give end >= start")
    wanted = min(end, total, first + MAX_LINES - 1)
    lines = lines_at(text, range(first, wanted + 1))
    size = len(f"{rel} lines {first}-{wanted} of {total}") + NOTE_ROOM  # they count too
    last = first - 1
    for n in range(first, wanted + 1):
        line = _numbered(n, lines[n])
        if last >= first and size + len(line) + 1 > MAX_CHARS:
            break  # keep the whole reply under the model's observation limit
        size += len(line) + 1
        last = n
    return Shown(rel, first, last, total, {n: lines[n] for n in range(first, last + 1)})


def _numbered(n: int, text: str) -> str:
    line = f"{n:>4}| {text}"
    return line if len(line) <= MAX_CHARS else line[: MAX_CHARS - 1] + "…"


def docs_registry() -> ToolRegistry:
    """A registry holding the four docs tools."""
    registry = ToolRegistry()
    for fn in (search_docs, list_docs, grep_docs, read_doc):
        # Their parameters' descriptions would cost bytes on every request (the request
        # bytes bench allows none); the MCP tool list shows them (`described_parameters`).
        registry.register(fn, brief_schema=True)
    return registry
