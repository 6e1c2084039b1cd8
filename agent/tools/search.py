"""The text `search_docs` prints: ranked sections, or what was searched and what to try."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agent.search import DocsIndex, Hit, query_terms
from agent.search.hit import MARK
from agent.search.query import alternatives
from agent.tools.registry import ToolError

MAX_LIMIT = 10  # sections per search at most: ten fit well under the observation limit
PER_DOC = 2
"""Sections of one doc listed at most: a page with many matching sections would fill the
list, and the reader needs the other pages too; the rest are counted ("3 more in this doc")."""
PER_DOC_POOL = 4  # sections looked at per section listed, to fill the list past a long page
SNIPPET_WIDTH = 200
TRY_ELSE = (
    "Try other words (a synonym, a broader or a more specific term), grep_docs for an "
    "exact string, or list_docs to see the files."
)


PageSpan = Callable[[str, int, int], "str | None"]
"""The pages a doc's lines stand on, as shown (`p. iv`), or None (`Corpus.page_span`)."""


def search_report(
    index: DocsIndex, query: str, limit: int, *, pages: PageSpan | None = None
) -> str:
    """The best sections for `query` as numbered lines: `path:start-end`, the page of a
    PDF's (`pages`), trail, snippet."""
    terms = query_terms(query)
    if not terms:
        raise ToolError(
            f"error: no words to search for in {query!r}; give a few key words, "
            'e.g. search_docs(query="pool timeout")'
        )
    if limit < 1:
        raise ToolError(f"error: limit {limit} is below 1; ask for 1 to {MAX_LIMIT} sections")
    limit = min(limit, MAX_LIMIT)
    ranked = index.search(query, limit=limit * PER_DOC_POOL)  # the text: its question counts more
    hits, more = per_doc(ranked, limit)
    counts = index.term_counts(terms)
    absent = [t for t in terms if not counts.get(t)]
    if not hits:
        return f"no section of the docs mentions {_either(terms)}. {TRY_ELSE}"
    found = [t for t in terms if t not in absent]
    rows = [f"{len(hits)} best section{'s' if len(hits) != 1 else ''} for {_listed(terms)}:"]
    shown: dict[str, int] = {}
    for n, hit in enumerate(hits, start=1):
        page = pages(hit.path, hit.start, hit.end) if pages is not None else None
        rows.extend(_hit_lines(n, hit, found, page))
        shown[hit.path] = shown.get(hit.path, 0) + 1
        if more.get(hit.path) and shown[hit.path] == PER_DOC:
            n_more = more[hit.path]
            rows.append(f"   ({n_more} more section{'s' if n_more != 1 else ''} in this doc)")
    if absent:
        rows.append(f"(no doc mentions {_either(absent)})")
    spelled = {t: [a for a in alternatives(t) if a != "".join(t.split())] for t in terms}
    paired = [f"{_shown(t)} also finds {_either(also)}" for t, also in spelled.items() if also]
    if paired:
        rows.append(f"({'; '.join(paired)})")
    rows.append("Read a section with read_doc before citing it; grep_docs finds exact strings.")
    return "\n".join(rows)


def per_doc(hits: Sequence[Hit], limit: int) -> tuple[list[Hit], dict[str, int]]:
    """The first `limit` of `hits` (best first) with at most `PER_DOC` of one doc, and how
    many more of each doc shown there were left out."""
    kept: list[Hit] = []
    taken: dict[str, int] = {}
    more: dict[str, int] = {}
    for hit in hits:
        if taken.get(hit.path, 0) >= PER_DOC:
            more[hit.path] = more.get(hit.path, 0) + 1
        elif len(kept) < limit:
            kept.append(hit)
            taken[hit.path] = taken.get(hit.path, 0) + 1
    return kept, {path: n for path, n in more.items() if path in taken}


def _hit_lines(n: int, hit: Hit, found: Sequence[str], page: str | None) -> list[str]:
    head = f"{n}. {hit.citation}" + (f" ({page})" if page else "")
    if hit.headings:
        head += "  " + " > ".join(hit.headings)
    missing = [t for t in found if t not in hit.matched_terms]
    if missing:
        head += f"  (matches {_listed(hit.matched_terms)}; not {_either(missing)})"
    lines = [head]
    snippet = hit.snippet.replace(MARK, "")  # plain text: the head line names the matches
    if snippet:
        if len(snippet) > SNIPPET_WIDTH:
            snippet = snippet[: SNIPPET_WIDTH - 1].rstrip() + "…"
        lines.append(f"   {snippet}")
    return lines


def _shown(term: str) -> str:
    return f'"{term}"' if " " in term else term


def _listed(terms: Sequence[str]) -> str:
    return ", ".join(_shown(t) for t in terms)


def _either(terms: Sequence[str]) -> str:
    shown = [_shown(t) for t in terms]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
