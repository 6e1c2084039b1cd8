"""Eval benchmark: `docsagent eval` with the offline model beside a BM25 top-3 baseline.

Run it with `python tests/bench/bench_eval.py` (`make bench` does). For each question set
in tests/eval/ (not the held-out ones) it finds the docs (tests/eval/fetch_docs.sh
installs missing Debian packages), runs `docsagent eval --model offline --json`, ranks
the same questions with tests/bench/bm25.py, and prints per set: evidence hits (in the first
three citations), first-citation hits (BM25's top section), wording agreement and
unanswerables declined, for both. Then the time of an offline `ask` on the
httpx docs with a warm index: in process, and as a command split into its start-up
(`docsagent ask --help`) and the rest. `--heldout` runs the held-out sets instead: once,
at the very end; `--blind` every set written blind (the held-out ones, postgres and
sphinx); `--set NAME` (repeatable) runs only the sets named. Over the blind sets a run
measures, pooled, it prints the offline model's decline targets and fails when one is
missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent import (  # noqa: E402
    Citation,
    Config,
    Corpus,
    Question,
    Session,
    Summary,
    Totals,
    build_agent,
    load_questions,
    score,
    summarise,
)
from tests.bench.answer_checks import AnswerChecks, check_answers  # noqa: E402
from tests.bench.bm25 import BM25  # noqa: E402
from tests.eval.sets import FIRST_HITS, chosen, drift, locate, question_file  # noqa: E402

DOCSAGENT = Path(sys.executable).parent / "docsagent"
TIMED_QUESTION = "What kinds of timeouts does httpx have?"
ASK_AFTER_STARTUP_S = 0.150  # an offline ask, once the command has started: a warm index


def offline_eval(questions: Path, docs: Path, traces: Path) -> dict[str, object]:
    """`docsagent eval --json` with the offline model, as a user would run it."""
    command = [str(DOCSAGENT), "eval", str(questions), "--docs", str(docs), "--model", "offline"]
    done = subprocess.run(
        [*command, "--json", "--trace-dir", str(traces)], capture_output=True, text=True
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"docsagent eval failed ({done.returncode}): {done.stderr.strip()}")
    report: dict[str, object] = json.loads(done.stdout)
    return report


READABLE = 60
"""Lines a citation holds at most to be read whole with one `read_doc` call, as the
index's sections are (`agent.search.sections.MAX_LINES`)."""


def baseline(questions: list[Question], docs: Path) -> tuple[Summary, float, int]:
    """BM25's top three sections as the citations of an answer (none: a decline); the
    seconds its index took; and how many questions one of those sections answers that
    is `READABLE` (BM25's whole sections may run to hundreds of lines, which overlap the
    evidence more easily than the offline model's parts of at most 60 can)."""
    corpus = Corpus.open(docs)
    began = time.perf_counter()
    index = BM25(corpus)
    built = time.perf_counter() - began
    results = []
    readable = 0
    for question in questions:
        top = index.top(question.question)
        readable += any(
            end - start < READABLE and any(e.overlaps(path, start, end) for e in question.evidence)
            for path, start, end in top
        )
        citations = [Citation(path, start, end, True) for path, start, end in top]
        answer = ", ".join(f"{p}:{a}-{b}" for p, a, b in top) or None
        searched = Totals(tool_calls=1)  # it searched: an answer that read, not one that did not
        finished = searched.finish("answered", elapsed_s=0.0, answer=answer or "nothing found")
        results.append(score(question, finished, citations))
    return summarise(results), built, readable


COUNTS: tuple[str, ...] = ("hits", "first_hits", "with_evidence", "groups_agreeing", "groups")
COUNTS += ("declined", "unanswerable")
PAIRS: tuple[tuple[str, str], ...] = (("hits", "with_evidence"), ("first_hits", "with_evidence"))
PAIRS += (("groups_agreeing", "groups"), ("declined", "unanswerable"))
"""The table's columns on each side: hits (in the first three citations), first-citation
hits (BM25's top section), wordings agreeing, unanswerables declined."""
WIDTH = 12


def counts(summary: Summary) -> dict[str, int]:
    """The counts the table shows, named as in `docsagent eval --json`."""
    return {name: getattr(summary, name) for name in COUNTS}


def rate(part: int, whole: int, width: int = WIDTH) -> str:
    return (f"{part}/{whole} {part / whole:.0%}" if whole else "-").ljust(width)


def row(name: str, n: int, ours: dict[str, int], theirs: dict[str, int]) -> str:
    def side(c: dict[str, int]) -> str:
        return "".join(rate(c[a], c[b]) for a, b in PAIRS)

    return f"{name:<8}{n:>4}  {side(ours)}| {side(theirs)}".rstrip()


SIDE = "".join(name.ljust(WIDTH) for name in ("hits", "first", "agree", "declined"))
HEADER = f"{'set':<8}{'n':>4}  {SIDE}| {SIDE}".rstrip()


@dataclass(frozen=True)
class AskTiming:
    """Median seconds of an offline `ask` with a warm index, in process and as a command."""

    inside: float
    command: float
    startup: float
    """`docsagent ask --help`: the interpreter, the CLI's imports and its option parsing.

    Not `--version`, which reads the package's metadata (tens of ms) that `ask` never reads.
    """

    @property
    def after_startup(self) -> float:
        return self.command - self.startup


def ask_timing(docs: Path, runs: int = 5) -> AskTiming:
    """An offline `ask` on `docs`, its index built once beforehand (as a user's cache holds it).

    The commands run with their bytecode cached (in a folder of their own), as an installed
    docsagent has it, whatever PYTHONDONTWRITEBYTECODE says here.
    """
    with tempfile.TemporaryDirectory() as folder:
        traces, cache = Path(folder) / "traces", Path(folder) / "cache"
        config = Config(docs=docs, model="offline", trace_dir=traces, cache_dir=cache)

        def ask() -> float:
            began = time.perf_counter()
            for _ in Session(build_agent(config), trace_dir=traces).ask(TIMED_QUESTION):
                pass
            return time.perf_counter() - began

        ask()  # builds the index file, which the commands below open warm
        inside = statistics.median(ask() for _ in range(runs))
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env |= {"DOCSAGENT_CACHE_DIR": str(cache), "PYTHONPYCACHEPREFIX": f"{folder}/pyc"}
        ask_command = [str(DOCSAGENT), "ask", TIMED_QUESTION, "--docs", str(docs)]
        ask_command += ["--model", "offline", "--trace-dir", str(traces)]
        commands = {"ask": ask_command, "ask --help": [str(DOCSAGENT), "ask", "--help"]}
        walls = command_seconds(commands, env, runs)
    return AskTiming(inside, walls["ask"], walls["ask --help"])


def command_seconds(
    commands: dict[str, list[str]], env: dict[str, str], runs: int
) -> dict[str, float]:
    """Median wall seconds of each command, run in turn (after a round that warms caches)."""
    walls: dict[str, list[float]] = {name: [] for name in commands}
    for round_ in range(runs + 1):
        for name, command in commands.items():
            began = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, env=env)
            if done.returncode != 0:
                raise SystemExit(f"docsagent {name} failed: {done.stderr.strip()[-300:]}")
            if round_:
                walls[name].append(time.perf_counter() - began)
    return {name: statistics.median(seconds) for name, seconds in walls.items()}


MAX_FALSE_DECLINES = 0.05
"""Answerable questions of the blind sets the offline model may decline, at most."""
MIN_DECLINED = 0.6
"""Unanswerable questions of the blind sets it must decline, at least."""


def decline_targets(totals: list[tuple[str, dict[str, int]]]) -> tuple[str, bool]:
    """The offline model's decline targets over the blind sets (`FIRST_HITS`) of a run,
    pooled: the line that prints them, and whether they are met. Its hits must not fall
    below those of the sets' first runs."""
    blind = [(name, s) for name, s in totals if name in FIRST_HITS]
    if not blind:
        return "", True
    answerable = sum(s["with_evidence"] for _, s in blind)
    false = sum(s["false_declines"] for _, s in blind)
    unanswerable = sum(s["unanswerable"] for _, s in blind)
    declined = sum(s["declined"] for _, s in blind)
    hits = sum(s["hits"] for _, s in blind)
    floor = sum(FIRST_HITS[name] for name, _ in blind)
    met = (
        false <= MAX_FALSE_DECLINES * answerable
        and declined >= MIN_DECLINED * unanswerable
        and hits >= floor
    )
    line = (
        f"decline targets, blind sets pooled ({' '.join(name for name, _ in blind)}): "
        f"false declines {rate(false, answerable).strip()} (target <= {MAX_FALSE_DECLINES:.0%}), "
        f"unanswerables declined {rate(declined, unanswerable).strip()} "
        f"(target >= {MIN_DECLINED:.0%}), hits {hits}/{answerable} (target >= {floor}, "
        f"their first runs): {'met' if met else 'MISSED'}"
    )
    return line, met


SetResult = tuple[str, dict[str, Any], Summary, float, Path, int]
"""One measured set: its name, the offline report's summary, BM25's summary, the seconds
BM25's index took, the docs, and BM25's hits by a `READABLE` section."""


def parse_options() -> tuple[argparse.Namespace, tuple[str, ...]]:
    """The command line's options, and the sets they choose."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heldout", action="store_true", help="run the held-out sets (once)")
    parser.add_argument("--allow-missing", action="store_true", help="missing sets pass")
    parser.add_argument(
        "--no-install", action="store_true", help="do not apt-get install docs (the default)"
    )
    parser.add_argument(
        "--set",
        action="append",
        dest="sets",
        metavar="NAME",
        help="run only this set (repeatable; a held-out set needs --heldout)",
    )
    parser.add_argument(
        "--blind",
        action="store_true",
        help="run every set written blind: the held-out sets (once), postgres and sphinx",
    )
    options = parser.parse_args()
    try:
        names = chosen(options.sets, heldout=options.heldout, blind=options.blind)
    except ValueError as exc:
        parser.error(str(exc))
    return options, names


def print_header(options: argparse.Namespace) -> None:
    title = "HELD-OUT sets (run once, at the end)" if options.heldout else "question sets"
    title = "BLIND sets (held-out ones run once, at the end)" if options.blind else title
    print(f"eval bench: {title}: offline model (docsagent eval) vs BM25 top-3 sections")
    top = "BM25 top-3 (first: its top section; declines only when no word matches)"
    print(f"{'':<14}{'offline model':<{len(SIDE)}}| {top}")
    print(HEADER)


def run_sets(
    names: tuple[str, ...], found: dict[str, Path]
) -> tuple[list[SetResult], list[str], list[AnswerChecks]]:
    """Each set's table row, printed as it is measured: the sets measured, those whose docs
    are missing, and the checks of the offline model's answers."""
    totals: list[SetResult] = []
    missing: list[str] = []
    answers: list[AnswerChecks] = []
    with tempfile.TemporaryDirectory() as traces:
        for name in names:
            if name not in found:
                print(f"{name:<8} MISSING: docs not found (BENCH_INSTALL=1 installs them)")
                missing.append(name)
                continue
            questions = load_questions(question_file(name))
            problems = drift(questions, found[name])
            if problems:
                print(f"{name:<8} skipped: the evidence does not fit these docs: {problems[0]}")
                continue
            report = offline_eval(question_file(name), found[name], Path(traces))
            answers.append(check_answers(name, report, found[name]))
            summary = report["summary"]
            assert isinstance(summary, dict)
            bm25, built, readable = baseline(questions, found[name])
            print(row(name, summary["questions"], summary, counts(bm25)))
            totals.append((name, summary, bm25, built, found[name], readable))
    return totals, missing, answers


def print_totals(totals: list[SetResult]) -> None:
    """The table's `all` row, then a line of timings and details per set."""
    if len(totals) > 1:
        n = sum(summary["questions"] for _, summary, *_ in totals)
        ours = {k: sum(summary[k] for _, summary, *_ in totals) for k in COUNTS}
        theirs = {k: sum(counts(bm25)[k] for _, _, bm25, *_ in totals) for k in COUNTS}
        print(row("all", n, ours, theirs))
    print()
    for name, summary, bm25, built, docs, readable in totals:
        per = summary["seconds"] / max(1, summary["questions"])
        terms = rate(summary["terms_found"], summary["terms"]).strip()
        print(
            f"{name}: {docs} · offline: {per:.2f} s a question, terms found {terms}, "
            f"false declines {summary['false_declines']} · BM25 index built in {built:.2f} s, "
            f"hits by a section of at most {READABLE} lines {readable}/{bm25.with_evidence}"
        )
    met = [
        name
        for name, summary, bm25, *_ in totals
        if (summary["hit_rate"] or 0) >= 0.9
        and (summary["agreement"] or 0) >= 0.9
        and summary["declined"] == summary["unanswerable"]
        and summary["hits"] >= bm25.hits
    ]
    print(f"(not a target) sets at >= 90% hits and agreement, all declined, >= BM25: {met}")


def print_ask_timing(httpx: Path) -> bool:
    """Time an offline `ask` on the httpx docs and print it; whether it met its target."""
    timing = ask_timing(httpx)
    quick = timing.after_startup < ASK_AFTER_STARTUP_S
    print(
        f"offline ask on httpx, warm index (medians of 5): {timing.inside * 1000:.0f} ms "
        f"in process; as a command {timing.command * 1000:.0f} ms = start-up "
        f"{timing.startup * 1000:.0f} ms (ask --help) + "
        f"{timing.after_startup * 1000:.0f} ms after start-up "
        f"(target < {ASK_AFTER_STARTUP_S * 1000:.0f} ms){'' if quick else ' MISSED'}"
    )
    return quick


def main() -> int:
    options, names = parse_options()
    install = os.environ.get("BENCH_INSTALL") == "1" and not options.no_install
    found = locate(names, install=install)  # system packages only when asked
    print_header(options)
    totals, missing, answers = run_sets(names, found)
    print_totals(totals)
    declines, declines_met = decline_targets([(name, s) for name, s, *_ in totals])
    if declines:
        print(declines)
    httpx = found.get("httpx") or locate(("httpx",), install=False).get("httpx")
    quick = True
    if httpx is not None and not (options.heldout or options.blind):
        quick = print_ask_timing(httpx)
    print()
    for checked in answers:
        print(checked.line())
    measured = bool(totals) and (not missing or options.allow_missing)
    if not measured:
        print(f"MISSED: sets not measured: {' '.join(missing) or 'all'} (--allow-missing)")
    passed = quick and declines_met and all(checked.met for checked in answers)
    return 0 if passed and measured else 1


if __name__ == "__main__":
    raise SystemExit(main())
