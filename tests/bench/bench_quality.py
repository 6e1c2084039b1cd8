"""Answer-quality bench: the offline model beside a plain BM25 ranking, on every question set.

Run it with `python tests/bench/bench_quality.py` (`make bench` does). For each development
set (tests/eval/*.jsonl and heldout/) and each fresh blind set (tests/eval/blind/, never
tuned on) it prints, per set: the offline model's evidence hits (in its first three
citations) beside BM25's top three sections, its declines of answerable and unanswerable
questions, and how often `search_docs`' first result is on a page that answers, for
today's code and, on the blind sets, for the code of `BASELINE` (extracted with `git
archive` and run in a subprocess on the same docs, in the same run).

Targets, each missed one failing the bench:
- offline hits >= BM25 top-3 hits, on every set;
- over the blind sets, pooled: answerable questions declined <= 2%, unanswerable ones
  declined >= 60%, and `search_docs`' first page right 10 points more often than at
  `BASELINE`.

A set whose docs are not here fails the bench, unless `--allow-missing`. The Debian docs
of the development sets are never installed unasked: `BENCH_INSTALL=1` lets
`tests/eval/fetch_docs.sh` install them; the blind sets' docs are downloaded from their
registries into the cache folder and unpacked there (nothing is installed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent import load_questions  # noqa: E402
from tests.bench.quality import SetScores, measure  # noqa: E402
from tests.eval.sets import (  # noqa: E402
    DEVELOPMENT_SETS,
    FRESH_SETS,
    SPENT_SETS,
    fetch_fresh,
    locate,
    question_file,
)

BASELINE = "d7733b5505aa447bb8809d0e3213acf0d542171c"
"""The code before the blind sets' rules (decline from evidence, pages as units, MDX, query
words): what `search_docs` did when the blind sets were written."""

MAX_FALSE_DECLINES = 0.02
MIN_DECLINED = 0.60
PAGE_GAIN = 0.10
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "docsagent-eval"


def baseline_page_first(questions: Path, docs: Path, work: Path) -> tuple[int, str]:
    """`search_docs`' first page right, with `BASELINE`'s code: (count, where it ran from)."""
    code = work / "baseline"
    if not code.exists():
        code.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", BASELINE, "agent"],
            capture_output=True,
        )
        if archive.returncode != 0:
            raise SystemExit(f"bench: cannot extract {BASELINE[:7]}: {archive.stderr.decode()}")
        archive_file = work / "baseline.tar"
        archive_file.write_bytes(archive.stdout)
        with tarfile.open(archive_file) as tar:
            tar.extractall(code, filter="data")
    cache = work / f"cache-{questions.stem}"
    env = {**os.environ, "PYTHONPATH": str(code)}
    script = ROOT / "tests" / "bench" / "page_first.py"
    done = subprocess.run(
        [sys.executable, str(script), str(questions), str(docs), str(cache)],
        capture_output=True,
        text=True,
        env=env,
        cwd=code,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench: the baseline's search failed: {done.stderr.strip()[-400:]}")
    report = json.loads(done.stdout)
    return sum(report["hits"]), report["agent"]


def rate(part: int, whole: int) -> str:
    return f"{part}/{whole} {part / whole:.0%}" if whole else "-"


def line(s: SetScores, kind: str, baseline: int | None = None) -> str:
    o = s.offline
    versus = "ok" if o.hits >= s.bm25_hits else "MISSED"
    page = rate(s.page_first, s.answerable)
    if baseline is not None:
        page += f" (baseline {rate(baseline, s.answerable)})"
    return (
        f"{s.name:<12}{kind:<6}{rate(o.hits, o.with_evidence):<12}"
        f"{rate(s.bm25_hits, s.answerable):<12}"
        f"{versus:<8}{rate(o.false_declines, o.with_evidence):<12}"
        f"{rate(o.declined, o.unanswerable):<12}{page}"
    )


def parse_options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", dest="sets", metavar="NAME")
    parser.add_argument("--allow-missing", action="store_true", help="a missing set is no failure")
    parser.add_argument("--blind-only", action="store_true", help="only the fresh blind sets")
    return parser.parse_args()


def find_docs(names: list[str]) -> dict[str, Path]:
    """The docs folder of each set found: Debian's (installed only with BENCH_INSTALL=1),
    the blind and spent sets' downloaded from their registries."""
    install = os.environ.get("BENCH_INSTALL") == "1"
    debian = tuple(n for n in names if n in DEVELOPMENT_SETS and n not in SPENT_SETS)
    found = locate(debian, install=install)
    for name in names:
        if name in FRESH_SETS + SPENT_SETS:
            fetched = fetch_fresh(name, CACHE / "fresh", download=True)
            if fetched is not None:
                found[name] = fetched
    return found


def measure_sets(
    names: list[str], found: dict[str, Path], work: Path
) -> tuple[bool, list[tuple[SetScores, int]]]:
    """Print each set's line as it is measured: whether the offline model met BM25 on every
    set, and the blind sets' scores with their baseline's page @1."""
    ok = True
    blind: list[tuple[SetScores, int]] = []
    for name in names:
        if name not in found:
            continue
        questions = load_questions(question_file(name))
        scores = measure(name, questions, found[name], cache=work / name)
        ok &= scores.offline.hits >= scores.bm25_hits
        if name in FRESH_SETS + SPENT_SETS:
            base, where = baseline_page_first(question_file(name), found[name], work)
            assert "baseline" in where, f"the baseline ran today's code ({where})"
            if name in FRESH_SETS:
                blind.append((scores, base))
            print(line(scores, "blind" if name in FRESH_SETS else "spent", base), flush=True)
        else:
            print(line(scores, "dev"), flush=True)
    return ok, blind


def blind_checks(blind: list[tuple[SetScores, int]]) -> list[tuple[str, bool]]:
    """The targets over the blind sets, pooled: each one's line and whether it is met."""
    answerable = sum(s.offline.with_evidence for s, _ in blind)
    false = sum(s.offline.false_declines for s, _ in blind)
    unanswerable = sum(s.offline.unanswerable for s, _ in blind)
    declined = sum(s.offline.declined for s, _ in blind)
    pages = sum(s.page_first for s, _ in blind)
    base = sum(b for _, b in blind)
    asked = sum(s.answerable for s, _ in blind)
    return [
        (
            f"answerable declined {rate(false, answerable)} (target <= {MAX_FALSE_DECLINES:.0%})",
            false <= MAX_FALSE_DECLINES * answerable,
        ),
        (
            f"unanswerable declined {rate(declined, unanswerable)} (target >= {MIN_DECLINED:.0%})",
            declined >= MIN_DECLINED * unanswerable,
        ),
        (
            f"search_docs page @1 {rate(pages, asked)} vs baseline {rate(base, asked)} "
            f"(target +{PAGE_GAIN:.0%})",
            pages >= base + PAGE_GAIN * asked,
        ),
    ]


def main() -> int:
    options = parse_options()
    development = () if options.blind_only else DEVELOPMENT_SETS
    names = [n for n in (*development, *FRESH_SETS) if not options.sets or n in options.sets]
    found = find_docs(names)
    print("quality bench: offline model vs BM25 top-3 sections; declines; search_docs' page @1")
    header = f"{'set':<12}{'kind':<6}{'offline':<12}{'BM25':<12}{'>=BM25':<8}"
    print(header + f"{'false decl.':<12}{'declined':<12}page @1")
    missing = [n for n in names if n not in found]
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        ok, blind = measure_sets(names, found, Path(scratch))
    for name in missing:
        how = "a registry download" if name in FRESH_SETS + SPENT_SETS else "BENCH_INSTALL=1"
        print(f"{name:<12}MISSING: its docs are not here ({how} gets them)")
    if blind:
        print(f"blind sets pooled ({', '.join(s.name for s, _ in blind)}):")
        for text, met in blind_checks(blind):
            print(f"  {text}: {'met' if met else 'MISSED'}")
            ok &= met
    print(f"({time.perf_counter() - began:.0f} s)")
    if missing and not options.allow_missing:
        print(f"MISSED: {len(missing)} set(s) not measured (--allow-missing to pass without them)")
        ok = False
    if len(missing) == len(names):
        print("MISSED: nothing measured")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
