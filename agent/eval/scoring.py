"""Scores: one question's run against what a right answer looks like, and a set's totals.

- evidence hit: one of the answer's first `HIT_CITATIONS` citations is valid and shares
  a line with an expected range; a decline is a miss;
- first-citation hit: the same, for the answer's first citation alone (the one a reader
  is shown first);
- must-mention: the expected terms found in the answer, ignoring case (none in a decline);
- a decline: the run answered after calling a tool, and its answer cites nothing (or
  its final output says `"declined": true`), as `agent/outcome.py` defines it; an answer
  that called no tool read nothing and is not a decline;
- wording agreement: all wordings of a base question score alike (hit, or declined for
  an unanswerable one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.eval.questions import Question
from agent.events import RunFinished, StopReason
from agent.outcome import is_decline, run_outcome
from agent.tools.citations import Citation

HIT_CITATIONS = 3
"""How many of an answer's first citations may hit the evidence."""


def _hit_place(question: Question, citations: Sequence[Citation]) -> int | None:
    """Which of the first `HIT_CITATIONS` citations hits the evidence first (1 for the first).

    A hit is valid and shares a line with one of the question's evidence ranges; None when
    none of them does.
    """
    for place, c in enumerate(citations[:HIT_CITATIONS], start=1):
        if c.valid and any(e.overlaps(c.path, c.start, c.end) for e in question.evidence):
            return place
    return None


@dataclass(frozen=True, kw_only=True)
class QuestionResult:
    """How one question went: the run's end, its citations and its scores."""

    question: Question
    stop_reason: StopReason
    answer: str | None
    citations: tuple[Citation, ...]
    declined: bool
    read_nothing: bool = False
    """The run answered without calling a tool (not a decline: it never looked)."""
    hit: bool | None
    first_hit: bool | None
    mentioned: tuple[str, ...]
    missing: tuple[str, ...]
    steps: int
    tokens: int
    tokens_estimated: bool
    seconds: float
    trace: Path | None = None
    error: str | None = None

    @property
    def passed(self) -> bool | None:
        """Right for its kind: a hit, or a decline of an unanswerable question.

        None for an answerable question without evidence (nothing to check it against).
        """
        if not self.question.answerable:
            return self.declined
        return self.hit

    @property
    def hit_at(self) -> int | None:
        """Which citation hit the evidence first (1 for the first); None without a hit."""
        return _hit_place(self.question, self.citations) if self.hit else None

    @property
    def outcome(self) -> str:
        """One word or two for tables: hit, miss, declined, false decline, answered, ..."""
        if self.stop_reason != "answered":
            return "no answer" if self.stop_reason in ("max_steps", "budget") else self.stop_reason
        if self.read_nothing:
            return "read nothing"
        if not self.question.answerable:
            return "declined" if self.declined else "answered"
        if self.declined:
            return "false decline"
        return {True: "hit", False: "miss", None: "answered"}[self.hit]


def score(
    question: Question,
    finished: RunFinished,
    citations: Sequence[Citation],
    *,
    trace: Path | None = None,
) -> QuestionResult:
    """The result of one question's run, its answer's citations checked against the docs."""
    declined = is_decline(finished, citations)
    read_nothing = run_outcome(finished, citations) == "read_nothing"
    answer = finished.answer if finished.stop_reason == "answered" else None
    hit = first_hit = None
    if question.answerable and question.evidence:
        looked = answer is not None and not declined and not read_nothing
        place = _hit_place(question, citations) if looked else None
        hit, first_hit = place is not None, place == 1
    text = (answer or "").casefold() if not declined else ""
    found = tuple(t for t in question.must_mention if t.casefold() in text)
    stats = finished.stats
    return QuestionResult(
        question=question,
        stop_reason=finished.stop_reason,
        answer=finished.answer,
        citations=tuple(citations),
        declined=declined,
        read_nothing=read_nothing,
        hit=hit,
        first_hit=first_hit,
        mentioned=found,
        missing=tuple(t for t in question.must_mention if t not in found),
        steps=stats.steps,
        tokens=stats.usage.total_tokens,
        tokens_estimated=stats.usage.estimated,
        seconds=stats.elapsed_s,
        trace=trace,
        error=finished.error,
    )


@dataclass(frozen=True, kw_only=True)
class Summary:
    """A question set's totals. Rates are None when nothing was there to count."""

    questions: int
    with_evidence: int
    hits: int
    first_hits: int
    terms: int
    terms_found: int
    unanswerable: int
    declined: int
    false_declines: int
    no_answer: int
    read_nothing: int = 0
    """Answers of runs that called no tool."""
    errors: int
    groups: int
    groups_agreeing: int
    steps: int
    tokens: int
    tokens_estimated: bool
    seconds: float

    @property
    def hit_rate(self) -> float | None:
        return self.hits / self.with_evidence if self.with_evidence else None

    @property
    def first_hit_rate(self) -> float | None:
        return self.first_hits / self.with_evidence if self.with_evidence else None

    @property
    def mention_rate(self) -> float | None:
        return self.terms_found / self.terms if self.terms else None

    @property
    def decline_rate(self) -> float | None:
        return self.declined / self.unanswerable if self.unanswerable else None

    @property
    def agreement(self) -> float | None:
        return self.groups_agreeing / self.groups if self.groups else None


def summarise(results: Sequence[QuestionResult]) -> Summary:
    """The totals of a set's results."""
    groups: dict[str, list[bool | None]] = {}
    for result in results:
        groups.setdefault(result.question.group, []).append(result.passed)
    worded = [scores for scores in groups.values() if len(scores) > 1]
    unanswerable = [r for r in results if not r.question.answerable]
    answerable = [r for r in results if r.question.answerable]
    return Summary(
        questions=len(results),
        with_evidence=sum(r.hit is not None for r in results),
        hits=sum(r.hit is True for r in results),
        first_hits=sum(r.first_hit is True for r in results),
        terms=sum(len(r.question.must_mention) for r in answerable),
        terms_found=sum(len(r.mentioned) for r in answerable),
        unanswerable=len(unanswerable),
        declined=sum(r.declined for r in unanswerable),
        false_declines=sum(r.declined for r in answerable),
        no_answer=sum(r.stop_reason != "answered" for r in results),
        read_nothing=sum(r.read_nothing for r in results),
        errors=sum(r.stop_reason == "error" for r in results),
        groups=len(worded),
        groups_agreeing=sum(len(set(scores)) == 1 for scores in worded),
        steps=sum(r.steps for r in results),
        tokens=sum(r.tokens for r in results),
        tokens_estimated=any(r.tokens_estimated for r in results),
        seconds=round(sum(r.seconds for r in results), 3),
    )
