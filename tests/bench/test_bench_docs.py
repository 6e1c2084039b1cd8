"""Docs folder benchmarks: `make bench`. Each compares with ripgrep, measured in one run.

- the first grep_docs over 10,000 docs (about 101 MB), in a fresh process on files in the
  page cache, against rg's own first run (a fresh process too, on the same cached files):
  at most 3x. rg on one thread and a bare Python loop doing the same reads are printed
  for scale: rg searches on every core, so its time, and the ratio, move with how busy
  the machine is; the first grep_docs and list_docs over half the folder and over all of
  it: linear (doubling the folder at most 2.5x the time);
- grep_docs warm, for keywords with a few to hundreds of thousands of matches: at most
  1.5x `rg -i -F -c` on the same folder all told, on the httpx docs and on a synthetic
  vocabulary whose letters are common where English's are rare (the keyword's rarest byte
  is counted, not looked up), holding the cache's bytes (about the folder's size) plus a
  small search overhead;
- the scan for docs: at most 2x `rg --files`;
- a 50 MB doc of `e` lines searched for `e`: every match counted, memory a small multiple
  of the doc, a few seconds at most.

Timings interleave the two sides and keep the best of several runs, so that a busy
machine slows both alike. ripgrep is installed from Debian if it is missing and we may.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
from tests.bench.system import command

HTTPX_DOCS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "httpx-docs"
FILES = 10_000
DOC_BYTES = 10_100  # 10,000 docs of about 10 KB: 101 MB
KEYWORDS = ["timeout", "proxy", "client", "kubernetes"]
FOREIGN_LETTERS = "zqjxkvbpygfwmucldrhsnioate"  # English's order of frequency, reversed
FOREIGN_KEYWORDS = ["zq", "zqxq", "jqkjqwp", "zzjqzqzq"]  # the last in no doc
FIRST = """
import sys, time
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
tool, args = sys.argv[2], sys.argv[3]
registry = docs_registry()
started = time.perf_counter()
outcome = registry.call(tool, args, [DocsContext(Corpus.open(sys.argv[1]))])
print(time.perf_counter() - started)
assert not outcome.error
"""
"""A first call in a fresh process: the folder opened, then the tool called (imports apart)."""
BARE = """
import os, sys, time
started = time.perf_counter()
kept, needle = [], b"warm up"
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        path = os.path.join(folder, name)
        os.lstat(path)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        size = os.fstat(fd).st_size
        try:
            os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # no /proc
            pass
        folded = os.read(fd, size + 1).lower()
        os.close(fd)
        kept.append(folded)
        needle in folded
print(time.perf_counter() - started)
"""
"""What any Python program does for a first search, with nothing else: the folder walked,
each file checked and read as the sandbox reads it, lower-cased, searched and kept. Shown
beside the target, not held to it: it tells how much of the ratio is docsagent's."""


def ripgrep() -> str:
    """The `rg` command (installed from Debian only with BENCH_INSTALL=1); else skip."""
    return command(("rg",), "ripgrep")


@pytest.fixture(scope="module")
def big_docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """10,000 docs cut from the httpx docs, spread over 1,000 folders."""
    if not HTTPX_DOCS.is_dir():
        pytest.skip("../shared/corpora/httpx-docs is absent")
    text = "\n".join(p.read_text() for p in sorted(HTTPX_DOCS.rglob("*.md")))
    root = tmp_path_factory.mktemp("big-docs")
    for n in range(FILES):
        folder = root / f"d{n % 100:02d}" / f"s{n // 100 % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        start = n * 7919 % (len(text) - DOC_BYTES)
        (folder / f"doc{n}.md").write_text(f"# Doc {n}\n" + text[start : start + DOC_BYTES])
    return root


@pytest.fixture(scope="module")
def half_docs(big_docs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first half of the big docs' folders, linked (not copied) to a folder of their own."""
    root = tmp_path_factory.mktemp("half-docs")
    for doc in big_docs.rglob("*.md"):
        if int(doc.parts[-3][1:]) < 50:
            place = root / doc.relative_to(big_docs)
            place.parent.mkdir(parents=True, exist_ok=True)
            os.link(doc, place)
    return root


@pytest.fixture(scope="module")
def foreign_docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """10,000 docs of about 10 KB in a made-up language whose common letters are z, q, j."""
    rng = random.Random(7)
    weights = [1.0 / (i + 1) for i in range(len(FOREIGN_LETTERS))]
    words = [
        "".join(rng.choices(FOREIGN_LETTERS, weights, k=rng.randint(3, 9))) for _ in range(4000)
    ]
    root = tmp_path_factory.mktemp("foreign-docs")
    for n in range(FILES):
        folder = root / f"d{n % 100:02d}" / f"s{n // 100 % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        lines, size = [f"# Doc {n}"], 0
        while size < DOC_BYTES:
            lines.append(" ".join(rng.choices(words, k=rng.randint(4, 14))))
            size += len(lines[-1]) + 1
        (folder / f"doc{n}.md").write_text("\n".join(lines) + "\n")
    return root


def first_call(root: Path, tool: str, args: dict[str, str]) -> Callable[[], float]:
    """A tool's first call on `root` in a fresh process: its own time, imports apart."""
    return first_call_of([sys.executable, "-c", FIRST, str(root), tool, json.dumps(args)])


def first_call_of(command: list[str]) -> Callable[[], float]:
    """A fresh process that prints the seconds its own work took (start-up apart)."""

    def run() -> float:
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        return float(done.stdout)

    return run


def wall(command: list[str]) -> Callable[[], float]:
    """A command's whole run, as its wall time."""

    def run() -> float:
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=False)  # rg: 1 when no match
        return time.perf_counter() - started

    return run


def best_of(runs: int, *sides: Callable[[], float]) -> list[float]:
    """The best time each side reports over `runs` rounds, the sides taking turns."""
    best = [float("inf")] * len(sides)
    for _ in range(runs):
        for i, side in enumerate(sides):
            best[i] = min(best[i], side())
    return best


def interleaved(runs: int, *sides: Callable[[], object]) -> list[float]:
    """The best time of each side over `runs` rounds, the sides taking turns."""
    best = [float("inf")] * len(sides)
    for _ in range(runs):
        for i, side in enumerate(sides):
            started = time.perf_counter()
            side()
            best[i] = min(best[i], time.perf_counter() - started)
    return best


def test_first_grep_is_within_three_times_ripgreps_first_run(big_docs: Path) -> None:
    rg = ripgrep()
    keyword = {"keyword": "warm up"}
    command = [rg, "--no-config", "-i", "-F", "-c", keyword["keyword"], str(big_docs)]
    bare = [sys.executable, "-c", BARE, str(big_docs)]
    ours, theirs, one_thread, floor = best_of(
        3,
        first_call(big_docs, "grep_docs", keyword),
        wall(command),
        wall([rg, "-j1", *command[1:]]),
        first_call_of(bare),
    )
    ratio = ours / theirs
    print(
        f"\nfirst grep_docs over {FILES:,} docs in a fresh process: {ours * 1000:.0f} ms vs "
        f"rg's first run {theirs * 1000:.0f} ms: {ratio:.2f}x (target 3x). For scale: rg on "
        f"one thread {one_thread * 1000:.0f} ms; a bare Python loop that reads, lower-cases, "
        f"searches and keeps the same files {floor * 1000:.0f} ms ({floor / theirs:.2f}x rg)"
    )
    assert ratio <= 3, f"the first grep_docs is {ratio:.2f}x rg's first run; the target is 3x"


def test_first_grep_and_list_docs_are_linear_in_the_folder(big_docs: Path, half_docs: Path) -> None:
    report, ratios = [], []
    for tool, args in [("grep_docs", {"keyword": "warm up"}), ("list_docs", {})]:
        half, whole = best_of(
            3, first_call(half_docs, tool, args), first_call(big_docs, tool, args)
        )
        ratios.append(whole / half)
        report.append(f"{tool} {half * 1000:.0f} -> {whole * 1000:.0f} ms ({whole / half:.2f}x)")
    print(f"\nfirst calls, {FILES // 2:,} docs then {FILES:,}: {'; '.join(report)} (target 2.5x)")
    assert max(ratios) <= 2.5, f"doubling the folder costs a first call {max(ratios):.2f}x"


@pytest.mark.parametrize("language", ["english", "foreign"])
def test_grep_is_within_one_and_a_half_ripgrep_warm(
    language: str, big_docs: Path, foreign_docs: Path
) -> None:
    rg = ripgrep()
    registry = docs_registry()
    folder, keywords = (
        (big_docs, KEYWORDS) if language == "english" else (foreign_docs, FOREIGN_KEYWORDS)
    )
    corpus = Corpus.open(folder)
    context = [DocsContext(corpus)]

    def grep(keyword: str) -> Callable[[], None]:
        args = json.dumps({"keyword": keyword})

        def run() -> None:
            assert not registry.call("grep_docs", args, context).error

        return run

    def ripgrep_run(keyword: str) -> Callable[[], None]:
        command = [rg, "--no-config", "-i", "-F", "-c", keyword, str(folder)]

        def run() -> None:
            subprocess.run(command, stdout=subprocess.DEVNULL, check=False)  # 1: no match

        return run

    grep("warm up")()
    ours_total = theirs_total = 0.0
    report = []
    for keyword in keywords:  # from few matches to hundreds of thousands
        ours, theirs = interleaved(7, grep(keyword), ripgrep_run(keyword))
        ours_total, theirs_total = ours_total + ours, theirs_total + theirs
        report.append(f"{keyword!r} {ours * 1000:.0f} vs {theirs * 1000:.0f} ms")
    tracemalloc.start()
    grep(keywords[0])()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    size = sum(f.stat().st_size for f in folder.rglob("*.md"))
    held = corpus.cached_bytes
    ratio = ours_total / theirs_total
    print(
        f"\ngrep_docs over {FILES:,} {language} docs ({size / 1e6:.0f} MB), warm, vs rg -i -F -c: "
        f"{'; '.join(report)}; all told {ratio:.2f}x (target 1.5x). Cache {held / 1e6:.0f} MB "
        f"(cap {corpus.cache_bytes / 1e6:.0f} MB); a warm search allocates {peak / 1e6:.1f} MB"
    )
    assert ratio <= 1.5, f"grep_docs is {ratio:.2f}x ripgrep warm; the target is 1.5x"
    assert held <= corpus.cache_bytes and held <= 1.05 * size
    assert peak < 16e6


def test_scan_is_within_twice_ripgrep_files(big_docs: Path) -> None:
    rg = ripgrep()

    def scan() -> None:
        assert len(Corpus(big_docs).paths()) == FILES

    def ripgrep_files() -> None:
        subprocess.run([rg, "--no-config", "--files", str(big_docs)], stdout=subprocess.DEVNULL)

    ours, theirs = interleaved(7, scan, ripgrep_files)
    print(
        f"\nscan of {FILES:,} docs: {ours * 1000:.1f} ms vs rg --files {theirs * 1000:.1f} ms: "
        f"{ours / theirs:.2f}x (target 2x)"
    )
    assert ours / theirs <= 2


def test_a_doc_of_fifty_megabytes_of_matches_stays_bounded(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "e.md").write_bytes(b"e\n" * 25_000_000)
    context = [DocsContext(Corpus.open(docs))]
    registry = docs_registry()
    tracemalloc.start()
    started = time.perf_counter()
    output = registry.call("grep_docs", '{"keyword": "e"}', context).output
    cold = time.perf_counter() - started
    _, peak_cold = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    held, _ = tracemalloc.get_traced_memory()
    started = time.perf_counter()
    registry.call("grep_docs", '{"keyword": "e"}', context)
    warm = time.perf_counter() - started
    _, peak_warm = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"\n50 MB of 'e' lines: first search {cold:.1f} s, peak {peak_cold / 1e6:.0f} MB; "
        f"again {warm:.1f} s, peak {(peak_warm - held) / 1e6:.0f} MB beyond what was held"
    )
    assert output.startswith("(20 of 25000000 matches shown;")
    assert peak_cold < 5 * 50e6 and warm < 10
