"""Compaction on the eval question sets: the same answers with it and without?

Run it with `python tests/bench/bench_compaction_eval.py` (`make bench` does, after
bench_eval.py has installed the sets' docs). For each set in tests/eval/ whose docs are
found, every question is asked with the offline model three ways, and each way's
answers and citations (the range and `valid`, `read`, `quoted`) are compared with the
run without compaction:

- one question a run, default compaction: each run is short, so it rarely passes the
  threshold; the row says how many runs were shortened at all;
- one question a run, compaction forced (every result but the last step's stubbed
  before each request): every run with two steps or more is shortened;
- the whole set as one conversation, default compaction: each question follows the
  earlier ones, so the context passes the threshold and earlier results are stubbed.

The offline model decides from the calls it made, not from the text of their results,
so its answers should never change: this checks that compaction leaves the run, the
trace and the citation checks intact, not a hosted model's judgement.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent import (  # noqa: E402
    Agent,
    Config,
    ContextCompacted,
    DocsContext,
    EvalRun,
    Event,
    ModelReplied,
    Question,
    RunFinished,
    Session,
    build_model,
    docs_registry,
    find_citations,
    load_questions,
    open_docs,
    read_trace,
    run_questions,
)
from agent.compaction import Compaction  # noqa: E402
from tests.eval.sets import BENCH_SETS, locate, question_file  # noqa: E402

FORCED = Compaction(after_tokens=1, keep_steps=1)

Outcome = tuple[str, str | None, tuple[object, ...]]
"""A question's stop reason, answer and citations (everything compared)."""


@dataclass
class Way:
    """How one way of asking went: each question's outcome and what compaction did."""

    outcomes: list[Outcome]
    shortened_runs: int = 0
    stubs: int = 0
    tokens_saved: int = 0
    prompt_tokens: int = 0


def agent_for(docs: DocsContext, config: Config, compaction: Compaction | None) -> Agent:
    return Agent(
        build_model(config, docs=docs),
        docs_registry(),
        context=[docs],
        max_steps=config.max_steps,
        compaction=compaction,
        docs=str(config.docs),
    )


def tally(way: Way, events: Sequence[Event]) -> None:
    """Add one run's compaction events and prompt tokens to `way`."""
    compacted = [e for e in events if isinstance(e, ContextCompacted)]
    way.shortened_runs += bool(compacted)
    way.stubs += sum(len(e.stubs) for e in compacted)
    way.tokens_saved += sum(e.tokens_saved for e in compacted)
    way.prompt_tokens += sum(e.usage.prompt_tokens for e in events if isinstance(e, ModelReplied))


def one_by_one(
    questions: Sequence[Question],
    docs: DocsContext,
    config: Config,
    compaction: Compaction | None,
    traces: Path,
) -> Way:
    """Each question in its own run, as `docsagent eval` asks them."""
    run = EvalRun(lambda: agent_for(docs, config, compaction), docs.corpus, traces)
    way = Way([])
    for result in run_questions(questions, run):
        citations = tuple(sorted(map(repr, result.citations)))
        way.outcomes.append((result.stop_reason, result.answer, citations))
        if result.trace is not None:
            tally(way, read_trace(result.trace).events)
    return way


def conversation(
    questions: Sequence[Question],
    docs: DocsContext,
    config: Config,
    compaction: Compaction | None,
    traces: Path,
) -> Way:
    """Every question as a follow-up of the ones before it, in one session."""
    session = Session(agent_for(docs, config, compaction), trace_dir=traces)
    way = Way([])
    for question in questions:
        events = list(session.ask(question.question))
        final = events[-1]
        assert isinstance(final, RunFinished)
        citations = find_citations(final.answer or "", docs.corpus, events)
        way.outcomes.append((final.stop_reason, final.answer, tuple(sorted(map(repr, citations)))))
        tally(way, events)
    return way


def same(a: Way, b: Way) -> int:
    return sum(x == y for x, y in zip(a.outcomes, b.outcomes, strict=True))


def row(name: str, way: Way, without: Way) -> str:
    n = len(way.outcomes)
    alike = same(way, without)
    share = without.prompt_tokens and way.prompt_tokens / without.prompt_tokens
    return (
        f"  {name:<26} same {alike}/{n} ({alike / max(n, 1):.0%}) · runs shortened "
        f"{way.shortened_runs}/{n} · {way.stubs} stubs, ≈{way.tokens_saved:,} tok saved · "
        f"prompt tokens {share:.0%} of without"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--install", action="store_true", help="apt-get install missing docs")
    parser.add_argument(
        "--allow-missing", action="store_true", help="pass when every set's docs are missing"
    )
    parser.add_argument("--sets", nargs="+", default=BENCH_SETS, help="the question sets")
    options = parser.parse_args(argv)
    sets = tuple(options.sets)
    install = options.install or os.environ.get("BENCH_INSTALL") == "1"
    found = locate(sets, install=install)  # system packages only when asked
    print("compaction on the eval sets (offline model): answers and citations vs without")
    total = alike = 0
    for name in sets:
        if name not in found:
            print(f"{name}: skipped: docs not found (BENCH_INSTALL=1 installs them)")
            continue
        questions = load_questions(question_file(name))
        config = Config(docs=found[name], model="offline")
        docs = open_docs(config)
        began = time.perf_counter()
        with tempfile.TemporaryDirectory() as folder:
            traces = Path(folder)
            without = one_by_one(questions, docs, config, None, traces)
            default = one_by_one(questions, docs, config, Compaction(), traces)
            forced = one_by_one(questions, docs, config, FORCED, traces)
            talk_without = conversation(questions, docs, config, None, traces)
            talk = conversation(questions, docs, config, Compaction(), traces)
        seconds = time.perf_counter() - began
        print(f"{name}: {len(questions)} questions ({seconds:.1f} s)")
        print(row("one run each, default", default, without))
        print(row("one run each, forced", forced, without))
        print(row("one conversation, default", talk, talk_without))
        for way, base in ((default, without), (forced, without), (talk, talk_without)):
            total += len(way.outcomes)
            alike += same(way, base)
    if not total:
        verdict = "passes (--allow-missing)" if options.allow_missing else "FAILED"
        print(f"all: nothing measured, every set was skipped: {verdict}")
        return 0 if options.allow_missing else 1
    print(f"all: same answers and citations in {alike}/{total} runs ({alike / total:.0%})")
    return 0 if alike == total else 1


if __name__ == "__main__":
    raise SystemExit(main())
