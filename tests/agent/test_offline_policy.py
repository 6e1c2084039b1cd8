"""The offline model's policy: weights from rarity, the decline rules, what is quoted."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.models.policy import MAX_CITED, QUOTE_LINES, Term, idf, judge, quote_range, weigh
from agent.search import DocsIndex, Hit
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, read_doc, read_range


@pytest.fixture
def index(tmp_path: Path) -> DocsIndex:
    """Ten docs that all say "widget", two that say "sprocket", one "flange"."""
    for n in range(10):
        extra = " sprocket" if n < 2 else ""
        extra += " flange" if n == 0 else ""
        (tmp_path / f"doc{n}.md").write_text(f"# Doc {n}\n\nA widget{extra}.\n")
    return DocsIndex(Corpus.open(tmp_path))


def hit(path: str, score: float, *terms: str) -> Hit:
    return Hit(path=path, start=1, end=3, headings=(), score=score, snippet="", matched_terms=terms)


def test_terms_weigh_by_rarity_not_by_their_place_in_the_question(index: DocsIndex) -> None:
    forward = {t.text: t.weight for t in weigh("widget sprocket flange", index)}
    backward = {t.text: t.weight for t in weigh("flange sprocket widget", index)}
    assert forward == backward
    assert forward["flange"] > forward["sprocket"] > forward["widget"]
    assert forward["flange"] == pytest.approx(idf(index.section_count, 1))


def test_an_absent_word_weighs_like_the_rarest_word_or_twice_that_as_a_name(
    index: DocsIndex,
) -> None:
    plain = {t.text: t for t in weigh("does the sprocket fit a gasket", index)}
    named = {t.text: t for t in weigh("does the sprocket fit a Gasket", index)}
    assert plain["gasket"].absent and plain["gasket"].weight == plain["sprocket"].weight
    assert named["gasket"].weight == 2 * named["sprocket"].weight


def test_a_question_of_only_common_words_has_no_terms(index: DocsIndex) -> None:
    assert weigh("What is it?", index) == []


def test_judge_declines_or_picks_the_close_sections(index: DocsIndex) -> None:
    terms = weigh("sprocket flange", index)
    verdict = judge(terms, [hit("a.md", 10, "sprocket", "flange"), hit("b.md", 6, "sprocket")])
    assert [h.path for h in verdict.hits] == ["a.md", "b.md"] and not verdict.reason
    far = judge(terms, [hit("a.md", 10, "sprocket", "flange"), hit("b.md", 2, "sprocket")])
    assert [h.path for h in far.hits] == ["a.md"]
    many = judge(terms, [hit(f"{n}.md", 10, "flange") for n in range(5)])
    assert len(many.hits) == MAX_CITED
    absent = judge(weigh("gasket Kubernetes sprocket", index), [hit("a.md", 5, "sprocket")])
    assert not absent.hits and absent.reason == 'the docs never mention "gasket" or "kubernetes"'
    thin = judge(weigh("widget sprocket flange", index), [hit("a.md", 5, "widget")])
    assert thin.reason == 'the best match shares only "widget" with the question'


def test_a_short_section_is_quoted_whole_a_long_one_around_its_best_block() -> None:
    short = ["# Title", "", "Some text.", ""]
    assert quote_range(short, 7, []) == (7, 9)
    long = [f"line {n}" if n % 3 else "" for n in range(90)]
    long[60:66] = ["```", "code", "", "more code", "```", ""]
    long[58] = "The gasket goes here:"
    first, last = quote_range(long, 1, [Term("gasket", 1, 1.0)])
    assert first <= 59 and last >= 65 and last - first < QUOTE_LINES


def test_read_range_says_what_read_doc_shows(tmp_path: Path) -> None:
    (tmp_path / "wide.md").write_text("".join(f"{'x' * 300} {n}\n" for n in range(40)))
    ctx = DocsContext(Corpus.open(tmp_path))
    shown = read_range(ctx.corpus, "wide.md", 3, 30)
    header = read_doc(ctx, "wide.md", 3, 30).splitlines()[0]
    assert header == f"wide.md lines {shown.start}-{shown.end} of 40"
    assert shown.start == 3 and shown.end < 30
