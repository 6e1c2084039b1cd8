"""The offline model's decisions, made from the index's typed results: judge, quote.

1. weigh: each search term of the question weighs by how rare it is in the docs
   (`agent.models.weighing`, where the weights' constants are).
2. judge: decline when words the docs never use carry half the question's weight or
   more, when the question names something the docs never mention, when none of the
   sections it would cite holds the question's rarest word (one only a few sections
   use, and not an everyday word), or when the best section holds too little of it;
   otherwise read the best sections.
3. quote: the run of whole paragraphs (lists and code blocks kept whole) of the best
   section that holds the most of the question's weight, its words matched as the
   index matches them (`agent.search.stemming`), up to `QUOTE_LINES` lines; a quote
   that ends on a colon goes on with the block that follows, or ends with "…"
   (`agent.models.quoting`).

Every tuning constant of judging and citing is here, with why it has its value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent.models.quoting import blocks_of
from agent.models.weighing import RARE_SECTIONS, Term
from agent.search import DocsIndex, Hit
from agent.search.sections import Section
from agent.search.stemming import terms_held

MAX_ABSENT_SHARE = 0.5
"""Decline when words the docs never use carry this share of the weight or more: then the
question is mostly about something the docs do not mention (HTTP/3 over QUIC, "copilot
completion"). Lower values also decline answerable questions that hold one filler word
the docs lack."""

RARE_COVERAGE = 0.55
"""The rarest-word rule (`RARE_SECTIONS`) declines only when the best section also holds
less than this share of the question's weight: when it holds more, the rest of the
question matches well, and the rare word is a detail of it ("took" in "the time each
request took", "downtime" in "reload config without downtime"). On nine question sets
the answerable questions it declined had a best section holding 0.47 to 0.56; the
unanswerable ones 0.21 to 0.43, and one 0.52 ("http api server mode"). Once words of
plain English weighed less (`PLAIN_ABSENT`, `PLAIN_USED`), every share grew: on nine
development sets 0.55 declined 2 more unanswerable questions than 0.45 ("http api server
mode" among them), 1 more answerable one, and found 1 passage fewer."""

MIN_COVERAGE = 0.25
"""Decline when the best section holds less than this share of the question's weight:
it shares only a common word or two with the question, which is no real match."""

SEARCH_LIMIT = 5
"""Sections the visible `search_docs` call lists (its default), and the most judged."""

MAX_CITED = 3
"""Sections read and cited at most: the best, and two more that also match well."""

RELATED_SCORE = 0.5
"""A further section is read and cited only if its BM25 score is at least this share of
the best one's: close runners-up often hold the rest of the answer, distant ones do not."""

INTRO_LINES = 6
"""A page's opening section (before its first subheading) of at most this many lines is
its introduction: it says what the page is about ("HTTPX verifies hosts with a CA
bundle"), and the how-to is in a part below. When it matches best, the page's best
matching part among the search's results is quoted first, and the introduction cited
beside it."""

PARAGRAPH_BONUS = 0.5
"""How much a found section's score grows, at most, with the share of the question's
weight that one of its paragraphs holds: where the question's words meet in one
paragraph, the section says something about them together; where they are scattered
over the section, it only mentions each. On nine question sets (the four tuned ones,
and five written blind), first citations rose from 93 to 97 of 186, mostly on the blind
sets; 0.3 and 0.7 did the same, 1.0 less."""


@dataclass(frozen=True)
class Verdict:
    """The sections to read and cite, best first; or, when there are none, why not."""

    hits: tuple[Hit, ...] = ()
    reason: str = ""
    rare: tuple[str, ...] = ()
    """The question's rarest words (`RARE_SECTIONS`), when it has some: one of `hits`
    holds one of them, and the sections finally cited must too."""


def coverage(hit: Hit, terms: Sequence[Term]) -> float:
    """The share of the question's weight that a section holds."""
    total = sum(t.weight for t in terms)
    held = sum(t.weight for t in terms if t.text in hit.matched_terms)
    return held / total if total else 0.0


def judge(terms: Sequence[Term], hits: Sequence[Hit]) -> Verdict:
    """The sections that answer, best first, or why none does."""
    total = sum(t.weight for t in terms)
    absent = [t.text for t in terms if t.absent]
    if not hits or len(absent) == len(terms):
        return Verdict(reason="no section of the docs mentions " + _either(absent))
    if sum(t.weight for t in terms if t.absent) >= MAX_ABSENT_SHARE * total:
        lacking = [t.text for t in terms if t.absent and not t.everyday] or absent
        return Verdict(reason="the docs never mention " + _either(lacking))
    names = [t.text for t in terms if t.absent and t.asked and t.name]
    if names:
        return Verdict(reason="the docs never mention " + _either(names))
    best = hits[0]
    close = [h for h in hits[1:] if h.score >= RELATED_SCORE * best.score]
    cited = (best, *close[: MAX_CITED - 1])
    rare = _rarest(terms)
    if rare and not _holding(cited, rare) and coverage(best, terms) < RARE_COVERAGE:
        return Verdict(reason="no section that matches the question holds " + _either(rare))
    if coverage(best, terms) < MIN_COVERAGE:
        held = _either(list(best.matched_terms)).replace(" or ", " and ")
        return Verdict(reason=f"the best match shares only {held} with the question")
    return Verdict(hits=cited, rare=tuple(rare))


def by_paragraphs(
    hits: Sequence[Hit], texts: Sequence[Sequence[str]], terms: Sequence[Term]
) -> list[Hit]:
    """`hits` best first again, each score grown by its best paragraph (`PARAGRAPH_BONUS`);
    `texts` holds each hit's lines."""
    weights = {t.text: t.weight for t in terms}
    total = sum(weights.values())
    if not hits or not total:
        return list(hits)

    def grown(i: int) -> float:
        lines = texts[i]
        paragraphs = ["\n".join(lines[a : b + 1]) for a, b in blocks_of(lines)]
        held = terms_held(paragraphs, list(weights))
        share = max((sum(weights[t] for t in words) / total for words in held), default=0.0)
        return hits[i].score * (1 + PARAGRAPH_BONUS * share)

    order = sorted(range(len(hits)), key=lambda i: -grown(i))  # stable among equals
    return [hits[i] for i in order]


def with_opening(
    hits: Sequence[Hit], sections: Sequence[Section], *, rare: Sequence[str] = ()
) -> tuple[Hit, ...]:
    """`hits` with the opening part of the best one's section read right after it, when the
    best is the second part of a section cut in two where it grew too long: the opening
    says what the whole section is about, and usually shows its main example. When the
    part is a short tail (`INTRO_LINES`), the opening comes first: it is what answers.
    A part further down a section cut into many (a long list of options) stands on its
    own. A section that holds one of the `rare` words stays cited (`_fit`)."""
    best = hits[0]
    before = [s for s in sections if s.end < best.start]
    if not best.headings or not before or before[-1].headings != best.headings:
        return tuple(hits)
    opening = before[-1]
    if len(before) > 1 and before[-2].headings == best.headings:
        return tuple(hits)  # not the part right after the opening
    if any(h.path == best.path and h.start == opening.start for h in hits):
        return tuple(hits)
    part = Hit(best.path, opening.start, opening.end, best.headings, 0.0, "", ())
    if best.end - best.start + 1 <= INTRO_LINES:
        return _fit((part, best, *hits[1:]), rare)  # a short tail: the opening says more
    return _fit((best, part, *hits[1:]), rare)


def intro_last(
    best: Sequence[Hit],
    found: Sequence[Hit],
    sections: Sequence[Section],
    *,
    terms: Sequence[Term] = (),
    rare: Sequence[str] = (),
) -> tuple[Hit, ...]:
    """`best` (judged hits, best first) with the page's best matching part before its
    introduction, when the first hit is a short introduction (`INTRO_LINES`) and the
    search `found` a part of the same page that holds enough of the question's `terms`
    to answer (`MIN_COVERAGE`, as the best must). A section that holds one of the `rare`
    words stays cited (`_fit`)."""
    intro = best[0]
    if len(sections) < 2 or sections[0].start != intro.start:
        return tuple(best)
    if sections[0].end - sections[0].start + 1 > INTRO_LINES:
        return tuple(best)
    parts = [h for h in found if h.path == intro.path and h.start != intro.start]
    part = next((h for h in parts if not terms or coverage(h, terms) >= MIN_COVERAGE), None)
    if part is None:
        return tuple(best)
    rest = [h for h in best[1:] if (h.path, h.start) != (part.path, part.start)]
    return _fit((part, intro, *rest), rare)


def _fit(hits: Sequence[Hit], rare: Sequence[str]) -> tuple[Hit, ...]:
    """The first `MAX_CITED` of `hits`; when none of them holds a `rare` word and a further
    one does, that one in place of the last: `judge` answered because a section to cite
    holds the question's rarest word, and a part read beside the best must not push it out."""
    kept = list(hits[:MAX_CITED])
    if rare and not _holding(kept, rare):
        further = [h for h in hits[MAX_CITED:] if _holding([h], rare)]
        if further:
            kept[-1] = further[0]
    return tuple(kept)


def specific(terms: Sequence[Term]) -> list[str] | None:
    """The words that say what the question asks about: those of its own sentence (or of
    all, `Term.focus`) that are neither plain English nor used in passing, nor a number.
    None when one of them is a word the docs never use: then no section holds them all."""
    content = [
        t
        for t in terms
        if t.focus == 1 and not t.everyday and not t.text.isdigit() and (t.weight or t.absent)
    ]
    if any(t.absent for t in content):
        return None
    return [t.text for t in content]


def together(terms: Sequence[Term], index: DocsIndex) -> tuple[Hit, ...]:
    """The best sections (`MAX_CITED`) that hold every `specific` word of the question:
    where all of what is asked meets in one section, the docs speak of it, whatever plain
    words the question puts around it; none when there is no such section."""
    words = specific(terms)
    if not words:
        return ()
    found = index.search(words, limit=SEARCH_LIMIT * 4)
    return tuple(h for h in found if set(words) <= set(h.matched_terms))[:MAX_CITED]


def _holding(hits: Sequence[Hit], words: Sequence[str]) -> bool:
    """Whether any of `hits` holds any of `words`."""
    return any(set(words) & set(h.matched_terms) for h in hits)


def _rarest(terms: Sequence[Term]) -> list[str]:
    """The question's rarest word (or words, tied), if only a few sections hold it."""
    asked = [t for t in terms if t.asked and not t.absent and not t.everyday and not t.plain]
    top = max((t.weight for t in asked), default=0.0)
    return [t.text for t in asked if t.weight >= top and t.sections <= RARE_SECTIONS]


def _either(terms: Sequence[str]) -> str:
    shown = [f'"{t}"' for t in terms]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
