"""Search over a docs folder: sections split on headings, ranked with BM25 by SQLite FTS5.

- `sections`: a doc's headings and sections, each with a line range and a heading trail.
- `query`: free text to search terms, and terms to a safe FTS5 query.
- `store`: the index database (its tables, opening it safely, incremental updates).
- `location`: which index file a docs folder uses, and which are kept.
- `index`: `DocsIndex`, which opens the index and answers searches with typed `Hit`s.
- `hit`: `Hit`, one search result, and its snippet with the matched words marked.
- `stemming`: which search terms a piece of text holds, matched as the index matches them.
"""

from __future__ import annotations

from agent.search.hit import Hit
from agent.search.index import DocsIndex, IndexReport
from agent.search.query import query_terms
from agent.search.sections import Section, split_sections
from agent.search.store import Changes, DocSource, Progress

__all__ = [
    "Changes",
    "DocSource",
    "DocsIndex",
    "Hit",
    "IndexReport",
    "Progress",
    "Section",
    "query_terms",
    "split_sections",
]
