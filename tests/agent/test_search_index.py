from __future__ import annotations

import inspect
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.readers.html import html_lines
from agent.readers.lines import normalize_breaks
from agent.readers.registry import doc_text
from agent.search import Changes, DocsIndex, Hit, store
from agent.search.location import (
    FORMAT_VERSION,
    KEPT_INDEX_FILES,
    current_version,
    index_file,
    index_version,
    reader_sources,
)
from agent.search.sections import split_sections
from agent.tools.corpus import Corpus

ROOT = Path(__file__).resolve().parents[2]

POOL = """\
# Limits

Connection limits for a client.

## Pool timeout

The pool timeout is how long to wait for a connection from the pool.
"""

OTHER = """\
# Retries

Retries happen on connect errors. A timeout is not retried, and neither is a full pool
when the limits are reached.
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return write(tmp_path / "docs", {"limits.md": POOL, "guide/retries.md": OTHER})


def open_index(docs: Path, cache: Path | None) -> DocsIndex:
    return DocsIndex(Corpus.open(docs), cache_dir=cache)


def test_the_best_section_comes_first_with_its_lines_trail_and_marked_words(docs: Path) -> None:
    hits = open_index(docs, None).search("What is the pool timeout?")
    assert hits[0] == Hit(
        path="limits.md",
        start=5,
        end=7,
        headings=("Limits", "Pool timeout"),
        score=hits[0].score,
        snippet="The **pool** **timeout** is how long to wait for a connection from the **pool**.",
        matched_terms=("pool", "timeout"),
    )
    assert [h.citation for h in hits] == ["limits.md:5-7", "guide/retries.md:1-4"]
    assert hits[0].score > hits[1].score > 0


def test_stemming_matches_other_forms_of_a_word(docs: Path) -> None:
    index = open_index(docs, None)
    assert [h.citation for h in index.search("retrying")] == ["guide/retries.md:1-4"]
    assert index.search("limited")[0].matched_terms == ("limited",)


def test_bodies_are_the_indexed_lines_of_the_sections_found(docs: Path) -> None:
    index = open_index(docs, None)
    hits = index.search("What is the pool timeout?")
    gone = Hit("limits.md", 99, 100, (), 0.0, "", ())
    assert index.bodies([hits[0], gone]) == [
        ["", "The pool timeout is how long to wait for a connection from the pool."],
        [],
    ]


def test_term_counts_say_how_rare_each_term_is(docs: Path) -> None:
    index = open_index(docs, None)
    assert index.term_counts(["pool", "retries", "kubernetes", "connection limits"]) == {
        "pool": 2,
        "retries": 1,
        "kubernetes": 0,
        "connection limits": 1,
    }
    assert index.section_count == 3


def test_a_quoted_phrase_matches_only_those_words_together(docs: Path) -> None:
    index = open_index(docs, None)
    assert [h.citation for h in index.search('"full pool"')] == ["guide/retries.md:1-4"]
    assert [h.citation for h in index.search(["connection limits"])] == ["limits.md:1-3"]


@pytest.mark.parametrize(
    "query",
    [
        'pool" OR "x',
        "pool*",
        "NEAR(pool timeout)",
        "pool AND timeout NOT limits",
        "title:pool",
        "^pool",
        "{title body}: pool",
        "(pool",
        '"unclosed',
        "-- ; DROP TABLE files",
        "",
        "***",
    ],
)
def test_query_syntax_in_the_text_is_never_an_error(docs: Path, query: str) -> None:
    index = open_index(docs, None)
    hits = index.search(query)
    assert all(isinstance(hit, Hit) for hit in hits)
    assert index.term_counts([query]) is not None


def test_the_index_file_lives_in_the_cache_folder_named_for_the_docs(
    docs: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    index = open_index(docs, cache)
    report = index.prepare()
    assert report.location == index_file(cache, docs)
    assert report.location.parent == cache and report.location.name.startswith("docs-")
    assert report.location.is_file()
    assert (report.docs, report.sections, report.changes) == (2, 3, Changes(added=2))
    os.symlink(docs, tmp_path / "link")
    assert index_file(cache, tmp_path / "link") == report.location
    assert index_file(cache, tmp_path) != report.location


def test_opening_again_updates_only_what_changed(docs: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert open_index(docs, cache).prepare().changes == Changes(added=2)
    assert open_index(docs, cache).prepare().changes == Changes()

    (docs / "limits.md").write_text(POOL.replace("pool timeout", "keepalive expiry"))
    os.utime(docs / "limits.md", ns=(1, 1))  # the size alone changed too, but be sure
    (docs / "guide" / "retries.md").unlink()
    write(docs, {"new.md": "# Streaming\n\nStream large downloads.\n"})
    progress: list[tuple[int, int]] = []
    index = open_index(docs, cache)
    report = index.prepare(lambda done, total: progress.append((done, total)))
    assert report.changes == Changes(added=1, changed=1, removed=1)
    assert progress == [(1, 2), (2, 2)]
    assert [h.citation for h in index.search("keepalive")] == ["limits.md:5-7"]
    assert index.search("retries") == []
    assert [h.citation for h in index.search("streaming")] == ["new.md:1-3"]
    assert report.docs == 2 and report.sections == 3


def test_a_search_after_another_process_grew_the_index_ranks_what_it_sees(
    tmp_path: Path,
) -> None:
    docs = write(tmp_path / "docs", {"one.md": "# One\n\nA pool.\n"})
    cache = tmp_path / "cache"
    index = open_index(docs, cache)
    assert index.prepare().sections == 1
    write(docs, {f"more{n}.md": f"# More {n}\n\nAnother pool, number {n}.\n" for n in range(3)})
    assert open_index(docs, cache).prepare().changes == Changes(added=3)  # another process
    assert len(index.search("pool kinds", limit=10)) == 4  # 4 hold "pool"; it counted 1


def test_a_search_sees_one_state_of_the_index_while_another_process_updates_it(
    docs: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    index = open_index(docs, cache)
    index.prepare()
    updated: list[object] = []

    def update_once(statement: str) -> None:  # after the candidates, before their scores
        if "bm25(fts, " in statement and not updated:
            (docs / "limits.md").write_text("# Intro\n\nFirst.\n\n" + POOL)  # lines move
            updated.append(open_index(docs, cache).prepare().changes)

    index._db().set_trace_callback(update_once)
    hits = index.search("pool timeout")
    assert updated == [Changes(changed=1)]
    assert hits[0].citation == "limits.md:5-7"
    assert hits[0].matched_terms == ("pool", "timeout") and hits[0].score > 0


def test_an_index_of_another_format_version_is_rebuilt(docs: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    location = open_index(docs, cache).prepare().location
    assert location is not None
    with sqlite3.connect(location) as conn:
        conn.execute(f"PRAGMA user_version = {FORMAT_VERSION + 1}")
        conn.execute("DELETE FROM sections")  # what an older docsagent might have left
    report = open_index(docs, cache).prepare()
    assert report.changes == Changes(added=2, rebuilt=True)
    assert report.notice is None and report.location == location
    assert [h.citation for h in open_index(docs, cache).search("pool")][0] == "limits.md:5-7"


def test_a_change_to_how_docs_are_read_makes_a_new_index_version(tmp_path: Path) -> None:
    agent = Path(__file__).resolve().parents[2] / "agent"
    for name in reader_sources():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes((agent / name).read_bytes())
    assert index_version(tmp_path) == current_version() > FORMAT_VERSION
    html = tmp_path / "readers" / "html.py"
    html.write_text(html.read_text() + "\n# reads <aside> now\n")
    assert index_version(tmp_path) != current_version()  # so every index is rebuilt
    (tmp_path / "readers" / "epub.py").write_text("# a new format\n")
    assert index_version(tmp_path) != current_version()  # a new reader counts too
    for name in reader_sources(tmp_path):
        (tmp_path / name).unlink()
    assert index_version(tmp_path) not in (0, current_version())  # no sources: the format alone


def test_every_module_the_index_reads_docs_with_counts_in_its_version() -> None:
    reading: list[Callable[..., object]] = [
        Corpus.read_lines,  # what the index is given: the doc's lines
        Corpus.read,
        normalize_breaks,  # where a line ends
        doc_text,
        html_lines,
        split_sections,
        store.update,
    ]
    modules = {Path(inspect.getfile(f)).resolve().relative_to(ROOT / "agent") for f in reading}
    assert {m.as_posix() for m in modules} <= set(reader_sources())


OTHER_VERSION = """\
import sys
from pathlib import Path
from agent.search import DocsIndex
from agent.tools.corpus import Corpus
print(DocsIndex(Corpus.open(Path(sys.argv[1])), cache_dir=Path(sys.argv[2])).prepare().changes)
"""


def test_two_versions_of_docsagent_keep_their_own_index_files(docs: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"  # a checkout that reads HTML differently, beside this one
    shutil.copytree(ROOT / "agent", other / "agent", ignore=shutil.ignore_patterns("__pycache__"))
    html = other / "agent" / "readers" / "html.py"
    html.write_text(html.read_text() + "\n# reads <aside> now\n")
    cache = tmp_path / "cache"

    def open_other() -> str:
        command = [sys.executable, "-c", OTHER_VERSION, str(docs), str(cache)]
        done = subprocess.run(command, cwd=other, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    assert open_index(docs, cache).prepare().changes == Changes(added=2)
    assert open_other() == "Changes(added=2, changed=0, removed=0, rebuilt=False)"
    assert open_index(docs, cache).prepare().changes == Changes()  # not rebuilt in turn
    assert open_other() == "Changes(added=0, changed=0, removed=0, rebuilt=False)"
    assert len(list(cache.glob("docs-*.sqlite"))) == 2


def test_a_folder_keeps_its_most_recently_used_index_files_only(docs: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    mine = index_file(cache, docs)
    stem = mine.name.rsplit("-", 1)[0]
    versions = [cache / f"{stem}-{version:08x}.sqlite" for version in (7, 8, 9)]
    unversioned = cache / f"{stem}.sqlite"  # as docsagent named it before
    elsewhere = index_file(cache, tmp_path)  # another folder's
    for hours, path in enumerate([*versions, unversioned, elsewhere], start=1):
        path.write_bytes(b"")
        os.utime(path, (time.time() - hours * 3600,) * 2)
    Path(f"{unversioned}-wal").write_bytes(b"")
    open_index(docs, cache).prepare()
    kept = [mine, *versions[: KEPT_INDEX_FILES - 1], elsewhere]
    assert sorted(cache.glob("*.sqlite")) == sorted(kept)
    assert not Path(f"{unversioned}-wal").exists()


def test_a_damaged_index_file_is_replaced(docs: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    location = index_file(cache, docs)
    cache.mkdir()
    location.write_bytes(b"this is not a database" * 100)
    report = open_index(docs, cache).prepare()
    assert (
        report.notice
        == f"the search index {location} was damaged (file is not a database); rebuilt"
    )
    assert report.changes == Changes(added=2)


def test_an_unwritable_cache_folder_keeps_the_index_in_memory(docs: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    index = open_index(docs, blocker / "docsagent")
    report = index.prepare()
    assert report.location is None
    assert report.notice is not None
    assert report.notice.startswith(f"cannot keep the search index in {blocker / 'docsagent'} (")
    assert report.notice.endswith("); indexing in memory for this run")
    assert [h.citation for h in index.search("pool timeout")][0] == "limits.md:5-7"
    assert index.prepare() is report  # one notice per run


def test_no_cache_folder_means_memory_without_a_notice(docs: Path) -> None:
    report = open_index(docs, None).prepare()
    assert (report.location, report.notice) == (None, None)


def test_a_doc_that_cannot_be_read_is_recorded_not_indexed(docs: Path, tmp_path: Path) -> None:
    (docs / "data.txt").write_bytes(b"\0binary")
    index = open_index(docs, tmp_path / "cache")
    assert index.prepare().docs == 2
    assert index.sections("data.txt") == []
    assert [(s.start, s.end, s.headings) for s in index.sections("limits.md")] == [
        (1, 3, ("Limits",)),
        (5, 7, ("Limits", "Pool timeout")),
    ]


CHILD = """\
import json, sys
from pathlib import Path
from agent.search import DocsIndex
from agent.tools.corpus import Corpus

index = DocsIndex(Corpus.open(sys.argv[1]), cache_dir=Path(sys.argv[2]))
print("ready", flush=True)
sys.stdin.readline()
report = index.prepare()
print(json.dumps({
    "added": report.changes.added,
    "docs": report.docs,
    "sections": report.sections,
    "notice": report.notice,
    "hits": [hit.citation for hit in index.search("alpha", limit=3)],
}))
"""


def test_two_processes_opening_one_index_at_once(tmp_path: Path) -> None:
    docs = write(
        tmp_path / "docs",
        {f"page{n:03}.md": f"# Page {n}\n\nalpha {'beta ' * n}\n" for n in range(300)},
    )
    cache = tmp_path / "cache"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(docs), str(cache)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for _ in range(2)
    ]
    for child in children:  # both have started; now let them open the index together
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    results = []
    for child in children:
        out, err = child.communicate(timeout=60)
        assert child.returncode == 0, err
        results.append(json.loads(out))
    assert sorted(r["added"] for r in results) == [0, 300], results  # one did it, one found it done
    assert all(r["notice"] is None for r in results), results
    assert all((r["docs"], r["sections"]) == (300, 300) for r in results), results
    assert (
        results[0]["hits"]
        == results[1]["hits"]
        == [
            "page000.md:1-3",
            "page001.md:1-3",
            "page002.md:1-3",
        ]
    )
