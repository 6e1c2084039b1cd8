"""Which search terms a piece of text holds, matched as the index matches them.

The index stems words with Porter (`timing` meets `time`) and searches a word's
`SYNONYMS` too; a rough stem of one's own (`timeouts` → `timeou`) misses those and
finds what the index would not. `terms_held` puts the texts in a table in memory with
the index's own tokenizer and asks FTS5, so that a quote is chosen by the same matches
that ranked its section.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from agent.search.query import match_expression
from agent.search.store import TOKENIZER


def terms_held(texts: Sequence[str], terms: Sequence[str]) -> list[set[str]]:
    """For each of `texts`, the `terms` it holds."""
    held: list[set[str]] = [set() for _ in texts]
    if not texts or not terms:
        return held
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize = '{TOKENIZER}')")
        conn.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)", enumerate(texts, start=1))
        for term in terms:
            expression = match_expression([term])
            if expression:
                for (rowid,) in conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (expression,)):
                    held[rowid - 1].add(term)
    finally:
        conn.close()
    return held
