"""A damaged index is named in one line and rebuilt; a file that is not ours is never written.

Each case failed every run with exit 1 (random bytes, a missing FTS table or shadow
table, headings that are not JSON), or wrote into another application's database
linked at the index's path, before the index checked itself.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.search import DocsIndex, store
from agent.search.location import index_file
from agent.tools.corpus import Corpus
from tests.agent.test_search_index import OTHER, POOL, write


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return write(tmp_path / "docs", {"limits.md": POOL, "guide/retries.md": OTHER})


def prepared(docs: Path, cache: Path) -> tuple[DocsIndex, str | None]:
    index = DocsIndex(Corpus.open(docs), cache_dir=cache)
    return index, index.prepare().notice


def built(docs: Path, cache: Path) -> Path:
    """A good index for `docs` in `cache`, closed; its path."""
    index, notice = prepared(docs, cache)
    assert notice is None
    index.close()
    return index_file(cache, docs)


def execute(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in statements:
        conn.execute(statement)
    conn.close()


def scribble(path: Path) -> None:
    """Random bytes over every page but the first (the header stays valid)."""
    size = path.stat().st_size
    with path.open("r+b") as stream:
        stream.seek(4096)
        stream.write(os.urandom(size - 4096))


DAMAGE: list[tuple[str, Callable[[Path], object], str]] = [
    ("random bytes", lambda p: p.write_bytes(os.urandom(65536)), "file is not a database"),
    ("random pages", scribble, ""),
    ("a dropped shadow table", lambda p: execute(p, "DROP TABLE fts_data"), ""),
    ("the FTS table dropped", lambda p: execute(p, "DROP TABLE fts"), "its table fts is missing"),
    (
        "headings not JSON",
        lambda p: execute(p, "UPDATE sections SET headings = 'not json'"),
        "a section's headings are not a list of text",
    ),
]


@pytest.mark.parametrize(("what", "damage", "reason"), DAMAGE, ids=[d[0] for d in DAMAGE])
def test_a_damaged_index_is_named_in_one_line_and_rebuilt(
    docs: Path, tmp_path: Path, what: str, damage: Callable[[Path], None], reason: str
) -> None:
    path = built(docs, tmp_path / "cache")
    damage(path)
    index, notice = prepared(docs, tmp_path / "cache")
    assert notice is not None and notice.startswith(f"the search index {path} was damaged (")
    assert notice.endswith("); rebuilt") and reason in notice
    assert [h.citation for h in index.search("pool timeout")][0] == "limits.md:5-7"
    index.close()
    assert prepared(docs, tmp_path / "cache")[1] is None  # the next run finds it whole


def test_an_index_damaged_while_in_use_is_rebuilt_and_the_search_answers(
    docs: Path, tmp_path: Path
) -> None:
    index, _ = prepared(docs, tmp_path / "cache")
    execute(index_file(tmp_path / "cache", docs), "DROP TABLE fts")
    assert [h.citation for h in index.search("pool timeout")][0] == "limits.md:5-7"
    assert index.sections("limits.md")


def foreign_database(path: Path) -> bytes:
    """Another application's SQLite database at `path`; its bytes."""
    execute(path, "CREATE TABLE notes (body TEXT)", "INSERT INTO notes VALUES ('mine')")
    return path.read_bytes()


def test_a_link_to_another_applications_database_is_never_written(
    docs: Path, tmp_path: Path
) -> None:
    theirs = tmp_path / "app.sqlite"
    before = foreign_database(theirs)
    cache = tmp_path / "cache"
    cache.mkdir()
    path = index_file(cache, docs)
    path.symlink_to(theirs)
    index, notice = prepared(docs, cache)
    assert theirs.read_bytes() == before
    assert not (tmp_path / "app.sqlite-wal").exists()
    assert notice is not None and notice.startswith(
        f"the search index {path} was not docsagent's (a link to another file); it was moved to "
    )
    assert not path.is_symlink() and [h.citation for h in index.search("pool")][0]


def test_another_applications_database_at_the_index_path_is_set_aside(
    docs: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    path = index_file(cache, docs)
    before = foreign_database(path)
    index, notice = prepared(docs, cache)
    assert notice is not None and "(another application's database)" in notice
    (aside,) = [p for p in cache.iterdir() if ".not-docsagent-" in p.name]
    assert aside.read_bytes() == before
    assert index.search("pool")


def test_another_process_holding_the_write_lock_is_named_and_waited_on_briefly(
    docs: Path, tmp_path: Path
) -> None:
    path = built(docs, tmp_path / "cache")
    (docs / "new.md").write_text("# New\n\nA new page about pools.\n")  # there is work to do
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        index, notice = prepared(docs, tmp_path / "cache")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert notice == (
        f"another process is updating the search index {path} (waited "
        f"{store.BUSY_TIMEOUT_S:g} s); indexing in memory for this run"
    )
    assert [h.path for h in index.search("new page pools")][0] == "new.md"
