"""From free text to a search: the terms worth searching, and a safe FTS5 query.

Words are split the way the index's `unicode61` tokenizer splits them (letters and
digits; everything else separates), so a term here is a term there. Stopwords are
dropped unless nothing else is left. A phrase in double quotes stays one term. Each
term is quoted in the FTS5 query, so no input can be read as query syntax: `AND`,
`NEAR`, `*`, `"` or `:` in a question are just text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MAX_TERMS = 32
"""Terms searched at most: a pasted page must not become a query of thousands of terms."""

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing done down during each else
    few for from further get gets got had has have having he her here hers herself him
    himself his how i if in into is it its itself just let like may me might more most must
    my myself no nor not now of off on once only or other our ours ourselves out over own
    please same shall she should so some such than that the their theirs them themselves
    then there these they this those through to too under until up us very was way we were
    what when where which while who whom whose why will with within without would you your
    yours yourself yourselves tell know want need use using used able
    """.split()
)
"""Words too common in questions to say what one is about."""

_WORD = re.compile(r"[^\W_]+")
_PHRASE = re.compile(r'"([^"]*)"')
_NEGATED = re.compile(r"\b\w+n['’]t\b", re.IGNORECASE)
"""A negated auxiliary (doesn't, can't): a function word, which the tokenizer would
split into a fragment no doc spells alone ("doesn")."""


def words(text: str) -> list[str]:
    """The lower-case words of `text`, as the index's tokenizer finds them."""
    return [w.lower() for w in _WORD.findall(text)]


def query_terms(text: str) -> list[str]:
    """The distinct terms worth searching for in `text`, in order (a phrase has spaces).

    Stopwords, negated auxiliaries and single letters are dropped, unless that would
    leave nothing.
    """
    phrases = [" ".join(words(p)) for p in _PHRASE.findall(text)]
    rest = _NEGATED.sub(" ", _PHRASE.sub(" ", text))
    tokens = words(rest)
    kept = [t for t in tokens if t not in STOPWORDS and (len(t) > 1 or t.isdigit())]
    terms = [p for p in phrases if p] + (kept or tokens)
    return list(dict.fromkeys(terms))[:MAX_TERMS]


def match_expression(terms: Sequence[str]) -> str:
    """The FTS5 query matching a section that holds any of `terms` (each quoted)."""
    quoted = []
    for term in terms:
        cleaned = " ".join(words(term))
        if cleaned:
            quoted.append('"' + cleaned.replace('"', '""') + '"')
    return " OR ".join(dict.fromkeys(quoted))
