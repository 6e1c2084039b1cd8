from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from agent import (
    Citation,
    Evidence,
    Question,
    QuestionResult,
    RunFinished,
    StopReason,
    Totals,
    Usage,
    score,
    summarise,
)
from tui.commands.eval_report import eval_json, percent, results_table, summary_lines

EVIDENCE = (Evidence("advanced/timeouts.md", 41, 61),)
ASKED = Question(
    question="What timeouts are there?",
    id="timeouts-asked",
    line=1,
    base="timeouts",
    wording="asked",
    evidence=EVIDENCE,
    must_mention=("connect", "pool"),
)
TERSE = Question(
    question="timeouts",
    id="timeouts-terse",
    line=2,
    base="timeouts",
    wording="terse",
    evidence=EVIDENCE,
    must_mention=("connect", "pool"),
)
BREAD = Question(question="How do I bake bread?", id="bread", line=3, answerable=False)


def finished(answer: str | None, stop: StopReason = "answered", tokens: int = 1200) -> RunFinished:
    usage = Usage(tokens - 200, 200, estimated=True)
    return Totals(steps=3, tool_calls=4, usage=usage).finish(stop, elapsed_s=0.25, answer=answer)


def results() -> list[QuestionResult]:
    cited = [
        Citation("advanced/timeouts.md", 45, 61, True, read=True, quoted=True),
        Citation("api.md", 1, 2, True),
    ]
    return [
        score(ASKED, finished("connect and pool"), cited, trace=Path("t/001.jsonl")),
        score(TERSE, finished("Not covered."), []),
        score(BREAD, finished(None, "max_steps", tokens=15000), []),
    ]


def test_the_table_has_a_row_per_question() -> None:
    out = io.StringIO()
    Console(file=out, width=100).print(results_table(results()))
    assert out.getvalue().splitlines() == [
        "question        result         cites                          terms  steps   tokens     s",
        "timeouts-asked  hit            advanced/timeouts.md:45-61 +1    2/2      3   ≈1,200  0.25",
        "timeouts-terse  false decline  -                                0/2      3   ≈1,200  0.25",
        "bread           no answer      -                                         3  ≈15,000  0.25",
    ]


def test_the_summary_gives_the_scores_then_the_counts() -> None:
    assert summary_lines(summarise(results()), Path("traces/eval-x")) == [
        "evidence hits 1/2 (50%), first citation 1/2 (50%) · terms found 2/4 (50%) · "
        "unanswerables declined 0/1 (0%) · wordings agree 0/1 (0%)",
        "3 questions · 1 false decline · 1 without an answer · 3.0 steps, ≈5,800 tokens and "
        "0.25 s a question · traces: traces/eval-x",
    ]
    assert percent(0, 0) == "-"
    assert summary_lines(summarise([score(BREAD, finished("No."), [])]))[0] == (
        "evidence hits - · terms found - · unanswerables declined 1/1 (100%) · wordings agree -"
    )
    assert percent(2, 3) == "2/3 (67%)"


def test_a_hit_by_a_later_citation_than_the_first_says_which_and_counts_apart() -> None:
    later = [
        Citation("api.md", 1, 2, True),
        Citation("index.md", 5, 9, True),
        Citation("advanced/timeouts.md", 41, 50, True),
    ]
    rows = [
        score(ASKED, finished("connect and pool"), later[1:]),
        score(TERSE, finished("connect and pool"), later),
    ]
    out = io.StringIO()
    Console(file=out, width=80).print(results_table(rows))
    assert [line.split()[:3] for line in out.getvalue().splitlines()[1:]] == [
        ["timeouts-asked", "hit", "(2nd)"],
        ["timeouts-terse", "hit", "(3rd)"],
    ]
    summary = summarise([*rows, *results()])
    assert (summary.hits, summary.first_hits, summary.with_evidence) == (3, 1, 4)
    assert summary_lines(summary)[0].startswith(
        "evidence hits 3/4 (75%), first citation 1/4 (25%) · "
    )
    report = eval_json(
        rows,
        summarise(rows),
        questions=Path("q.jsonl"),
        docs=Path("docs"),
        model="offline",
        traces=Path("traces/eval-x"),
    )
    assert [(r["outcome"], r["hit"], r["first_hit"]) for r in report["results"]] == [
        ("hit", True, False),
        ("hit", True, False),
    ]
    assert (report["summary"]["first_hits"], report["summary"]["first_hit_rate"]) == (0, 0.0)


def test_the_table_keeps_every_column_in_80_columns() -> None:
    page = "reference/a-long-page-name.md"
    evidence = (Evidence(page, 1, 90),)
    long = Question(question="q", id="a-question-id-long-enough-to-be-cut", evidence=evidence)
    cited = [Citation("reference/another-long-page-name.md", 100, 120, True)]
    cited.append(Citation(page, 12, 18, True))
    rows = [score(long, finished("text"), cited), score(TERSE, finished("Not covered."), [])]
    out = io.StringIO()
    Console(file=out, width=80).print(results_table(rows))
    assert out.getvalue().splitlines() == [
        "question           result         cites              terms  steps   tokens     s",
        "a-question-id-lo…  hit (2nd)      reference/anothe…             3   ≈1,200  0.25",
        "timeouts-terse     false decline  -                    0/2      3   ≈1,200  0.25",
    ]


SUMMARY_JSON = {
    "questions": 3,
    "with_evidence": 2,
    "hits": 1,
    "hit_rate": 0.5,
    "first_hits": 1,
    "first_hit_rate": 0.5,
    "terms": 4,
    "terms_found": 2,
    "mention_rate": 0.5,
    "unanswerable": 1,
    "declined": 0,
    "decline_rate": 0.0,
    "false_declines": 1,
    "no_answer": 1,
    "read_nothing": 0,
    "errors": 0,
    "groups": 1,
    "groups_agreeing": 0,
    "agreement": 0.0,
    "steps": 9,
    "tokens": 17400,
    "tokens_estimated": True,
    "seconds": 0.75,
}
"""The --json summary of `results()`."""

FIRST_RESULT_JSON = {
    "id": "timeouts-asked",
    "line": 1,
    "base": "timeouts",
    "wording": "asked",
    "question": "What timeouts are there?",
    "answerable": True,
    "outcome": "hit",
    "stop_reason": "answered",
    "declined": False,
    "read_nothing": False,
    "hit": True,
    "first_hit": True,
    "mentioned": ["connect", "pool"],
    "missing": [],
    "citations": [
        {
            "path": "advanced/timeouts.md",
            "start": 45,
            "end": 61,
            "valid": True,
            "read": True,
            "quoted": True,
        },
        {"path": "api.md", "start": 1, "end": 2, "valid": True, "read": False, "quoted": False},
    ],
    "answer": "connect and pool",
    "steps": 3,
    "tokens": 1200,
    "tokens_estimated": True,
    "seconds": 0.25,
    "trace": "t/001.jsonl",
    "error": None,
}
"""The --json object of `results()`'s first question."""


def report_json() -> dict[str, Any]:
    """The --json report of `results()`, through JSON and back: it is plain JSON."""
    report = eval_json(
        results(),
        summarise(results()),
        questions=Path("q.jsonl"),
        docs=Path("docs"),
        model="offline",
        traces=Path("traces/eval-x"),
    )
    loaded: dict[str, Any] = json.loads(json.dumps(report))
    return loaded


def test_the_json_report_holds_the_run_the_summary_and_each_question() -> None:
    report = report_json()
    assert {k: report[k] for k in ("questions", "docs", "model", "traces")} == {
        "questions": "q.jsonl",
        "docs": "docs",
        "model": "offline",
        "traces": "traces/eval-x",
    }
    assert report["summary"] == SUMMARY_JSON
    assert report["results"][0] == FIRST_RESULT_JSON
    assert [r["outcome"] for r in report["results"]] == ["hit", "false decline", "no answer"]
    assert [(r["hit"], r["first_hit"]) for r in report["results"]] == [
        (True, True),
        (False, False),
        (None, None),
    ]
    assert report["results"][2]["base"] is None


def test_ids_are_shown_as_written_not_as_markup() -> None:
    question = Question(question="q", id="[bold]loud[/bold]", answerable=False)
    declined = score(question, finished("No."), [])
    out = io.StringIO()
    Console(file=out, width=80).print(results_table([declined]))
    assert out.getvalue().splitlines()[1].startswith("[bold]loud[/bold]  declined")


def test_wordings_that_all_went_unanswered_are_not_counted_as_agreeing() -> None:
    stopped = [score(q, finished(None, "max_steps"), []) for q in (ASKED, TERSE)]
    assert summarise(stopped).groups_agreeing == 1  # both "no answer": the same outcome
    assert summary_lines(summarise(stopped))[0].endswith("wordings agree -")
