"""How the index's candidate sections are scored: BM25 term by term, and the heading bonus.

`DocsIndex.search` asks FTS5 for the best `CANDIDATES` sections, then scores each one
here: every query term's part of BM25 (`term_parts`), weighted, and a bonus for a heading
made of the query's words (`title_share`). All of it runs inside the search's read
transaction, on its connection.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Sequence
from typing import Any

from agent.readers.registry import DOC_SUFFIXES
from agent.search.query import STOPWORDS, alternatives, match_expression, words, written

WEIGHTS = (2.0, 1.0, 1.0)
"""BM25 weights of a section's own heading, its parent headings and path, and its body.

A word in a section's heading says what the section is about; the same word in its
body may only mention it. On 24 questions over the httpx docs and the bundled manual,
2/1/1 put the expected section first for 16 and in the top three for 21; 1/1/1,
4/2/1 and 8/2/1 did so for 15 and 21 (the questions that failed failed for them all).
"""

CANDIDATES = 50
"""Sections BM25 ranks first that the heading bonus may reorder: enough to reach a section
whose heading names the subject from far down a long list of body matches (20, 50 and 100
did equally well on the eval sets)."""

TITLE_BONUS = 0.35
"""How much a section's score grows, at most, when its own heading is made of the query's
words (`title_share`): such a heading names what the question asks about
("CMAKE_TOOLCHAIN_FILE" for "cmake toolchain file"), where BM25 alone favours long bodies
that use the words often. On the four eval sets it raised evidence hits from 64 to 68 of
84 and first places from 43 to 49; 0.25 lost a CMake hit, 0.5 an httpx first place."""

CHANGELOG_WEIGHT = 0.5
"""How much a section of release notes counts, unless the query asks about releases: a
changelog names every feature in passing ("fixed: a crash when the warning message
contains..."), so its many short entries match any question's words, while the
section that explains the feature is elsewhere."""

_CHANGELOG = re.compile(
    r"(^|/)(?:(?:changes|change[-_ ]?log|history|news|release[-_ ]?(?:notes|history)|releases?|"
    r"version[-_ ]history|whatsnew|what['’]?s[-_ ]new)(?:[-_ ]?v?\d[\d._-]*)?|version\d[\d.]*)"
    r"([./]|$)",
    re.I,
)
"""A name of release notes, alone or with its release's number: `CHANGES.md`,
`release-15-1.html` (PostgreSQL), `release-notes-1.2.md`, `version8.txt` (Vim), and
the headings "Release History" (Requests), "Version History" and "Change Log"."""
# Digits and single dots, read one way only: as `(?:\d+\.?)*` a heading of 30 digits and
# no space took minutes (each split of the digits tried in turn).
_NUMBERED = re.compile(r"^(?:[A-Z]\.|\d)(?:\d|(?<!\.)\.)*\s+")
"""The number of a numbered heading ("E.18. Release 15.1", "1.2. Changes")."""
_RELEASE_WORDS = frozenset(
    "release releases released version versions changelog changes changed history "
    "deprecated deprecation deprecations removed upgrade upgrading upgraded whatsnew".split()
)


def changelog_weight(path: str, headings: Sequence[str], terms: Sequence[str]) -> float:
    """`CHANGELOG_WEIGHT` for a section of release notes (by its file's name, or its
    top heading's) when no query term asks about releases; else 1."""
    if any(word in _RELEASE_WORDS for term in terms for word in term.split()):
        return 1.0
    top = _NUMBERED.sub("", headings[0]) if headings else ""
    named = _CHANGELOG.search(path) or _CHANGELOG.search(top.replace(" ", "-"))
    return CHANGELOG_WEIGHT if named else 1.0


def page(path: str) -> str:
    """The page a doc file holds: its path without its doc suffixes, so that a page built
    as HTML and kept as its source too (`git-reset.html` and `git-reset.txt`, as Git's
    docs ship) is one page."""
    stem = path[:-3] if path.endswith(".gz") else path
    while (dot := stem.rfind(".")) > stem.rfind("/") + 1 and stem[dot:].lower() in DOC_SUFFIXES:
        stem = stem[:dot]
    return stem


def without_twins(paths: Sequence[str]) -> list[int]:
    """The indexes of `paths` (best first) to keep: none of a file whose page another file
    ranked above it already holds. Twins hold the same text, so a twin's section would
    only repeat one above it, in the place of a section that says something else."""
    owner: dict[str, str] = {}
    kept = []
    for i, path in enumerate(paths):
        if owner.setdefault(page(path), path) == path:
            kept.append(i)
    return kept


_WEIGHTS = ", ".join(str(w) for w in WEIGHTS)

Held = dict[str, set[int]]
"""Each query term, and the section ids among those asked about that hold it."""


def term_parts(
    conn: sqlite3.Connection,
    terms: Sequence[str],
    rowids: list[int],
    sections: int,
    counts: dict[str, int] | None = None,
) -> dict[str, dict[int, float]]:
    """Each term's part of the BM25 score of each of `rowids` that holds it (`sections`:
    how many the index holds, for the rarity of a synonym group).

    FTS5's bm25() is the sum of its phrases' parts, so these add up to the score of
    the whole query. A word searched with its `SYNONYMS` counts its best form only,
    so a section that writes both "folder" and "directory" is not counted twice, and
    with the rarity of the whole group, so a rare synonym does not outweigh the word
    that was asked. `counts` keeps the sections counted for each expression (see `count`).
    """
    found: dict[str, dict[int, float]] = {}
    if not rowids:
        return found
    places = ", ".join("?" * len(rowids))
    # `+rowid`: the filter stays SQLite's. Handed to FTS5, each id of the list is a query
    # of its own, and bm25() counts the term's sections anew for each: 50 times the work.
    sql = (
        f"SELECT rowid, -bm25(fts, {_WEIGHTS}) FROM fts WHERE fts MATCH ? AND +rowid IN ({places})"
    )
    for term in terms:
        cleaned = " ".join(words(term))
        if not cleaned:
            continue
        held: dict[int, list[float]] = {}
        forms = [cleaned, *alternatives(cleaned)]
        group = idf(sections, count(conn, match_expression([cleaned]), counts))
        for form in forms:
            expression = match_expression([form], synonyms=False)
            scale = 1.0
            if len(forms) > 1:
                scale = group / idf(sections, count(conn, expression, counts))
            for rowid, part in conn.execute(sql, (expression, *rowids)):
                held.setdefault(rowid, []).append(part * scale)
        found[term] = {rowid: max(parts) for rowid, parts in held.items()}
    return found


def holding(
    conn: sqlite3.Connection, terms: Sequence[str], rowids: list[int], column: str = ""
) -> Held:
    """Which of `rowids` hold each term (in `column` only, if given)."""
    if not rowids:
        return {}
    places = ", ".join("?" * len(rowids))
    found: dict[str, set[int]] = {}
    for term in terms:
        expression = match_expression([term])
        if expression and column:
            expression = f"{{{column}}} : ({expression})"
        if expression:
            found[term] = {
                rowid
                for (rowid,) in conn.execute(
                    f"SELECT rowid FROM fts WHERE fts MATCH ? AND +rowid IN ({places})",
                    (expression, *rowids),
                )
            }
    return found


def title_share(headings: Sequence[str], terms: Sequence[str], rowid: int, titled: Held) -> float:
    """How much of a section's own heading the query holds: heading words held over the
    heading's words plus one, so that a one-word heading ("Timeouts") held counts half
    and a three-word one ("CMAKE_TOOLCHAIN_FILE") three quarters."""
    own = (
        {w for w in words(headings[-1]) if w not in STOPWORDS and not w.isdigit()}
        if headings
        else set()
    )
    held = sum(len(term.split()) for term in terms if rowid in titled.get(term, ()))
    return min(1.0, held / (len(own) + 1)) if own else 0.0  # +1: one word is weak evidence


def count(conn: sqlite3.Connection, expression: str, counts: dict[str, int] | None = None) -> int:
    """Sections that match an FTS5 expression, kept in `counts` when given: a search counts
    each term for its rarity and again for its report, and the index has not changed between."""
    if counts is not None and expression in counts:
        return counts[expression]
    found = int(
        conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (expression,)).fetchone()[0]
    )
    if counts is not None:
        counts[expression] = found
    return found


def idf(sections: int, holding: int) -> float:
    """FTS5's inverse document frequency in bm25(), for a term `holding` sections hold.

    `sections` was counted when the index opened; another process may have added some
    since, so that more sections hold the term than were counted (then it is common)."""
    rest = max(sections - holding, 0)
    return max(math.log((rest + 0.5) / (holding + 0.5)), 1e-6)


def rank_function() -> str:
    """The FTS5 rank function that orders the candidates: bm25() with `WEIGHTS`."""
    return f"bm25({_WEIGHTS})"


PAGE_SUPPORT = 0.3
"""How much of the best other matching section of its page a section's score gains: the
page is what a reader opens, and a page with two sections about the question is about it,
where a short section elsewhere that matches as well only mentions it. On eleven
development sets (237 questions) the first result's page was right for 163 questions
without it, 168 at 0.15 and 0.3, 169 at 0.5, 170 at 0.8; a right page in the first three
for 208, 213 to 214 at 0.15 to 0.3, 208 at 0.5 and 201 at 0.8. Summing the share of the
question's weight each whole page holds instead (PAGE_BONUS, a multiplier) found 159."""


def with_page_support(ranked: list[Any]) -> list[Any]:
    """Each ranked row (score first, path fourth) with its score grown by `PAGE_SUPPORT`
    times that of the best other row of the same page."""
    best: dict[str, list[float]] = {}  # each page's two best scores, best first
    for row in ranked:
        best[row[3]] = sorted([*best.get(row[3], []), row[0]], reverse=True)[:2]
    grown = []
    for row in ranked:
        top = [*best[row[3]], 0.0]  # a page's only section has no other to count
        other = top[1] if row[0] == top[0] else top[0]
        grown.append((row[0] + PAGE_SUPPORT * other, *row[1:]))
    return grown


def as_written(
    conn: sqlite3.Connection,
    capitals: set[str],
    rowids: list[int],
    parts: dict[str, dict[int, float]],
    titled: Held,
) -> None:
    """Take out of `parts` and `titled` the sections that hold a word the query writes in
    `capitals` only as the stemmer reads it ("LFS" held only as the stemmer's "LF"s)."""
    for word in capitals & set(parts):
        unwritten = _unwritten(conn, word, rowids)
        parts[word] = {r: part for r, part in parts[word].items() if r not in unwritten}
        titled[word] = titled.get(word, set()) - _unwritten(conn, word, rowids, "title")


def _unwritten(
    conn: sqlite3.Connection, word: str, rowids: list[int], column: str = "title, trail, body"
) -> set[int]:
    """Those of the sections `rowids` that hold `word` only as the stemmer reads it (in
    `column` alone, if it is given)."""
    pattern = written(word)
    places = ", ".join("?" * len(rowids))
    rows = conn.execute(
        f"SELECT rowid, {column} FROM fts WHERE rowid IN ({places})", rowids
    ).fetchall()
    return {row[0] for row in rows if not any(pattern.search(c) for c in row[1:])}


def unrepeated(conn: sqlite3.Connection, ranked: list[Any]) -> list[Any]:
    """`ranked` (rowid second) without a section whose text a section ranked above it
    already holds word for word (SQLite's docs keep each function's page and a page of
    them all)."""
    rowids = [row[1] for row in ranked]
    places = ", ".join("?" * len(rowids))
    texts = dict(
        conn.execute(f"SELECT rowid, body FROM fts WHERE rowid IN ({places})", rowids).fetchall()
    )
    seen: set[str] = set()
    kept = []
    for row in ranked:
        text = " ".join(texts.get(row[1], "").split())
        if text and text in seen:
            continue
        seen.add(text)
        kept.append(row)
    return kept
