"""Rendering an eval: the per-question table, the summary lines and the `--json` object."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from agent import QuestionResult, Summary
from tui.terminal import visible

STYLES = {
    "hit": "green",
    "declined": "green",
    "miss": "red",
    "false decline": "red",
    "answered": "red",
    "read nothing": "red",
}


def percent(part: int, whole: int) -> str:
    """`18/21 (86%)`, or `-` when there is nothing to count."""
    return f"{part}/{whole} ({part / whole:.0%})" if whole else "-"


ORDINALS = {2: "2nd", 3: "3rd"}


def _outcome(result: QuestionResult) -> Text:
    outcome = result.outcome
    if outcome == "answered" and result.question.answerable:
        return Text(outcome)  # nothing to check it against
    text = Text(outcome, style=STYLES.get(outcome, "yellow"))
    place = result.hit_at
    if place is not None and place > 1:  # a hit, but not by the citation shown first
        text.append(f" ({ORDINALS.get(place, f'{place}th')})", style="yellow")
    return text


def _cited(result: QuestionResult) -> str:
    if not result.citations or result.declined:
        return "-"
    first = result.citations[0]
    more = len(result.citations) - 1
    return f"{first.path}:{first.start}-{first.end}" + (f" +{more}" if more else "")


def _cut(text: str) -> Text:
    # An id comes from the question file, a citation's path from the model: both outside text.
    return Text(visible(text), no_wrap=True, overflow="ellipsis")


def results_table(results: list[QuestionResult]) -> Table:
    """One row per question: its id, outcome, first citation, terms found, steps, tokens, time.

    A hit by a later citation than the first says which one: `hit (2nd)`.
    """
    table = Table(box=None, pad_edge=False, header_style="bold")
    # The id and the citation give up width on a narrow terminal (their cells are cut short
    # with an ellipsis, on one line), so the columns after them stay in view.
    table.add_column("question", min_width=12)
    table.add_column("result", no_wrap=True)
    table.add_column("cites", min_width=8, max_width=52)
    for name, width in (("terms", 5), ("steps", 5), ("tokens", 7), ("s", 4)):
        table.add_column(name, justify="right", no_wrap=True, min_width=width)
    for result in results:
        terms = result.question.must_mention
        table.add_row(
            _cut(result.question.id),  # Text: a "[" in an id is not markup
            _outcome(result),
            _cut(_cited(result)),
            f"{len(result.mentioned)}/{len(terms)}" if terms else "",
            str(result.steps),
            ("≈" if result.tokens_estimated else "") + f"{result.tokens:,}",
            f"{result.seconds:.2f}",
        )
    return table


def summary_lines(summary: Summary, traces: Path | None = None) -> list[str]:
    """The set's scores, then its counts and costs."""
    n = summary.questions
    hits = f"evidence hits {percent(summary.hits, summary.with_evidence)}"
    if summary.with_evidence:
        hits += f", first citation {percent(summary.first_hits, summary.with_evidence)}"
    answered = summary.no_answer < n  # wordings that all went unanswered agree on nothing
    agreeing = percent(summary.groups_agreeing, summary.groups) if answered else "-"
    scores = [
        hits,
        f"terms found {percent(summary.terms_found, summary.terms)}",
        f"unanswerables declined {percent(summary.declined, summary.unanswerable)}",
        f"wordings agree {agreeing}",
    ]
    counts = [
        f"{n} question{'s' if n != 1 else ''}",
        f"{summary.false_declines} false decline{'s' if summary.false_declines != 1 else ''}",
        f"{summary.no_answer} without an answer",
    ]
    if summary.read_nothing:
        counts.append(f"{summary.read_nothing} answered without reading the docs")
    if n:
        mark = "≈" if summary.tokens_estimated else ""
        per = [f"{summary.steps / n:.1f} steps", f"{mark}{summary.tokens / n:,.0f} tokens"]
        counts.append(" ".join([", ".join(per), f"and {summary.seconds / n:.2f} s a question"]))
    if traces is not None:
        counts.append(f"traces: {traces}")
    return [" · ".join(scores), " · ".join(counts)]


def _rate(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def summary_dict(summary: Summary) -> dict[str, Any]:
    """The summary as JSON: the counts, and the rates (null when nothing was counted)."""
    data: dict[str, Any] = {
        "questions": summary.questions,
        "with_evidence": summary.with_evidence,
        "hits": summary.hits,
        "hit_rate": _rate(summary.hit_rate),
        "first_hits": summary.first_hits,
        "first_hit_rate": _rate(summary.first_hit_rate),
        "terms": summary.terms,
        "terms_found": summary.terms_found,
        "mention_rate": _rate(summary.mention_rate),
        "unanswerable": summary.unanswerable,
        "declined": summary.declined,
        "decline_rate": _rate(summary.decline_rate),
        "false_declines": summary.false_declines,
        "no_answer": summary.no_answer,
        "read_nothing": summary.read_nothing,
        "errors": summary.errors,
        "groups": summary.groups,
        "groups_agreeing": summary.groups_agreeing,
        "agreement": _rate(summary.agreement),
        "steps": summary.steps,
        "tokens": summary.tokens,
        "tokens_estimated": summary.tokens_estimated,
        "seconds": summary.seconds,
    }
    return data


def result_dict(result: QuestionResult) -> dict[str, Any]:
    """One question's result as JSON."""
    question = result.question
    return {
        "id": question.id,
        "line": question.line,
        "base": question.base or None,
        "wording": question.wording or None,
        "question": question.question,
        "answerable": question.answerable,
        "outcome": result.outcome,
        "stop_reason": result.stop_reason,
        "declined": result.declined,
        "read_nothing": result.read_nothing,
        "hit": result.hit,
        "first_hit": result.first_hit,
        "mentioned": list(result.mentioned),
        "missing": list(result.missing),
        "citations": [c.to_dict() for c in result.citations],
        "answer": result.answer,
        "steps": result.steps,
        "tokens": result.tokens,
        "tokens_estimated": result.tokens_estimated,
        "seconds": result.seconds,
        "trace": str(result.trace) if result.trace else None,
        "error": result.error,
    }


def eval_json(
    results: list[QuestionResult],
    summary: Summary,
    *,
    questions: Path,
    docs: Path,
    model: str,
    traces: Path,
    endpoint: str | None = None,
) -> dict[str, Any]:
    """The whole eval as one JSON object: what ran, the summary, and each question."""
    return {
        "questions": str(questions),
        "docs": str(docs),
        "model": model,
        "endpoint": endpoint,
        "traces": str(traces),
        "summary": summary_dict(summary),
        "results": [result_dict(r) for r in results],
    }
