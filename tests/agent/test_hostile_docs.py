"""The docs tools on a folder built to break them, or changed under them mid-run."""

from __future__ import annotations

import json
import os
import shutil
import threading
import tracemalloc
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
from tests.permissions import binding

SECRET = "root:x:0:0 a secret line\n"
LIST = "call list_docs to see the files"


def call(ctx: DocsContext, name: str, args: dict[str, object]) -> tuple[str, bool]:
    """One tool call, which must come back within a few seconds (a FIFO once hung it)."""
    result: list[tuple[str, bool]] = []

    def run() -> None:
        outcome = docs_registry().call(name, json.dumps(args), [ctx])
        result.append((outcome.output, outcome.error))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=10)
    if not result:
        for fifo in ctx.corpus.root.rglob("*"):  # let a read stuck on a FIFO go
            if fifo.is_fifo():
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"{name} did not return within 10 seconds")
    output, error = result[0]
    output.encode("utf-8")  # what is sent to a model: never a lone surrogate
    return output, error


@dataclass(frozen=True)
class Swap:
    """A doc changed after start-up, and what each tool must then say."""

    name: str
    target: str  # the doc changed
    change: Callable[[Path, Path], None]  # (the doc's path, a folder outside the docs)
    reason: str  # why it is skipped, as the notes and read_doc say
    options: tuple[tuple[str, int], ...] = ()
    needs_non_root: bool = False  # permissions bind only users other than root


def _symlink_outside(doc: Path, outside: Path) -> None:
    doc.unlink()
    doc.symlink_to(outside / "secret.md")


def _symlink_dev_zero(doc: Path, outside: Path) -> None:
    doc.unlink()
    doc.symlink_to("/dev/zero")


def _fifo(doc: Path, outside: Path) -> None:
    doc.unlink()
    os.mkfifo(doc)


def _delete(doc: Path, outside: Path) -> None:
    doc.unlink()


def _folder(doc: Path, outside: Path) -> None:
    doc.unlink()
    doc.mkdir()


def _unreadable(doc: Path, outside: Path) -> None:
    doc.chmod(0)


def _grown(doc: Path, outside: Path) -> None:
    doc.write_text("# Guide\n" + "grown line\n" * 1000)


def _folder_on_the_way(doc: Path, outside: Path) -> None:
    folder = doc.parent
    shutil.move(folder, outside / "moved")
    (outside / "elsewhere").mkdir()
    (outside / "elsewhere" / doc.name).write_text(SECRET)
    folder.symlink_to(outside / "elsewhere")


OUTSIDE = "it leads outside the docs folder"
SWAPS = [
    Swap(
        "symlink to a file outside",
        "guide.md",
        _symlink_outside,
        OUTSIDE,
    ),
    Swap(
        "symlink to /dev/zero",
        "guide.md",
        _symlink_dev_zero,
        OUTSIDE,
    ),
    Swap(
        "FIFO",
        "guide.md",
        _fifo,
        "it is not a regular file",
    ),
    Swap(
        "deleted",
        "guide.md",
        _delete,
        "it no longer exists",
    ),
    Swap(
        "folder",
        "guide.md",
        _folder,
        "it is a folder now",
    ),
    Swap(
        "permission denied",
        "guide.md",
        _unreadable,
        "permission denied",
        needs_non_root=True,
    ),
    Swap(
        "grown past the size limit",
        "guide.md",
        _grown,
        "it is larger than the 4,096-byte limit for one doc",
        options=(("max_doc_bytes", 4096),),
    ),
    Swap(
        "folder on the way swapped for a symlink outside",
        "advanced/long.md",
        _folder_on_the_way,
        OUTSIDE,
    ),
]
LISTED = {
    "guide.md": "guide.md  (8 lines)  Guide",
    "advanced/long.md": "advanced/long.md  (200 lines)",
}


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
@pytest.mark.parametrize("swap", SWAPS, ids=[s.name for s in SWAPS])
def test_a_doc_changed_mid_run_is_skipped_with_a_note_and_the_rest_searched(
    docs: Path, tmp_path: Path, swap: Swap, warm: bool
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(SECRET)
    ctx = DocsContext(Corpus.open(docs, **dict(swap.options)))
    if warm:  # the docs were read (and cached) before the change
        call(ctx, "list_docs", {})
        call(ctx, "grep_docs", {"keyword": "line"})
    swap.change(docs / swap.target, outside)
    with binding(docs / swap.target) if swap.needs_non_root else nullcontext():
        mid_run_checks(ctx, swap)


def mid_run_checks(ctx: DocsContext, swap: Swap) -> None:
    """What each tool says once `swap` has changed its doc."""
    note = f"(skipped {swap.target}: {swap.reason})"
    other = next(rel for rel in LISTED if rel != swap.target)

    passed_over = "(1 doc; 2 files skipped: 1 licence (LICENSE.md); 1 of unknown type (1 .png))"
    assert call(ctx, "list_docs", {}) == (f"{passed_over}\n{note}\n{LISTED[other]}", False)
    output, error = call(ctx, "grep_docs", {"keyword": "line"})
    if other == "guide.md":
        assert (output, error) == (f"{note}\nguide.md:3: Intro line.", False)
    else:
        lines = output.splitlines()
        assert not error and lines[0] == note
        assert lines[1].startswith("(20 of 200 matches shown; per doc: advanced/long.md 200.")
        assert lines[2] == "advanced/long.md:1: line 1"
    assert call(ctx, "grep_docs", {"keyword": "secret"}) == (
        f"{note}\nno matches for 'secret' in 1 docs; try another keyword or call list_docs",
        False,
    )
    assert call(ctx, "read_doc", {"path": swap.target}) == (
        f"error: cannot read {swap.target}: {swap.reason}; {LIST}",
        True,
    )
    assert call(ctx, "grep_docs", {"keyword": "line", "path": swap.target})[1]


@pytest.mark.parametrize("swap", SWAPS, ids=[s.name for s in SWAPS])
def test_a_search_right_after_a_change_counts_nothing_from_the_cached_doc(
    docs: Path, tmp_path: Path, swap: Swap
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(SECRET)
    ctx = DocsContext(Corpus.open(docs, **dict(swap.options)))
    call(ctx, "grep_docs", {"keyword": "line"})  # every doc read and cached
    swap.change(docs / swap.target, outside)
    with binding(docs / swap.target) if swap.needs_non_root else nullcontext():
        secret = call(ctx, "grep_docs", {"keyword": "secret"})
        output, error = call(ctx, "grep_docs", {"keyword": "line"})
    note = f"(skipped {swap.target}: {swap.reason})"
    assert secret == (
        f"{note}\nno matches for 'secret' in 1 docs; try another keyword or call list_docs",
        False,
    )
    if swap.target == "advanced/long.md":
        assert (output, error) == (f"{note}\nguide.md:3: Intro line.", False)
    else:
        lines = output.splitlines()
        assert not error and lines[0] == note
        assert lines[1].startswith("(20 of 200 matches shown; per doc: advanced/long.md 200.")


def test_a_doc_edited_mid_run_is_searched_as_it_is_now(docs: Path) -> None:
    ctx = DocsContext(Corpus.open(docs))
    assert call(ctx, "grep_docs", {"keyword": "forever"})[0].startswith("guide.md:8:")
    (docs / "guide.md").write_text("# Guide\n\nNo more waiting forever.\n")
    assert call(ctx, "grep_docs", {"keyword": "forever"}) == (
        "guide.md:3: No more waiting forever.",
        False,
    )
    assert call(ctx, "list_docs", {})[0].endswith("guide.md  (3 lines)  Guide")


def test_a_doc_with_millions_of_matches_keeps_memory_bounded(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "e.md").write_bytes(b"e\n" * 1_000_000)
    ctx = DocsContext(Corpus.open(docs))
    tracemalloc.start()
    try:
        output, _ = call(ctx, "grep_docs", {"keyword": "e"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    lines = output.splitlines()
    assert lines[0].startswith("(20 of 1000000 matches shown; per doc: e.md 1000000.")
    assert lines[1:] == [f"e.md:{n}: e" for n in range(1, 21)]
    assert peak < 8 * 2_000_000  # a few copies of the 2 MB doc, never one object per match


def test_a_folder_that_cannot_be_listed_is_skipped_with_a_note(docs: Path) -> None:
    (docs / "advanced").chmod(0)
    try:
        with binding(docs / "advanced"):  # root too is denied, as any user would be
            listed = call(DocsContext(Corpus.open(docs)), "list_docs", {})
        passed_over = "(1 doc; 2 files skipped: 1 licence (LICENSE.md); 1 of unknown type (1 .png))"
        assert listed == (
            f"{passed_over}\n(skipped advanced/: permission denied)\nguide.md  (8 lines)  Guide",
            False,
        )
    finally:
        (docs / "advanced").chmod(0o755)


def test_a_keyword_with_a_line_break_matches_no_line(ctx: DocsContext) -> None:
    assert call(ctx, "grep_docs", {"keyword": "line 1\nline 2"}) == (
        "no matches for 'line 1\\x0aline 2' in 2 docs; try another keyword or call list_docs",
        False,
    )


def test_the_cache_stays_within_its_bytes_and_search_stays_right(docs: Path) -> None:
    for n in range(30):
        (docs / f"page{n:02}.md").write_text(f"# Page {n}\n" + "filler text\n" * 100)
    corpus = Corpus.open(docs, cache_bytes=5_000)
    ctx = DocsContext(corpus)
    for _ in range(2):
        output, _ = call(ctx, "grep_docs", {"keyword": "filler"})
        assert output.startswith("(20 of 3000 matches shown; per doc: page00.md 100,")
        assert 0 < corpus.cached_bytes <= 5_000
