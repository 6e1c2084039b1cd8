"""`DocsIndex`: ranked search over a docs folder's sections, for tools and models alike.

The index opens lazily, on the first search or on `prepare` (which a UI calls up front
to show progress). It lives in a file under the cache folder given, or in memory when
none is given or the folder cannot be written; then `prepare` reports one notice.
Results are typed (`Hit`), never text to parse.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.readers.names import unread_summary
from agent.search import location, rank, store
from agent.search.examples import example_questions
from agent.search.hit import SNIPPET_WORDS, Hit, marked
from agent.search.query import acronyms, match_expression, query_terms, term_weights, written
from agent.search.repair import busy, reason, recovering, remove, set_aside, unkept
from agent.search.sections import Section
from agent.search.store import DocSource, Progress

EXAMPLE_SECTIONS = 20_000  # sections read for example questions (a huge folder: its first ones)
MAX_COUNTS = 4096  # expressions whose counts are kept at most (a long session's terms)


@dataclass(frozen=True)
class IndexReport:
    """How the index was opened: what it holds, what changed, where it lives.

    `location` is None for an index held in memory; `notice` says why, when that was
    not what was asked for.
    """

    docs: int
    sections: int
    changes: store.Changes
    seconds: float
    location: Path | None
    notice: str | None = None
    skipped: tuple[tuple[str, str], ...] = ()
    """The docs the index could not read, each with why (`binary`, `encrypted (DRM)`)."""

    @property
    def skipped_line(self) -> str | None:
        """One line naming the docs left out of the index and why, a few named and the
        rest counted; None when every doc was read."""
        return unread_summary(dict(self.skipped)) if self.skipped else None


class DocsIndex:
    """A search index over the docs of `source`, kept in `cache_dir` (None: in memory)."""

    def __init__(self, source: DocSource, *, cache_dir: Path | None = None) -> None:
        self.source = source
        self.cache_dir = cache_dir
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._report: IndexReport | None = None
        self._closer: Callable[[], object] | None = None  # a weakref.finalize
        self._counts_seen: dict[str, int] = {}  # sections per expression (rank.count)
        self._version: int | None = None  # the file's data_version they were counted at
        self._notice: str | None = None  # why the index was rebuilt, for the next report

    @property
    def location(self) -> Path | None:
        """The index file this folder would use, or None for an index held in memory."""
        return location.index_file(self.cache_dir, self.source.root) if self.cache_dir else None

    def prepare(self, progress: Progress | None = None) -> IndexReport:
        """Open the index and bring it up to date, once; later calls return the same report."""
        with self._lock:
            if self._report is None:
                self._report = self._open(progress)
            return self._report

    def _open(self, progress: Progress | None) -> IndexReport:
        began = time.monotonic()
        notice, self._notice = self._notice, None
        location = self.location
        if location is not None:
            try:
                conn, changes, repaired = self._open_file(location, progress)
                notice = notice or repaired
            except (OSError, sqlite3.Error) as exc:
                notice = unkept(location, exc)
                location = None
        if location is None:
            conn = store.connect_memory()
            try:
                changes = store.update(conn, self.source, progress)
            except BaseException:  # interrupted: nothing is kept
                conn.close()
                raise
        self._conn = conn
        self._closer = weakref.finalize(self, conn.close)  # closed with the index, or at exit
        docs, sections = self._counts()
        skipped = self._conn.execute(
            "SELECT path, skipped FROM files WHERE skipped IS NOT NULL ORDER BY path"
        ).fetchall()
        seconds = round(time.monotonic() - began, 3)
        return IndexReport(docs, sections, changes, seconds, location, notice, tuple(skipped))

    def _open_file(
        self, path: Path, progress: Progress | None
    ) -> tuple[sqlite3.Connection, store.Changes, str | None]:
        """The index file opened and up to date, and a line if it had to be set aside or
        rebuilt. A file that is not ours is moved aside, never written to; a damaged index
        of ours is deleted and built again."""
        notice = None
        for attempt in (1, 2):
            conn = None
            try:
                conn = store.connect_file(path)
                changes = store.update(conn, self.source, progress)
                location.keep_recent(path)
                return conn, changes, notice
            except store.NotOurs as exc:
                if attempt == 2:
                    raise sqlite3.DatabaseError(f"{path} is {exc}") from None
                aside = set_aside(path)
                notice = (
                    f"the search index {path} was not docsagent's ({exc}); "
                    f"it was moved to {aside.name} and a new index built"
                )
            except (store.Damaged, sqlite3.DatabaseError) as exc:
                if conn is not None:
                    conn.close()
                if attempt == 2 or busy(exc):
                    raise
                remove(path)  # not a database, or a damaged one: start afresh
                notice = f"the search index {path} was damaged ({reason(exc)}); rebuilt"
            except BaseException:
                if conn is not None:
                    conn.close()
                raise
        raise AssertionError("unreachable")

    def _recover(self, exc: BaseException) -> None:
        """After a query failed on a damaged index: delete it; the next use builds it again."""
        with self._lock:
            location = self._report.location if self._report else None
            if self._closer is not None:
                self._closer()
            self._conn, self._report, self._closer = None, None, None
            if location is not None:
                remove(location)
            where = f" {location}" if location is not None else ""
            self._notice = f"the search index{where} was damaged ({reason(exc)}); rebuilt"

    def _db(self) -> sqlite3.Connection:
        self.prepare()
        assert self._conn is not None
        return self._conn

    def _counts(self) -> tuple[int, int]:
        assert self._conn is not None
        docs = self._conn.execute("SELECT count(*) FROM files WHERE skipped IS NULL").fetchone()
        sections = self._conn.execute("SELECT count(*) FROM sections").fetchone()
        return int(docs[0]), int(sections[0])

    @recovering
    def search(self, query: str | Sequence[str], *, limit: int = 5) -> list[Hit]:
        """The best `limit` sections for `query`: free text, or terms as `query_terms` gives.

        Any section holding any term matches; BM25 ranks them, headings above body text,
        and a section whose own heading is made of the query's words moves up
        (`rank.TITLE_BONUS`). In free text, the words of the question count more than those of
        the context around it (`term_weights`), and a word written in capitals counts only
        where a section writes it so (`acronyms`): "LFS" is not the stemmer's "LF"s.
        """
        if isinstance(query, str):
            terms, weights = query_terms(query), term_weights(query)
        else:
            terms, weights = list(query), None
        expression = match_expression(terms, weights)
        if not expression or limit < 1:
            return []
        capitals = acronyms(query) if isinstance(query, str) else set()
        conn = self._db()
        with self._lock, _snapshot(conn):
            rows = _candidates(conn, expression, limit)
            rowids = [row[0] for row in rows]
            titled = rank.holding(conn, terms, rowids, column="title")
            total = self._report.sections if self._report else 0  # prepared: _db() opened it
            parts = rank.term_parts(conn, terms, rowids, total, self._known_counts(conn))
            rank.as_written(conn, capitals, rowids, parts, titled)
            ranked = rank.unrepeated(conn, _ranked(rows, terms, weights, parts, titled))
        return [_hit(row, terms, parts) for row in ranked[:limit]]

    @recovering
    def term_counts(self, terms: Sequence[str]) -> dict[str, int]:
        """How many sections hold each term (0: the docs never use it)."""
        conn = self._db()
        counts = {}
        with self._lock:
            known = self._known_counts(conn)
            for term in terms:
                expression = match_expression([term])
                counts[term] = rank.count(conn, expression, known) if expression else 0
        return counts

    def _known_counts(self, conn: sqlite3.Connection) -> dict[str, int]:
        """The sections counted per expression, while the index is unchanged (another
        process writing to the file changes its `data_version`); under the lock."""
        version = int(conn.execute("PRAGMA data_version").fetchone()[0])
        if version != self._version or len(self._counts_seen) > MAX_COUNTS:
            self._counts_seen, self._version = {}, version
        return self._counts_seen

    @recovering
    def written_counts(self, words: Sequence[str]) -> dict[str, int]:
        """How many sections hold each word as written, case aside, or with a plural "s":
        what an acronym's count should be where the stemmer folds it into another word
        ("LFS" into "lf", the line feed of every text format)."""
        conn = self._db()
        counts = {}
        with self._lock:
            for word in words:
                expression = match_expression([word])
                rows = (
                    conn.execute(
                        "SELECT title, trail, body FROM fts WHERE fts MATCH ?", (expression,)
                    ).fetchall()
                    if expression
                    else []
                )
                pattern = written(word)
                counts[word] = sum(1 for row in rows if any(pattern.search(c) for c in row))
        return counts

    @recovering
    def bodies(self, hits: Sequence[Hit]) -> list[list[str]]:
        """The lines of each of `hits`' sections as the index holds them (without their
        heading lines; empty for a section the index no longer holds): no doc is read."""
        conn = self._db()
        found = []
        with self._lock:
            for hit in hits:
                row = conn.execute(
                    "SELECT fts.body FROM sections JOIN files ON files.id = sections.file_id "
                    "JOIN fts ON fts.rowid = sections.id "
                    "WHERE files.path = ? AND sections.start = ?",
                    (hit.path, hit.start),
                ).fetchone()
                found.append(row[0].split("\n") if row else [])
        return found

    @property
    def section_count(self) -> int:
        """Sections in the index: the N that term counts are out of."""
        return self.prepare().sections

    @recovering
    def kept(self, path: str, mtime_ns: int, size: int) -> store.Kept | None:
        """What the index holds of a paged doc (a PDF) whose file has this mtime and size:
        its text, or why it was skipped, so that it is not read again; else None."""
        conn = self._db()
        with self._lock:
            return store.kept(conn, path, mtime_ns, size)

    @recovering
    def sections(self, path: str) -> list[Section]:
        """The sections of one doc, in order (empty for a path the index does not hold)."""
        conn = self._db()
        with self._lock:
            rows = conn.execute(
                "SELECT sections.start, sections.end, sections.headings FROM sections "
                "JOIN files ON files.id = sections.file_id WHERE files.path = ? "
                "ORDER BY sections.start",
                (path,),
            ).fetchall()
        return [Section(start, end, _headings(headings)) for start, end, headings in rows]

    @recovering
    def example_questions(self, count: int = 3) -> list[str]:
        """Up to `count` questions a person might ask, drawn from the docs' own headings."""
        conn = self._db()
        with self._lock:
            rows = conn.execute(
                "SELECT files.path, sections.headings FROM sections "
                "JOIN files ON files.id = sections.file_id "
                "ORDER BY files.path, sections.start LIMIT ?",
                (EXAMPLE_SECTIONS,),
            ).fetchall()
        titles = ((path, json.loads(trail)[-1]) for path, trail in rows if trail != "[]")
        return example_questions(titles, count)

    def close(self) -> None:
        """Close the database (a later search opens it again)."""
        with self._lock:
            if self._closer is not None:
                self._closer()
            self._conn, self._report, self._closer = None, None, None
            self._counts_seen, self._version = {}, None


def _headings(trail: str) -> tuple[str, ...]:
    """A section's heading trail as stored; JSONDecodeError (damage) unless a list of text."""
    value = json.loads(trail)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise json.JSONDecodeError("headings are not a list of text", trail[:40], 0)
    return tuple(value)


def _candidates(conn: sqlite3.Connection, expression: str, limit: int) -> list[Any]:
    """The best `rank.CANDIDATES` sections (or `limit`, if more) by BM25, to be reordered:
    rowid, BM25 score, snippet, path, start, end and heading trail."""
    return conn.execute(
        "SELECT fts.rowid, -rank, snippet(fts, 2, char(2), char(3), '…', ?), "
        "files.path, sections.start, sections.end, sections.headings "
        "FROM fts JOIN sections ON sections.id = fts.rowid "
        "JOIN files ON files.id = sections.file_id "
        "WHERE fts MATCH ? AND rank MATCH ? ORDER BY rank LIMIT ?",
        (SNIPPET_WORDS, expression, rank.rank_function(), max(limit, rank.CANDIDATES)),
    ).fetchall()


def _ranked(
    rows: list[Any],
    terms: Sequence[str],
    weights: dict[str, int] | None,
    parts: dict[str, dict[int, float]],
    titled: rank.Held,
) -> list[Any]:
    """The candidates scored and ordered, best first, one of each twin page: (score,
    rowid, snippet, path, start, end, headings)."""
    ranked = []
    for rowid, _, snippet, path, start, end, trail in rows:
        if not any(rowid in scores for scores in parts.values()):
            continue  # it matched an acronym only as the stemmer reads it
        headings = _headings(trail)
        score = sum((weights or {}).get(t, 1) * parts[t].get(rowid, 0.0) for t in parts)
        share = rank.title_share(headings, terms, rowid, titled)
        score = (
            score * (1 + rank.TITLE_BONUS * share) * rank.changelog_weight(path, headings, terms)
        )
        ranked.append((score, rowid, snippet, path, start, end, headings))
    ranked = rank.with_page_support(ranked)
    ranked.sort(key=lambda row: -row[0])  # stable: BM25's order among equals
    return [ranked[i] for i in rank.without_twins([row[3] for row in ranked])]


def _hit(row: Any, terms: Sequence[str], parts: dict[str, dict[int, float]]) -> Hit:
    """A ranked row as the Hit search returns, with the terms its section holds."""
    score, rowid, snippet, path, start, end, headings = row
    return Hit(
        path=path,
        start=start,
        end=end,
        headings=headings,
        score=round(score, 6),
        snippet=marked(snippet),
        matched_terms=tuple(t for t in terms if rowid in parts.get(t, ())),
    )


@contextmanager
def _snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """One read transaction: its statements see the index as it was at the first, though
    another process updates it meanwhile (new rowids would score sections they never saw)."""
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")
