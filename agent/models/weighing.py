"""The question's search terms, each weighed by its rarity in the docs (the offline model).

Each search term of the question weighs by how rare it is in the docs (BM25's IDF over
sections, from `DocsIndex.term_counts`), never by where it stands in the question. A word
the docs never use weighs twice the rarest word they do use (`ABSENT_WEIGHT`), but for an
everyday word of `SYNONYMS` ("kinds"). A word only of the context around the question
("My scraper hangs. What ...?") weighs an `ASKED_WEIGHT`th, as the search counts it, and
nothing when the docs never use it: the situation says why a question is asked, not what
the docs must cover. But when the question's own sentence holds only everyday words
(`everyday`: "What am I missing?"), all its sentences weigh alike, by rarity alone.

Every tuning constant of the weights is here, with why it has its value; those of the
decline rules are in `agent.models.policy`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from agent.models.quoting import blocks_of
from agent.search import DocsIndex, query_terms
from agent.search.english import EVERYDAY_RANK, is_common, plain_words
from agent.search.query import ALIASES, STOPWORDS, acronyms, alternatives, term_weights
from agent.search.stemming import terms_held

RARE_SECTIONS = 5
"""A question's rarest word that at most this many sections hold is what it asks about
("blame" in "git blame"): when none of the sections that would be cited holds it, the docs
only mention it in passing elsewhere, and a match on the question's other words answers
something else.
Rarer words than that are too common to be the point ("pattern", "default"): 2 to 10 all
declined the same unanswerable questions of the eval sets and no answerable one.
Kept here: `weigh` asks only of words this rare whether they are everyday ones."""

PASSING_MIN = 4
"""Sections a word is held by at least to be judged everyday (`everyday`): one to three
uses say too little of how the docs use it, and a name mentioned once ("Hypothesis",
"PgBouncer", "pinning") is what a question the docs do not answer is about. At 1, the
twelve blind eval sets declined 4 fewer unanswerable questions (43 of 72) and 4 fewer
answerable ones (3 of 267)."""

SMALL_FOLDER = 200
"""Sections a folder holds at most for a word of plain English (`plain_words`) that one to
three of them use to be judged on its use there (`everyday`): in a few pages every word is
rare, and English at large tells a plain word better; in a big folder a plain word that a
page uses once or twice ("blame" in an editor's manual) is a name for something, which
a question the docs do not answer is about."""

PASSING_SAMPLE = 5
"""Sections, those that use a word most (the search's best for it alone), looked at to tell
an everyday word from a distinctive one (`everyday`)."""

ABSENT_WEIGHT = 2.0
"""How many times the rarest word's weight a word of the question the docs never use
gets: a word found nowhere says more about what the docs lack than one found in a few
sections, so it weighs toward declining (`MAX_ABSENT_SHARE`); "generate man page" on docs
that never write "man" is declined, "reject uploads above a certain size" on docs that
never write "reject" is not. A name found nowhere ("QUIC") is declined outright. A word
that has everyday synonyms (`SYNONYMS`: "kinds", which docs write "types") weighs only as
much as the rarest: it is how a question is put, not what it asks about. The cost: on
the httpx and manual eval sets it declines four answerable questions over an everyday
word those docs never write ("turn", "custom", "location")."""

PLAIN_ABSENT = 0.5
"""How many times the rarest word's weight a word of plain English (`is_common`: "often",
"switch", "happen") the docs never use gets: it is how the question is put more than what
it asks about, so it weighs a quarter of what a subject's word the docs lack weighs
(`ABSENT_WEIGHT`), and never declines a question alone."""

PLAIN_USED = 0.5
"""How much a word of plain English that the docs use only in passing (`everyday`) weighs,
against its rarity: "pin" in "pin a certificate's fingerprint" is rare in docs that
mention pinning twice, but says less than the words of the subject around it."""

_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Term:
    """A search term of the question: how many sections hold it, and its weight.

    `asked`: the word is in the question itself, not only in the context around it;
    `name`: the question writes it as a name; `everyday`: the docs use it only in passing
    (`everyday`), as plain English rather than a term of their subject.
    """

    text: str
    sections: int
    weight: float
    asked: bool = True
    name: bool = False
    everyday: bool = False
    plain: bool = False
    """A word of everyday English (`english.EVERYDAY_RANK`): it never is the rarest word a
    question asks about (`policy._rarest`), however few sections use it."""
    focus: float = 1.0
    """How much its place counts: 1, or `1 / ASKED_WEIGHT` for a word only of the context
    (all 1 when the question's own sentence holds only everyday words)."""

    @property
    def absent(self) -> bool:
        return self.sections == 0


def idf(n_sections: int, holding: int) -> float:
    """BM25's inverse document frequency of a term `holding` sections hold."""
    return math.log(1 + (n_sections - holding + 0.5) / (holding + 0.5))


def weigh(question: str, index: DocsIndex) -> list[Term]:
    """The question's search terms, each weighted by its rarity in the docs."""
    texts = query_terms(question)
    if all(t in STOPWORDS or len(t) == 1 for t in texts):
        return []  # "What is it?": nothing to search for
    counts = index.term_counts(texts)
    capitals = [t for t in texts if t in acronyms(question)]
    for word, written in index.written_counts(capitals).items():
        counts[word] = min(counts[word], written)  # "LFS" is not the stemmer's "lf"
    total = max(index.section_count, 1)
    present = [idf(total, counts[t]) for t in texts if counts[t]]
    rarest = max(present, default=idf(total, 0))
    names = _names(question)
    counted = term_weights(question)
    top = max(counted.values())
    context = len(set(counted.values())) > 1

    def judged(t: str) -> bool:  # whether a word is used often enough to tell
        return counts[t] >= PASSING_MIN and t not in names

    passing = everyday([t for t in texts if judged(t) and counts[t] <= RARE_SECTIONS], index)
    plain = plain_words(question, texts) - names  # words of English at large
    passing |= {t for t in plain if not counts[t]}
    fewest = 1 if total < SMALL_FOLDER else PASSING_MIN  # a big folder's own use says more
    told = [t for t in plain - passing if fewest <= counts[t] <= RARE_SECTIONS]
    passing |= everyday(told, index)
    own = [t for t in texts if counted[t] == top]
    alike = context and all(  # "What am I missing?"; stops at the question's first term
        t in passing or (judged(t) and bool(everyday([t], index))) for t in own
    )
    terms = []
    for t in texts:
        asked = counted[t] == top
        focus = 1 if alike else counted[t] / top  # a word only of the context counts less
        if counts[t]:
            base = idf(total, counts[t]) * (PLAIN_USED if t in plain and t in passing else 1)
        elif asked and t not in ALIASES.values():
            base = rarest * (
                PLAIN_ABSENT if t in plain else 1 if alternatives(t) else ABSENT_WEIGHT
            )
        else:
            base = 0.0  # only of the situation, or our alias ("cxx" for C++): not asked
        term = Term(t, counts[t], focus * base, asked=asked, name=t in names, focus=focus)
        very = is_common(t, within=EVERYDAY_RANK)
        terms.append(replace(term, everyday=t in passing, plain=very and t not in names))
    return terms


def everyday(texts: Sequence[str], index: DocsIndex) -> set[str]:
    """The words of `texts` that the docs use only in passing: none of the sections that
    use one most (`PASSING_SAMPLE`, the search's best for it) holds it in a heading or in
    more than one paragraph. A term of the docs' subject is what some section is about, so
    it comes back there ("blame" all over git-blame's page, "timeout" in a heading); a
    plain English word ("stop", "happen", "real") is a word of one sentence, wherever it is.
    Measured on the docs themselves, whatever their language and subject."""
    found = set()
    for text in texts:
        hits = index.search([text], limit=PASSING_SAMPLE)
        if not hits:
            continue
        headings = terms_held([" ".join(h.headings) for h in hits], [text])
        if any(headings):
            continue
        bodies = index.bodies(hits)
        paragraphs = [
            ["\n".join(lines[a : b + 1]) for a, b in blocks_of(lines)] for lines in bodies
        ]
        if all(sum(1 for held in terms_held(p, [text]) if held) <= 1 for p in paragraphs):
            found.add(text)
    return found


def _names(text: str) -> set[str]:
    """Words written as names: capitalised inside a sentence, or with capitals inside."""
    found = set()
    for match in _WORD.finditer(text):
        word, before = match.group(), text[: match.start()].rstrip()
        opens = not before or before[-1] in ".?!:"
        if (word[:1].isupper() and not opens) or word[1:] != word[1:].lower():
            found.add(word.lower())
    return found
