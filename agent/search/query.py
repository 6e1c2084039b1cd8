"""From free text to a search: the terms worth searching, and a safe FTS5 query.

Words are split the way the index's `unicode61` tokenizer splits them (letters and
digits; everything else separates), so a term here is a term there. Stopwords are
dropped unless nothing else is left. A phrase in double quotes stays one term. Each
term is quoted in the FTS5 query, so no input can be read as query syntax: `AND`,
`NEAR`, `*`, `"` or `:` in a question are just text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

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
    yours yourself yourselves tell know want need use using used able make one
    couple several many lot lots whenever wherever whatever however also vs versus
    """.split()
)
"""Words too common in questions to say what one is about. "vs" and "versus" compare two
things the question names: searched, "vs" matches every "VS Code" section."""

ASKED_WEIGHT = 8
"""How many times a word of the question counts against a word of the context around it
("My scraper hangs on slow servers. What kinds of timeouts are there?"): the situation
says why it is asked, the sentence with the question mark says what is asked. At 2 the
context's many words outweighed the question's few and led to sections about the
situation (4 of 12 context wordings of the eval sets missed); at 4 and 8, 2 missed and
the context only breaks ties."""

ALIASES = {"c++": "cxx"}
"""Names the tokenizer cannot spell, and the word docs write for them instead: "C++"
splits to the letter "c", which is never searched, while build files and APIs spell it
CXX (`CMAKE_CXX_STANDARD`, `CXXFLAGS`). A docs folder that never writes the alias is
searched as before: the alias weighs nothing there (see the offline model's `weigh`)."""

SYNONYMS = (
    ("kind", "type"),
    ("flag", "option"),
    ("folder", "directory"),
    ("delete", "remove"),
    ("price", "cost"),
    ("replace", "substitute"),
    ("find", "search"),
)
"""Words of a question that docs often write another way: a word searched also finds
the others of its group, and counts as held where they are. Only everyday words whose
meaning does not change between projects; a project's own terms stay its own."""

IRREGULAR = tuple(
    tuple(group.split("/"))
    for group in """
    take/took/taken run/ran write/wrote/written rewrite/rewrote/rewritten
    override/overrode/overridden undo/undid/undone begin/began/begun choose/chose/chosen
    send/sent keep/kept lose/lost hold/held
    break/broke/broken hide/hid/hidden show/shown freeze/froze/frozen throw/threw/thrown
    hang/hung stick/stuck forget/forgot/forgotten understand/understood spend/spent
    bring/brought fall/fell/fallen draw/drew/drawn think/thought pay/paid say/said
    forbid/forbade/forbidden
    """.split()
)
"""The forms of irregular verbs, which the Porter stemmer leaves apart ("took" never
meets "taken"): a question asks "how long each request took", the docs say "the time
taken to serve the request". Searched like `SYNONYMS`. Verbs whose forms are also other
words are left out ("left", "saw", "go" and "went", "mean" and "meant", "given" as in
"at a given time", "built" as in "built-in")."""

UNITS = (
    ("voltage", "volt", "v"),
    ("wattage", "watt", "w"),
)
"""A quantity a question asks for, and how docs write its amount: "What voltage does it
need?" is answered by "runs on 230 V", which never writes the word. Searched like
`SYNONYMS`; only units whose symbol means nothing else in a sentence about an amount."""

_ALTERNATIVES = {
    word: [w for w in group if w != word]
    for group in SYNONYMS + IRREGULAR + UNITS
    for word in group
    if len(word) > 1  # a unit's symbol is searched for its quantity, not the other way
}


def alternatives(word: str) -> list[str]:
    """The other words of `word`'s `SYNONYMS` group ("kinds": ["type"]; the index stems).

    A phrase with an alias in it is also searched as the tokenizer spells the name
    ("cxx standard": ["c standard"]): inside a phrase the letter is searched in place,
    and docs that write "the C++ standard" hold only that spelling.
    """
    if " " in word:
        spelled = " ".join(_SPELLED.get(w, w) for w in word.split())
        if spelled != word:
            return [spelled]
        return ["".join(word.split())]  # "max retries" is also `maxRetries`, one token
    singular = [word, word.removesuffix("s"), word.removesuffix("es")]
    if word.endswith("ies"):
        singular.append(word[:-3] + "y")  # directories
    return next((_ALTERNATIVES[w] for w in singular if w in _ALTERNATIVES), [])


_ALIASED = re.compile(  # a whole word: "libc++" is a name of its own, "c++17" is C++
    "|".join(rf"(?<![\w+]){re.escape(name)}(?![^\W\d]|[_+])" for name in ALIASES), re.IGNORECASE
)
_WORD = re.compile(r"[^\W_]+")
_SPELLED = {alias: " ".join(_WORD.findall(name)) for name, alias in ALIASES.items()}  # cxx: c
_PHRASE = re.compile(r'"([^"]*)"')
_NEGATED = re.compile(r"\b\w+n['’]t\b", re.IGNORECASE)
"""A negated auxiliary (doesn't, can't): a function word, which the tokenizer would
split into a fragment no doc spells alone ("doesn")."""


_IDENTIFIER = re.compile(
    r"(?<![\w.-])(?:[A-Za-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+|[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+)(?![\w-])"
)
"""An identifier written in camelCase, PascalCase or snake_case (`maxRetries`,
`MaxRetries`, `max_retries`): searched as the phrase of its parts, which also finds it
written as one word (`alternatives`), so each spelling finds the others and the words it
is made of ("max retries")."""
_HUMP = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def parts(identifier: str) -> list[str]:
    """The lower-case words an identifier is made of (`maxRetries`: max, retries)."""
    return [p.lower() for piece in identifier.split("_") for p in _HUMP.findall(piece) if p]


def words(text: str) -> list[str]:
    """The lower-case words of `text`, as the index's tokenizer finds them."""
    return [w.lower() for w in _WORD.findall(text)]


SHOUTED_WORDS = 3
"""Words a text written all in capitals holds at least to be shouted, not a name or two
("GIT LFS")."""


def acronyms(text: str) -> set[str]:
    """The words `text` writes all in capitals ("LFS", "GIL"), lowered. They are matched
    as written (`written`): the stemmer reads some as another word's plural ("LFS" as
    "lf", the line feed every text format mentions). A text of three words or more with
    no lower-case letter is shouted, and none of its words stands out as a name: matched
    as written, "TIMEOUTS" would miss every "timeout"."""
    found = _WORD.findall(text)
    if len(found) >= SHOUTED_WORDS and not any(c.islower() for c in text):
        return set()
    return {w.lower() for w in found if len(w) > 1 and w.isupper()}


def written(word: str) -> re.Pattern[str]:
    """A pattern finding `word` as written, case aside, alone or with a plural "s"."""
    return re.compile(rf"(?<![^\W_]){re.escape(word)}s?(?![^\W_])", re.IGNORECASE)


def query_terms(text: str) -> list[str]:
    """The distinct terms worth searching for in `text`, in order (a phrase has spaces).

    Stopwords, negated auxiliaries and single letters are dropped, unless that would
    leave nothing. Past `MAX_TERMS`, the question's own terms are kept first: a long
    context before it must not crowd out what is asked.
    """
    terms = _terms(text)
    if len(terms) <= MAX_TERMS:
        return terms
    asked = set(_terms(" ".join(_asked(text))))
    first = [t for t in terms if t in asked] + [t for t in terms if t not in asked]
    kept = set(first[:MAX_TERMS])
    return [t for t in terms if t in kept]


def _terms(text: str) -> list[str]:
    """`query_terms` without a limit."""
    text = _ALIASED.sub(lambda m: f" {ALIASES[m.group().lower()]} ", text)
    phrases = [" ".join(words(p)) for p in _PHRASE.findall(text)]
    rest = _PHRASE.sub(" ", text)
    phrases += [" ".join(parts(m.group())) for m in _IDENTIFIER.finditer(rest)]
    rest = _NEGATED.sub(" ", _IDENTIFIER.sub(" ", rest))
    tokens = words(rest)
    kept = [t for t in tokens if t not in STOPWORDS and (len(t) > 1 or t.isdigit())]
    phrases = [p for p in phrases if p]
    terms = phrases + (kept or ([] if phrases else tokens))
    return list(dict.fromkeys(terms))


def term_weights(text: str) -> dict[str, int]:
    """Each of `query_terms(text)` with how many times it counts: 1, or `ASKED_WEIGHT`
    for a word of the question when there is context around it.

    The question is the sentences that end with a question mark; text with none, or
    with nothing else, is all question, and all its terms count once.
    """
    terms = query_terms(text)
    asked = _asked(text)
    if not asked:
        return dict.fromkeys(terms, 1)
    held = set(_terms(" ".join(asked)))
    return {t: ASKED_WEIGHT if t in held else 1 for t in terms}


def _asked(text: str) -> list[str]:
    """The sentences of `text` that end with a question mark, when others are around them."""
    sentences = [s for s in _sentences(text) if s.strip()]
    asked = [s for s in sentences if s.rstrip().endswith("?")]
    return asked if len(asked) < len(sentences) else []


def _sentences(text: str) -> list[str]:
    """`text` cut after each `.`, `?` or `!` that ends a sentence (a space or the end follows)."""
    # From a run's first mark only: tried from each mark, a long run of dots was quadratic.
    cuts = [m.end() for m in re.finditer(r"(?<![.?!])[.?!]+(?=\s|$)", text)]
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def match_expression(
    terms: Sequence[str], weights: Mapping[str, int] | None = None, *, synonyms: bool = True
) -> str:
    """The FTS5 query matching a section that holds any of `terms` (each quoted).

    A word with `SYNONYMS` is searched as any of its group. A term with a weight of n
    is repeated n times: FTS5's bm25() sums over the query's phrases, so a phrase given
    twice counts twice.
    """
    quoted: dict[str, int] = {}
    for term in terms:
        cleaned = " ".join(words(term))
        if cleaned:
            forms = [cleaned, *(alternatives(cleaned) if synonyms else [])]
            phrase = " OR ".join('"' + form.replace('"', '""') + '"' for form in forms)
            phrase = f"({phrase})" if len(forms) > 1 else phrase
            quoted[phrase] = max(quoted.get(phrase, 1), (weights or {}).get(term, 1))
    return " OR ".join(phrase for phrase, n in quoted.items() for _ in range(n))
