"""The index database: its tables, opening it safely, and bringing it up to date with the
docs (which file a docs folder uses is `location`'s).

Tables:
`files` (path, mtime and size as last indexed, or why the file was skipped),
`sections` (file, line range, heading trail), `texts` (the text of each doc that is
costly to read, a PDF: read once per change, not per question) and `fts`, an FTS5 table over each
section's title, the rest of its heading trail with the file's path, and its body,
stemmed with Porter over `unicode61` words.

Updating compares every doc's mtime and size with `files`: changed and new files are
(re)indexed, deleted ones dropped, all in one transaction taken with `BEGIN IMMEDIATE`,
so a second process waits (WAL mode, a busy timeout) and then finds nothing to do. A
file stamped with another version in `PRAGMA user_version` anyway is rebuilt from scratch.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISLNK, S_ISREG
from typing import Protocol

from agent.readers.base import NotText
from agent.readers.registry import batch, doc_suffix, heading_style, is_paged
from agent.search.location import current_version
from agent.search.sections import Section, split_sections

BUSY_TIMEOUT_S = 3.0
"""How long to wait for another process that is updating the same index (then the index
is built in memory for this run, and a notice says why)."""

APPLICATION_ID = 0x64734167
"""`PRAGMA application_id` of every index docsagent writes ("dsAg"): a file at an index's
path without it is another application's database, and is never written to."""

TABLES = ("files", "sections", "texts", "fts", "fts_data", "fts_idx", "fts_content", "fts_docsize")
"""The tables an index must hold (FTS5 keeps its data in the `fts_*` shadow tables)."""


class NotOurs(Exception):
    """The file at an index's path is not an index docsagent made; the message says what."""


class Damaged(Exception):
    """The index file is damaged; the message says how."""


Progress = Callable[[int, int], None]
"""Called as files are indexed: (files done, files to index)."""

TOKENIZER = "porter unicode61 remove_diacritics 2"
"""How FTS5 splits and stems words: Porter stems over Unicode words, accents folded."""

SCHEMA = """
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    skipped TEXT
);
CREATE TABLE sections (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id),
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    headings TEXT NOT NULL
);
CREATE INDEX sections_by_file ON sections(file_id, start);
CREATE TABLE texts (
    file_id INTEGER PRIMARY KEY REFERENCES files(id),
    text TEXT NOT NULL
);
CREATE VIRTUAL TABLE fts USING fts5(
    title, trail, body, tokenize = '{tokenizer}'
);
"""


class DocSource(Protocol):
    """The docs to index: their relative paths under `root`, and each one's text lines."""

    @property
    def root(self) -> Path: ...

    def paths(self) -> list[str]: ...

    def file(self, rel: str) -> str:
        """Where the doc shown as `rel` is on disk (a name shown escaped differs)."""
        ...

    def read_lines(self, rel: str) -> list[str]:
        """The doc's lines, read afresh; NotText or OSError when it cannot be read."""
        ...


@dataclass(frozen=True)
class Changes:
    """What an update did."""

    added: int = 0
    changed: int = 0
    removed: int = 0
    rebuilt: bool = False


def connect_file(path: Path) -> sqlite3.Connection:
    """A connection to the index file at `path` (created if missing), in WAL mode.

    Raises NotOurs, before anything is written, when the path holds a link, a device or
    another application's database; Damaged when the index fails its checks; and
    sqlite3.DatabaseError when the file is not a database at all.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    _refuse_foreign_entry(path)
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
    )
    try:
        _refuse_foreign_entry(path)  # again: a link put there while it was opened
        if _owned(conn):
            _check(conn)
        _use_wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
    except BaseException:
        conn.close()
        raise
    return conn


def _refuse_foreign_entry(path: Path) -> None:
    """NotOurs when `path` is a link or anything but a regular file (missing is fine)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if S_ISLNK(mode):
        raise NotOurs("a link to another file")
    if not S_ISREG(mode):
        raise NotOurs("not a regular file")


def _owned(conn: sqlite3.Connection) -> bool:
    """True for an index of ours, False for a new empty file; NotOurs for anything else."""
    application = int(conn.execute("PRAGMA application_id").fetchone()[0])
    if application == APPLICATION_ID:
        return True
    if application == 0 and not conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone():
        return False
    raise NotOurs("another application's database")


def _check(conn: sqlite3.Connection) -> None:
    """Damaged when SQLite's quick check fails, a table is missing or headings are not
    lists of text (each would fail a search later, in every run)."""
    problem = str(conn.execute("PRAGMA quick_check(1)").fetchone()[0])
    if problem != "ok":
        raise Damaged(problem[:200])
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    missing = [table for table in TABLES if table not in names]
    if missing:
        raise Damaged(f"its table {missing[0]} is missing")
    bad = conn.execute(  # cheap enough for every start (a list's items are checked at use)
        "SELECT 1 FROM sections WHERE substr(headings, 1, 1) != '[' OR json_valid(headings) = 0 "
        "LIMIT 1"
    ).fetchone()
    if bad:
        raise Damaged("a section's headings are not a list of text")


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL, so readers never wait for a writer; fails if it is not a database.

    The switch takes an exclusive lock without waiting on the busy timeout, so two
    processes creating the file at once may see "locked": try again, for a while.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        try:
            conn.execute("PRAGMA journal_mode = WAL").fetchone()
            return  # WAL, or the mode this file system allows (locking still holds)
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def connect_memory() -> sqlite3.Connection:
    """A connection to an index held in memory, for this process only."""
    return sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)


def update(conn: sqlite3.Connection, source: DocSource, progress: Progress | None) -> Changes:
    """Bring the index up to date with the docs; returns what changed."""
    wanted = _stats(source)
    if _version(conn) == current_version() and _plan(_stored(conn), wanted) == ([], []):
        return Changes()  # the common case: nothing to write, no lock taken
    with _transaction(conn), batch():  # batch: one PDF reader process for all the PDFs
        rebuilt = _ensure_schema(conn)
        stored = _stored(conn)  # again: another process may have done the work meanwhile
        stale, gone = _plan(stored, wanted)
        for path in gone:
            _drop(conn, stored[path][0])
        for done, path in enumerate(stale, start=1):
            if path in stored:
                _drop(conn, stored[path][0])
            _add(conn, source, path, wanted[path])
            if progress is not None:
                progress(done, len(stale))
        changed = sum(path in stored for path in stale)
        return Changes(len(stale) - changed, changed, len(gone), rebuilt)


def _stats(source: DocSource) -> dict[str, tuple[int, int]]:
    """Each doc's (mtime in ns, size); a doc that vanished since the scan is left out."""
    found = {}
    for rel in source.paths():
        try:
            stat = os.stat(source.file(rel))  # not pathlib: this runs for every doc
        except OSError:
            continue
        found[rel] = (stat.st_mtime_ns, stat.st_size)
    return found


def _version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _stored(conn: sqlite3.Connection) -> dict[str, tuple[int, tuple[int, int]]]:
    """Each indexed file's id and (mtime in ns, size) when it was indexed."""
    rows = conn.execute("SELECT path, id, mtime_ns, size FROM files").fetchall()
    return {path: (file_id, (mtime, size)) for path, file_id, mtime, size in rows}


def _plan(
    stored: dict[str, tuple[int, tuple[int, int]]], wanted: dict[str, tuple[int, int]]
) -> tuple[list[str], list[str]]:
    """The docs to (re)index, and the indexed files that are gone."""
    stale = [path for path, stat in wanted.items() if path not in stored or stored[path][1] != stat]
    gone = [path for path in stored if path not in wanted]
    return stale, gone


@contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")  # take the write lock now, before reading what to do
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _ensure_schema(conn: sqlite3.Connection) -> bool:
    """Create the tables, replacing those of another format version; True if it did."""
    version = _version(conn)
    if version == current_version():
        return False
    for kind in ("virtual", "table"):  # virtual tables first: they own shadow tables
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND (sql LIKE 'CREATE VIRTUAL%') = ?",
            (kind == "virtual",),
        ).fetchall():
            conn.execute(f'DROP TABLE IF EXISTS "{name}"')
    for statement in SCHEMA.format(tokenizer=TOKENIZER).split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {current_version()}")
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    return version != 0


def _drop(conn: sqlite3.Connection, file_id: int) -> None:
    conn.execute(
        "DELETE FROM fts WHERE rowid IN (SELECT id FROM sections WHERE file_id = ?)", (file_id,)
    )
    conn.execute("DELETE FROM sections WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM texts WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


def _add(conn: sqlite3.Connection, source: DocSource, path: str, stat: tuple[int, int]) -> None:
    """Index one doc, or record why it was skipped."""
    try:
        lines, skipped = source.read_lines(path), None
    except NotText as exc:
        lines, skipped = [], str(exc)
    except OSError as exc:
        lines, skipped = [], f"unreadable: {exc.strerror or exc}"
    file_id = conn.execute(
        "INSERT INTO files (path, mtime_ns, size, lines, skipped) VALUES (?, ?, ?, ?, ?)",
        (path, stat[0], stat[1], len(lines), skipped),
    ).lastrowid
    if skipped is None and is_paged(path):  # its text is kept: a question never reads it again
        conn.execute("INSERT INTO texts (file_id, text) VALUES (?, ?)", (file_id, "\n".join(lines)))
    place = _path_words(path)
    for section in split_sections(lines, heading_style(path)):
        section_id = conn.execute(
            "INSERT INTO sections (file_id, start, end, headings) VALUES (?, ?, ?, ?)",
            (file_id, section.start, section.end, json.dumps(section.headings)),
        ).lastrowid
        conn.execute(
            "INSERT INTO fts (rowid, title, trail, body) VALUES (?, ?, ?, ?)",
            (section_id, section.title, _trail(section, place), _body(lines, section)),
        )


@dataclass(frozen=True)
class Kept:
    """What the index holds of a costly doc as it was indexed: its text, or why it was
    skipped (then `text` is '')."""

    text: str
    skipped: str | None = None


def kept(conn: sqlite3.Connection, path: str, mtime_ns: int, size: int) -> Kept | None:
    """The text or the skip reason the index holds for a paged doc (`is_paged`) whose file
    has this mtime and size; None when it holds neither (another version of the file)."""
    row = conn.execute(
        "SELECT files.skipped, texts.text FROM files LEFT JOIN texts ON texts.file_id = files.id "
        "WHERE files.path = ? AND files.mtime_ns = ? AND files.size = ?",
        (path, mtime_ns, size),
    ).fetchone()
    if row is None or (row[0] is None and row[1] is None):
        return None
    return Kept(row[1] or "", row[0])


def _path_words(path: str) -> str:
    """A doc's path as words: `advanced/timeouts.md` is "advanced timeouts"."""
    stem = re.sub(r"\.gz$", "", path, flags=re.IGNORECASE)
    suffix = doc_suffix(path)
    if suffix and stem.lower().endswith(suffix):
        stem = stem[: -len(suffix)]
    return " ".join(re.split(r"[/_.\-\s]+", stem)).strip()


def _trail(section: Section, place: str) -> str:
    return " ".join([*section.headings[:-1], place])


def _body(lines: list[str], section: Section) -> str:
    own = set(section.heading_lines)
    return "\n".join(lines[n - 1] for n in range(section.start, section.end + 1) if n not in own)
