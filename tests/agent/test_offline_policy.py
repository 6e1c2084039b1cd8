"""The offline model's policy: weights from rarity, the decline rules, what is quoted."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.models.policy import MAX_CITED, by_paragraphs, intro_last, judge, with_opening
from agent.models.quoting import QUOTE_LINES, quote_range
from agent.models.weighing import Term, idf, weigh
from agent.search import DocsIndex, Hit
from agent.search.query import ASKED_WEIGHT
from agent.search.sections import Section
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, read_doc, read_range


@pytest.fixture
def index(tmp_path: Path) -> DocsIndex:
    """Ten docs that all say "widget", two about a "sprocket", one that says "flange" (in
    two paragraphs): words of the docs' subject, not everyday ones."""
    for n in range(10):
        extra = " sprocket" if n < 2 else ""
        extra += " flange.\n\nThe flange is round" if n == 0 else ""
        title = "Sprocket " if n < 2 else ""  # what those pages are about
        (tmp_path / f"doc{n}.md").write_text(f"# {title}Doc {n}\n\nA widget{extra}.\n")
    return DocsIndex(Corpus.open(tmp_path))


def hit(path: str, score: float, *terms: str) -> Hit:
    return Hit(path=path, start=1, end=3, headings=(), score=score, snippet="", matched_terms=terms)


def test_terms_weigh_by_rarity_not_by_their_place_in_the_question(index: DocsIndex) -> None:
    forward = {t.text: t.weight for t in weigh("widget sprocket flange", index)}
    backward = {t.text: t.weight for t in weigh("flange sprocket widget", index)}
    assert forward == backward
    assert forward["flange"] > forward["sprocket"] > forward["widget"]
    assert forward["flange"] == pytest.approx(idf(index.section_count, 1))


def test_an_absent_word_weighs_twice_the_rarest_word_name_or_not(index: DocsIndex) -> None:
    plain = {t.text: t for t in weigh("does the sprocket fit a gasket", index)}
    named = {t.text: t for t in weigh("does the sprocket fit a Gasket", index)}
    assert plain["gasket"].absent and plain["gasket"].weight == 2 * plain["sprocket"].weight
    assert named["gasket"].weight == 2 * named["sprocket"].weight and named["gasket"].name


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
    thin = judge(
        weigh("widget sprocket flange", index), [hit("a.md", 5, "widget"), hit("b.md", 4, "flange")]
    )
    assert thin.reason == 'the best match shares only "widget" with the question'


def test_declines_when_no_match_holds_the_rare_word_the_question_is_about(
    index: DocsIndex,
) -> None:
    terms = weigh("widget flange", index)  # "flange": one section of twelve
    elsewhere = judge(terms, [hit("a.md", 9, "widget"), hit("b.md", 8, "widget")])
    assert elsewhere.reason == 'no section that matches the question holds "flange"'
    held = judge(terms, [hit("a.md", 9, "widget", "flange"), hit("b.md", 8, "widget")])
    assert [h.path for h in held.hits] == ["a.md", "b.md"]
    common = judge(weigh("widget", index), [hit("a.md", 9, "widget")])  # ten sections hold it
    assert [h.path for h in common.hits] == ["a.md"]
    # Held only by a weak match further down, one that would not be cited: no answer.
    weak = hit("e.md", 2, "flange")
    far = judge(terms, [hit("a.md", 9, "widget"), hit("b.md", 8, "widget"), weak])
    assert far.reason == 'no section that matches the question holds "flange"'


def test_a_rare_word_is_a_detail_when_the_best_section_holds_the_rest_of_the_question() -> None:
    terms = [
        Term("reload", 40, 3.0),
        Term("config", 60, 2.5),
        Term("downtime", 1, 4.0),  # one section says it, not one that matches
    ]
    answered = judge(terms, [hit("restart.md", 9, "reload", "config")])
    assert [h.path for h in answered.hits] == ["restart.md"]  # holds 5.5 of 9.5
    fewer = judge(terms, [hit("restart.md", 9, "config")])  # holds 2.5 of 9.5
    assert fewer.reason == 'no section that matches the question holds "downtime"'


def test_a_section_where_the_question_meets_in_one_paragraph_comes_first() -> None:
    terms = [Term("gzip", 3, 5.0), Term("html", 30, 2.0), Term("turn", 20, 3.0)]
    scattered = ["gzip is one encoding.", "", "Serve html as it is.", "", "Turn pages."]
    together = ["Turn on gzip for html with:", "", "    AddOutputFilter DEFLATE html"]
    hits = [hit("a.md", 10.0, "gzip", "html", "turn"), hit("b.md", 9.0, "gzip", "html", "turn")]
    assert [h.path for h in by_paragraphs(hits, [scattered, together], terms)] == [
        "b.md",  # 9 x 1.5 against 10 x (1 + 0.5 x 0.5)
        "a.md",
    ]
    assert [h.path for h in by_paragraphs(hits, [together, together], terms)] == ["a.md", "b.md"]
    assert by_paragraphs([], [], terms) == []


def test_declines_a_name_the_docs_never_mention_in_the_question_not_in_its_context() -> None:
    present = [Term(w, 50, 3.0) for w in ("fit", "widget", "sprocket", "flange")]
    best = [hit("a.md", 9, "fit", "widget", "sprocket", "flange")]
    asked = judge([*present, Term("kubernetes", 0, 6.0, name=True)], best)
    assert asked.reason == 'the docs never mention "kubernetes"'
    context = judge([*present, Term("kubernetes", 0, 3.0, asked=False, name=True)], best)
    assert [h.path for h in context.hits] == ["a.md"]
    plain = judge([*present, Term("kubernetes", 0, 3.0)], best)  # not written as a name
    assert [h.path for h in plain.hits] == ["a.md"]


def test_weigh_says_which_words_are_asked_and_which_are_names(index: DocsIndex) -> None:
    terms = weigh("We run Kubernetes. How do I fit a widget sprocket?", index)
    assert [(t.text, t.asked, t.name) for t in terms] == [
        ("run", False, False),
        ("kubernetes", False, True),
        ("fit", True, False),
        ("widget", True, False),
        ("sprocket", True, False),
    ]


def test_declines_when_absent_words_carry_half_the_weight(index: DocsIndex) -> None:
    terms = weigh("sprocket gasket", index)
    assert judge(terms, [hit("a.md", 9, "sprocket")]).reason == 'the docs never mention "gasket"'


def test_context_words_weigh_less_and_unknown_ones_nothing(index: DocsIndex) -> None:
    question = "I have a flange and a carburettor. Where is the sprocket?"
    terms = {t.text: t for t in weigh(question, index)}
    assert terms["flange"].weight == pytest.approx(idf(index.section_count, 1) / ASKED_WEIGHT)
    assert terms["sprocket"].weight == pytest.approx(idf(index.section_count, 2))
    assert terms["carburettor"].weight == 0  # only the situation: no reason to decline


def test_unknown_words_of_the_situation_do_not_decline(index: DocsIndex) -> None:
    situation = "My carburettor, gearbox, radiator and dynamo rattle on frosty winter mornings."
    question = situation + " Where is the sprocket?"  # ten words the docs never use
    terms = weigh(question, index)
    assert judge(terms, [hit("a.md", 9, "sprocket")]).hits


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


def test_the_second_part_of_a_long_section_is_read_with_its_opening() -> None:
    trail = ("Guide", "Substitution")
    parts = [Section(1, 9, ("Guide",)), Section(10, 69, trail), Section(70, 90, trail)]
    best = Hit("g.md", 70, 90, trail, 5.0, "", ("replace",))
    other = hit("x.md", 4.0, "replace")
    read = with_opening([best, other], parts)
    assert [(h.path, h.start) for h in read] == [("g.md", 70), ("g.md", 10), ("x.md", 1)]
    assert with_opening([other], parts) == (other,)  # not a part of a long section


def test_a_short_tail_of_a_long_section_is_cited_after_its_opening() -> None:
    trail = ("CXX_STANDARD",)
    parts = [Section(1, 59, trail), Section(61, 66, trail)]
    tail = Hit("p.rst", 61, 66, trail, 5.0, "", ("standard",))
    assert [h.start for h in with_opening([tail], parts)] == [1, 61]


def test_a_heading_written_twice_in_a_doc_still_finds_the_opening_of_its_own_section() -> None:
    trail = ("Guide", "Example")
    parts = [
        Section(1, 8, trail),  # an earlier, short section under the same trail
        Section(10, 20, ("Guide", "Setup")),
        Section(22, 81, trail),
        Section(82, 99, trail),
    ]
    best = Hit("g.md", 82, 99, trail, 5.0, "", ("replace",))
    assert [h.start for h in with_opening([best], parts)] == [82, 22]
    assert with_opening([best], []) == (best,)  # the doc is gone from the index


def test_a_part_deep_in_a_section_cut_in_many_stands_on_its_own() -> None:
    trail = ("Options",)
    parts = [Section(1, 60, trail), Section(61, 120, trail), Section(121, 150, trail)]
    best = Hit("o.md", 121, 150, trail, 5.0, "", ("regex",))
    assert with_opening([best], parts) == (best,)


def test_a_short_page_introduction_is_cited_after_the_part_of_its_page_that_matches() -> None:
    parts = [Section(1, 3, ("SSL",)), Section(5, 30, ("SSL", "Certificates"))]
    intro = Hit("ssl.md", 1, 3, ("SSL",), 9.0, "", ("ca", "bundle"))
    other = hit("env.md", 8.0, "ca")
    part = Hit("ssl.md", 5, 30, ("SSL", "Certificates"), 3.0, "", ("bundle",))
    found = [intro, other, part]
    assert intro_last([intro, other], found, parts) == (part, intro, other)
    assert intro_last([intro, other], [intro, other], parts) == (intro, other)  # no part found
    long_intro = [Section(1, 20, ("SSL",)), Section(21, 30, ("SSL", "Certificates"))]
    assert intro_last([intro, other], found, long_intro) == (intro, other)  # it says more
    assert intro_last([other], found, [Section(1, 3, ())]) == (other,)  # a one-section page
    terms = [Term("ca", 4, 2.0), Term("bundle", 3, 4.0), Term("proxy", 9, 6.0)]
    weak = Hit("ssl.md", 5, 30, ("SSL", "Certificates"), 1.0, "", ("ca",))  # a sixth: no
    assert intro_last([intro, other], [intro, other, weak], parts, terms=terms) == (intro, other)
    assert intro_last([intro, other], found, parts, terms=terms)[0] == part  # a third


def test_a_part_read_beside_the_best_never_pushes_out_the_section_holding_the_rare_word() -> None:
    parts = [Section(1, 3, ("SSL",)), Section(5, 30, ("SSL", "Certificates"))]
    intro = Hit("ssl.md", 1, 3, ("SSL",), 9.0, "", ("ca", "bundle"))
    part = Hit("ssl.md", 5, 30, ("SSL", "Certificates"), 3.0, "", ("bundle",))
    other, rare = hit("env.md", 8.0, "ca"), hit("pem.md", 7.0, "pem")
    verdict = judge([Term("ca", 9, 1.0), Term("pem", 2, 2.0)], [intro, other, rare, part])
    assert verdict.hits == (intro, other, rare) and verdict.rare == ("pem",)
    assert intro_last(verdict.hits, [intro, other, rare, part], parts, rare=verdict.rare) == (
        part,
        intro,
        rare,
    )
    cut = [Section(1, 60, ("Options",)), Section(61, 90, ("Options",))]
    second = Hit("o.md", 61, 90, ("Options",), 9.0, "", ("ca",))
    opening = Hit("o.md", 1, 60, ("Options",), 0.0, "", ())
    assert with_opening([second, other, rare], cut, rare=("pem",)) == (second, opening, rare)
    assert with_opening([second, other, rare], cut) == (second, opening, other)
