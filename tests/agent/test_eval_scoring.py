from __future__ import annotations

from typing import Any

from agent.eval.questions import Evidence, Question
from agent.eval.scoring import QuestionResult, score, summarise
from agent.events import RunFinished, StopReason, Totals, Usage
from agent.outcome import is_decline, run_outcome
from agent.tools.citations import Citation

TIMEOUTS = Question(
    question="What timeouts are there?",
    id="timeouts-asked",
    base="timeouts",
    evidence=(Evidence("advanced/timeouts.md", 41, 61),),
    must_mention=("connect", "Pool"),
)
BREAD = Question(question="How do I bake bread?", id="bread", answerable=False)


def finished(
    answer: str | None = "An answer.",
    stop: StopReason = "answered",
    output: dict[str, Any] | None = None,
) -> RunFinished:
    totals = Totals(steps=3, tool_calls=4, usage=Usage(1000, 200, estimated=True))
    return totals.finish(stop, elapsed_s=0.25, answer=answer, output=output)


def cite(path: str, start: int, end: int, valid: bool = True) -> Citation:
    return Citation(path, start, end, valid)


def test_a_hit_is_a_valid_citation_overlapping_the_evidence() -> None:
    result = score(
        TIMEOUTS,
        finished("There are connect, read, write and pool timeouts."),
        [cite("advanced/timeouts.md", 45, 61)],
    )
    assert (result.hit, result.first_hit, result.hit_at) == (True, True, 1)
    assert result.passed is True
    assert result.outcome == "hit"
    assert result.declined is False
    assert result.mentioned == ("connect", "Pool")
    assert result.missing == ()
    assert (result.steps, result.tokens, result.tokens_estimated, result.seconds) == (
        3,
        1200,
        True,
        0.25,
    )


def test_only_the_first_three_citations_count_and_they_must_be_valid() -> None:
    late = [cite("index.md", 1, 2), cite("api.md", 3, 4), cite("api.md", 9, 9)]
    late.append(cite("advanced/timeouts.md", 41, 61))
    assert score(TIMEOUTS, finished(), late).hit is False
    invalid = [cite("advanced/timeouts.md", 41, 900, valid=False)]
    assert score(TIMEOUTS, finished(), invalid).hit is False
    elsewhere = [cite("advanced/timeouts.md", 1, 40)]
    result = score(TIMEOUTS, finished("no terms here"), elsewhere)
    assert (result.hit, result.outcome, result.missing) == (False, "miss", ("connect", "Pool"))
    assert (result.first_hit, result.hit_at) == (False, None)


def test_a_first_hit_needs_the_first_citation_to_hit() -> None:
    evidence = cite("advanced/timeouts.md", 50, 52)
    for place in (2, 3):
        cites = [cite("index.md", 1, 2), cite("api.md", 3, 4)]
        cites.insert(place - 1, evidence)
        result = score(TIMEOUTS, finished(), cites)
        assert (result.hit, result.first_hit, result.hit_at) == (True, False, place)
        assert (result.passed, result.outcome) == (True, "hit")
    invalid_first = [cite("advanced/timeouts.md", 41, 900, valid=False), evidence]
    result = score(TIMEOUTS, finished(), invalid_first)
    assert (result.hit, result.first_hit, result.hit_at) == (True, False, 2)
    both = score(TIMEOUTS, finished(), [evidence, cite("advanced/timeouts.md", 60, 70)])
    assert (both.hit, both.first_hit, both.hit_at) == (True, True, 1)


def test_an_answer_without_citations_is_a_decline_and_mentions_nothing() -> None:
    decline = finished("The docs don't cover connect or pool timeouts.")
    assert is_decline(decline, [])
    result = score(TIMEOUTS, decline, [])
    assert (result.declined, result.hit, result.first_hit, result.passed) == (
        True,
        False,
        False,
        False,
    )
    assert result.outcome == "false decline"
    assert result.mentioned == ()


def test_a_declined_flag_in_the_output_is_a_decline_even_with_citations() -> None:
    flagged = finished("Not covered; I read guide.md:1-5.", output={"declined": True})
    assert is_decline(flagged, [cite("guide.md", 1, 5)])
    assert not is_decline(finished(output={"declined": False}), [cite("guide.md", 1, 5)])
    on_evidence = [cite("advanced/timeouts.md", 41, 61)]
    result = score(TIMEOUTS, finished("Not covered.", output={"declined": True}), on_evidence)
    assert (result.declined, result.hit, result.first_hit, result.hit_at) == (
        True,
        False,
        False,
        None,
    )


def test_a_run_without_an_answer_is_neither_an_answer_nor_a_decline() -> None:
    stopped = finished(None, "max_steps")
    assert not is_decline(stopped, [])
    result = score(TIMEOUTS, stopped, [])
    assert (result.hit, result.declined, result.outcome) == (False, False, "no answer")
    assert result.first_hit is False
    assert score(BREAD, stopped, []).passed is False
    assert score(BREAD, finished(None, "error"), []).outcome == "error"


def test_an_unanswerable_question_passes_when_declined() -> None:
    declined = score(BREAD, finished("The docs don't cover this."), [])
    assert (declined.hit, declined.passed, declined.outcome) == (None, True, "declined")
    assert (declined.first_hit, declined.hit_at) == (None, None)
    answered = score(BREAD, finished("See oven.md:1-3."), [cite("oven.md", 1, 3, valid=False)])
    assert (answered.passed, answered.outcome) == (False, "answered")
    assert (answered.hit, answered.first_hit) == (None, None)


def test_an_answerable_question_without_evidence_has_nothing_to_hit() -> None:
    plain = Question(question="Anything?", id="plain", must_mention=("pool",))
    result = score(plain, finished("The pool, see a.md:1-2."), [cite("a.md", 1, 2)])
    assert result.first_hit is None
    assert (result.hit, result.passed, result.outcome, result.mentioned) == (
        None,
        None,
        "answered",
        ("pool",),
    )


def wording(base: str, name: str, answerable: bool = True) -> Question:
    evidence = (Evidence("a.md", 1, 5),) if answerable else ()
    return Question(
        question=f"{base} {name}",
        id=f"{base}-{name}",
        base=base,
        wording=name,
        evidence=evidence,
        must_mention=("alpha", "beta") if answerable else (),
        answerable=answerable,
    )


def result(question: Question, answer: str | None, *cites: Citation) -> QuestionResult:
    stop: StopReason = "answered" if answer is not None else "error"
    return score(question, finished(answer, stop), list(cites))


def test_a_summary_counts_hits_terms_declines_and_agreeing_wordings() -> None:
    good, off = cite("a.md", 2, 3), cite("b.md", 2, 3)
    results = [
        result(wording("one", "asked"), "alpha beta", good),
        result(wording("one", "terse"), "alpha", off, good),  # a hit, not by the first
        result(wording("one", "context"), "alpha beta", good),
        result(wording("two", "asked"), "alpha", good),
        result(wording("two", "terse"), "nothing here"),  # a false decline
        result(wording("two", "context"), None),  # an error
        result(wording("three", "asked", answerable=False), "No."),
        result(wording("three", "terse", answerable=False), "No."),
        result(wording("four", "asked", answerable=False), "Yes: a.md:1-2", good),
        result(Question(question="lone", id="lone", answerable=False), "No."),
    ]
    summary = summarise(results)
    assert summary.questions == 10
    assert (summary.with_evidence, summary.hits, summary.hit_rate) == (6, 4, 4 / 6)
    assert (summary.first_hits, summary.first_hit_rate) == (3, 0.5)
    assert (summary.terms, summary.terms_found) == (12, 6)
    assert (summary.unanswerable, summary.declined, summary.decline_rate) == (4, 3, 0.75)
    assert (summary.false_declines, summary.no_answer, summary.errors) == (1, 1, 1)
    # "one" agrees (all hits), "two" does not, "three" agrees (both declined);
    # "four" and "lone" have one wording each and are not counted.
    assert (summary.groups, summary.groups_agreeing) == (3, 2)
    assert (summary.steps, summary.tokens, summary.tokens_estimated) == (30, 12000, True)
    assert summary.seconds == 2.5


def test_an_empty_summary_has_no_rates() -> None:
    summary = summarise([])
    assert summary.questions == 0
    rates = (summary.hit_rate, summary.first_hit_rate, summary.mention_rate)
    assert rates + (summary.decline_rate, summary.agreement) == (None, None, None, None, None)


def test_an_answer_that_called_no_tool_read_nothing_and_is_not_a_decline() -> None:
    unread = Totals(steps=1, usage=Usage(100, 50)).finish(
        "answered", elapsed_s=0.1, answer="Use fetch() (advanced/timeouts.md:45-61)."
    )
    cited = [cite("advanced/timeouts.md", 45, 61)]
    assert run_outcome(unread, cited) == run_outcome(unread, []) == "read_nothing"
    assert not is_decline(unread, [])
    result = score(TIMEOUTS, unread, cited)
    assert (result.declined, result.read_nothing, result.hit, result.outcome) == (
        False,
        True,
        False,
        "read nothing",
    )
    assert summarise([result]).read_nothing == 1
    assert score(BREAD, unread, []).passed is False  # an unanswerable one is not declined
