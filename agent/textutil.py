"""Search terms from a question (tokens, stopwords, stems, phrases); text scored on them."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

_STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be been before
    being below between both but by can could did do does doing done down during each
    either else etc ever every few for from further get gets getting give go going got had
    has have having he her here hers him his how i if in into is it its itself just know
    let like me might mine more most much must my myself need needs no nor not now of off
    on once only or other our ours out over own please possible possibly same shall she
    should so some such tell than thank thanks that the their theirs them then there these
    they thing things this those through thus to too under until up upon us use used uses
    using via want wants was way ways we were what whatever when where whether which while
    who whom whose why will with within without would yes yet you your yours
    work works working happen happens mean means explain describe hi hello hey
    """.split()
)

# Words that frame a question ("what kinds of X") rather than name its topic.
_FRAMING = frozenset("kind kinds type types sort sorts variety varieties different".split())
_LISTING = frozenset("kinds types sorts varieties which list options available".split())
_PROTECTED = frozenset("https dns ssl tls class less unless always status bus gas".split())
_TOKEN = re.compile(r"[^\W_][\w./+#-]*(?:[^\W_]|[+#])|[^\W_]")
# What may follow a stem within one word: the endings of its inflections and close
# derivations (timeout-s, repla-yed, verif-ication, configur-ing), not a new word part
# (capital-ization, life-span). A doubled final consonant is allowed (log-ging).
_ENDING = re.compile(
    r"(?:(?:ic)?at(?:e|ing|ions?)|ic|ie|e|y|i)?(?:s|es|d|ed|ing|ings|ions?|ers?|ly)?"
)
_LETTERS = r"[^\W\d_]*"
_QUOTED = re.compile(r"\"([^\"]+)\"|`([^`]+)`|(?<![a-z])'([^']+)'(?![a-z])")


@dataclass(frozen=True)
class Query:
    """What the offline model searches for: weighted terms, phrases and soft hints."""

    text: str
    terms: tuple[str, ...]
    phrases: tuple[str, ...] = ()
    bigrams: tuple[str, ...] = ()
    soft: tuple[str, ...] = ()
    wants_list: bool = False
    wants_how: bool = False
    wants_definition: bool = False

    @property
    def keywords(self) -> tuple[str, ...]:
        """Quoted phrases, then terms, then bigrams: the order searches are issued in."""
        ordered = self.phrases + self.terms + self.bigrams
        return tuple(dict.fromkeys(ordered))


def stem(word: str) -> str:
    """A light suffix-stripping stem whose prefix matches the word's other forms."""
    if not word.isalpha() or len(word) <= 3 or word in _PROTECTED:
        return word
    for suffix in ("ications", "ication", "ations", "ation", "ings", "ing", "ied", "ies"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    base = word
    if base.endswith(("sses", "xes", "ches", "shes")):
        base = base[:-2]
    elif base.endswith("s") and not base.endswith(("ss", "us", "is")):
        base = base[:-1]
    elif base.endswith("ed") and len(base) >= 6:
        base = base[:-2]
    if base.endswith("y") and len(base) >= 5:
        base = base[:-1]
    if base.endswith("e") and len(base) >= 5:
        base = base[:-1]
    return base


def tokens(text: str) -> list[str]:
    """Lowercase word tokens, keeping dotted and slashed names like `http/2`."""
    return _TOKEN.findall(text.lower())


def parse_query(question: str, *, limit: int = 6) -> Query:
    """The search terms of a question: stems of its content words, quoted phrases, bigrams."""
    lowered = question.lower()
    phrases: list[str] = []
    for match in _QUOTED.finditer(lowered):
        phrase = " ".join((match.group(1) or match.group(2) or match.group(3)).split())
        if len(phrase) >= 2 and phrase not in phrases:
            phrases.append(phrase)
    words = tokens(_QUOTED.sub(" ", lowered))
    terms: list[str] = []
    bigrams: list[str] = []
    previous: str | None = None
    for word in words:
        if word in _STOPWORDS or word in _FRAMING or (len(word) < 2 and not word.isdigit()):
            previous = None
            continue
        term = stem(word)
        if term not in terms:
            terms.append(term)
        if previous is not None:
            bigrams.append(f"{previous} {term}")
        previous = word
    for phrase in phrases:
        for word in tokens(phrase):
            if word not in _STOPWORDS and stem(word) not in terms and len(word) > 1:
                terms.append(stem(word))
    framing = any(w in _FRAMING and w != "different" for w in words)
    return Query(
        text=question,
        terms=tuple(terms[:limit]),
        phrases=tuple(phrases[:2]),
        bigrams=tuple(bigrams[:2]),
        soft=("kind", "type", "sort") if framing else (),
        wants_list=any(w in _LISTING for w in words),
        wants_how=bool(words) and words[0] in ("how", "can", "could", "is", "do"),
        wants_definition=" ".join(words[:2]) in ("what is", "what are", "what's")
        or bool(words)
        and words[0] in ("define", "explain", "describe"),
    )


def _lenient(word: str) -> str:
    """`word` as a regex where punctuation between letters or digits is optional."""
    parts = re.findall(r"[a-z0-9]+|[^a-z0-9]", word)
    out = []
    for i, part in enumerate(parts):
        inner = 0 < i < len(parts) - 1 and parts[i - 1][0].isalnum() and parts[i + 1][0].isalnum()
        out.append(r"[^\sa-z0-9]?" if inner and not part[0].isalnum() else re.escape(part))
    return "".join(out)


@lru_cache(maxsize=1024)
def term_pattern(term: str) -> re.Pattern[str]:
    """A case-insensitive pattern for `term` at a word start, lenient about punctuation.

    `http/2` also matches `http2` and `HTTP-2`; `event hook` also matches `event_hooks`.
    The group `rest` holds the letters after the term up to the end of the word.
    """
    body = r"[\s_-]+".join(_lenient(part) for part in term.lower().split())
    return re.compile(r"(?<![^\W_])" + body + f"(?P<rest>{_LETTERS})", re.IGNORECASE)


def is_form(term: str, rest: str) -> bool:
    """Whether `term` followed by the letters `rest` is a form of the term's word.

    A stem matches its inflections (`timeout` → timeouts, `repla` → replayed) but not
    a longer, unrelated word (`capital` → capitalization).
    """
    rest = rest.lower()
    if not rest or not term[-1:].isalpha():
        return True
    if len(rest) > 1 and rest[0] == term[-1] and rest[0] not in "aeiouy":
        rest = rest[1:]  # a doubled final consonant: log-ging, set-ting
    return _ENDING.fullmatch(rest) is not None


def count_terms(text: str, terms: tuple[str, ...]) -> dict[str, int]:
    """How often each term occurs as a word, or a form of one, in `text` (absent terms omitted)."""
    counts: dict[str, int] = {}
    for term in terms:
        found = sum(is_form(term, m["rest"]) for m in term_pattern(term).finditer(text))
        if found:
            counts[term] = found
    return counts


def near(text: str, first: str, second: str, *, gap: int = 4) -> bool:
    """Whether `first` occurs at most `gap` words before `second` in `text`."""
    words = tokens(text)
    first_at = [i for i, w in enumerate(words) if w.startswith(first.split()[0])]
    second_at = [i for i, w in enumerate(words) if w.startswith(second.split()[0])]
    return any(0 < j - i <= gap for i in first_at for j in second_at)


def doc_name(path: str, title: str = "") -> str:
    """The words a doc is named by: its path's, without the extension, and its title's."""
    stem_path = re.sub(r"\.[a-z0-9]+$", "", path.lower())
    return " ".join([re.sub(r"[/_.-]+", " ", stem_path), title]).strip()


def name_share(name: str, weights: Mapping[str, float]) -> float:
    """The share of the terms' weight that a doc's name holds: 1.0 when it names them all."""
    total = sum(weights.values())
    named = count_terms(name, tuple(weights)) if name and total else {}
    return sum(weights[t] for t in named) / total if total else 0.0


def _soft_weight(weights: Mapping[str, float]) -> float:
    return 0.5 * max(weights.values(), default=1.0)


def text_score(text: str, query: Query, weights: Mapping[str, float]) -> float:
    """Weighted term matches with diminishing repeats, framing words, and nearby term pairs."""
    counts = count_terms(text, tuple(weights))
    score = sum(weights[t] * (1 + 0.3 * math.log(n)) for t, n in counts.items())
    soft = [t for t in query.soft if count_terms(text, (t,))]
    score += _soft_weight(weights) if soft else 0.0
    present = [t for t in query.terms if t in counts] + soft[:1]
    for i, first in enumerate(present):
        for second in present[i + 1 :]:
            if near(text, first, second) or near(text, second, first):
                score += 0.5 * (weights.get(first, 0.0) + weights.get(second, 0.0))
    return score
