"""The answer-quality measures, run in process: the offline model's eval scores, the BM25
baseline's, and `search_docs`' page at rank 1.

Shared by `bench_eval.py` and `bench_search_rank.py`. In process, one question set takes
seconds where `docsagent eval` as a command takes as long again to start and write JSON;
the scores are the same (`EvalRun` is what the command runs).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from agent import (
    Config,
    Corpus,
    DocsIndex,
    EvalRun,
    Question,
    QuestionResult,
    Summary,
    build_agent,
    run_questions,
    summarise,
)
from tests.bench.bm25 import BM25


@dataclass(frozen=True)
class SetScores:
    """One question set's scores, the offline model's beside the baseline's."""

    name: str
    results: list[QuestionResult]
    offline: Summary
    bm25_hits: int
    """Answerable questions whose evidence BM25's top three sections overlap."""
    answerable: int
    page_first: int
    """Answerable questions whose first `search_docs` result is on an evidence page."""

    @property
    def false_declines(self) -> int:
        return self.offline.false_declines


def offline_results(questions: list[Question], docs: Path, cache: Path) -> list[QuestionResult]:
    """Each question asked of the offline model as `docsagent eval` asks it."""
    config = Config(docs=docs, model="offline", trace_dir=cache / "traces", cache_dir=cache)
    run = EvalRun(lambda: build_agent(config), Corpus.open(docs), cache / "traces")
    return run_questions(questions, run)


def bm25_hits(questions: list[Question], docs: Path) -> int:
    """Answerable questions one of BM25's top three sections answers."""
    index = BM25(Corpus.open(docs))
    return sum(
        any(e.overlaps(p, a, b) for p, a, b in index.top(q.question) for e in q.evidence)
        for q in questions
        if q.answerable
    )


def page_first(questions: list[Question], docs: Path, cache: Path) -> int:
    """Answerable questions whose best `search_docs` section lies in an evidence file."""
    index = DocsIndex(Corpus.open(docs), cache_dir=cache)
    found = 0
    for q in questions:
        if q.answerable:
            hits = index.search(q.question, limit=1)
            found += bool(hits) and any(e.path == hits[0].path for e in q.evidence)
    index.close()
    return found


def measure(
    name: str, questions: list[Question], docs: Path, cache: Path | None = None
) -> SetScores:
    """Every measure of one set over `docs`."""
    with tempfile.TemporaryDirectory() as folder:
        where = cache or Path(folder)
        results = offline_results(questions, docs, where)
        return SetScores(
            name=name,
            results=results,
            offline=summarise(results),
            bm25_hits=bm25_hits(questions, docs),
            answerable=sum(1 for q in questions if q.answerable),
            page_first=page_first(questions, docs, where),
        )
