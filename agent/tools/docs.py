"""The docs tools the model calls: list_docs, grep_docs and read_doc."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from agent.tools.corpus import Corpus, OutsideDocs
from agent.tools.registry import ToolContext, ToolError, ToolRegistry

MAX_HITS = 20
MAX_FILES = 12
MAX_LINES = 80
MAX_CHARS = 2800  # a whole reply, below the loop's 3,000-character observation limit
NOTE_ROOM = 140  # what the clip note at the end may take
HIT_WIDTH = 200


@dataclass
class DocsContext(ToolContext):
    """The docs folder the tools work on; hidden from the model."""

    corpus: Corpus


def list_docs(ctx: DocsContext) -> str:
    """List the docs with line counts and titles."""
    rows = []
    for rel in ctx.corpus.paths():
        title = ctx.corpus.title(rel)
        rows.append(f"{rel}  ({len(ctx.corpus.lines(rel))} lines)  {title}".rstrip())
    return "\n".join(rows)


def grep_docs(ctx: DocsContext, keyword: str, path: str | None = None) -> str:
    """Search the docs for a keyword (literal, any case); path limits it to a doc or folder."""
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
    """Read numbered lines of a doc, at most 80 per call."""
    try:
        rel = ctx.corpus.resolve(path)
    except OutsideDocs as exc:
        raise ToolError(f"error: {exc}; call list_docs to see the files") from None
    lines = ctx.corpus.lines(rel)
    total = len(lines)
    if total == 0:
        return f"{rel} is empty"
    first = max(start, 1)
    if first > total:
        raise ToolError(f"error: start {start} is past the end: {rel} has {total} lines")
    if end < first:
        raise ToolError(f"error: end {end} is before start {first}; give end >= start")
    wanted = min(end, total, first + MAX_LINES - 1)
    numbered: list[str] = []
    size = len(f"{rel} lines {first}-{wanted} of {total}") + NOTE_ROOM  # they count too
    for n in range(first, wanted + 1):
        line = f"{n:>4}| {lines[n - 1]}"
        if numbered and size + len(line) + 1 > MAX_CHARS:
            break  # keep the whole reply under the model's observation limit
        numbered.append(line if len(line) <= MAX_CHARS else line[: MAX_CHARS - 1] + "…")
        size += len(numbered[-1]) + 1
    last = first + len(numbered) - 1
    body = [f"{rel} lines {first}-{last} of {total}", *numbered]
    if last < min(end, total):
        body.append(
            f"(clipped to lines {first}-{last} of {total}: at most {MAX_LINES} lines or "
            f"{MAX_CHARS:,} characters per call; call read_doc with start={last + 1} to read on)"
        )
    return "\n".join(body)


def docs_registry() -> ToolRegistry:
    """A registry holding the three docs tools."""
    return ToolRegistry([list_docs, grep_docs, read_doc])
