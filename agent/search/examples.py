"""Example questions drawn from a docs folder's own headings, for a welcome screen.

A heading that is already a question stays one ("Which files count as docs?"); one that
tells you to do something becomes "How do I ...?" ("Set the API key" → "How do I set
the API key?", "Sending JSON Encoded Data" → "How do I send JSON encoded data?"); other
headings are passed over, since "Timeouts" or "The agent loop" does not read as a
question. Picks are spread over the folder, one per doc, and the same docs always give
the same examples.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from agent.search.sections import without_trailing

QUESTION_WORDS = frozenset(
    {"how", "what", "which", "why", "when", "where", "who", "can", "do", "does", "is", "are"}
)
VERBS = frozenset(
    {
        "add", "ask", "build", "call", "cancel", "change", "check", "choose", "configure",
        "connect", "copy", "create", "customize", "debug", "define", "disable", "enable",
        "export", "find", "handle", "inspect", "install", "keep", "make", "mock", "open",
        "pass", "read", "replay", "run", "send", "set", "share", "start", "stop", "stream",
        "test", "uninstall", "update", "upgrade", "upload", "use", "write",
    }
)  # fmt: skip
"""Verbs a docs heading starts with when it says how to do something."""
NOUN_LIKE = frozenset(
    {"build", "call", "change", "check", "copy", "export", "find", "handle", "keep", "mock",
     "replay", "run", "set", "share", "start", "stop", "stream", "test", "update", "upgrade",
     "upload", "use"}
)  # fmt: skip
"""Verbs that are nouns too ("Replay keys"): as a heading's first word, they must be
followed by a word that shows a verb ("Replay a trace")."""
OBJECT_WORDS = frozenset(
    {"a", "an", "the", "your", "my", "one", "another", "each", "every", "all", "any", "some",
     "its", "their", "with", "from", "in", "on", "to", "for", "up", "out"}
)  # fmt: skip
DOUBLED = frozenset({"run", "set", "stop", "get"})
"""Verbs whose -ing form doubles the last letter (`setting`)."""
NOT_DOCS = ("license", "licence", "code_of_conduct", "code-of-conduct", "changelog", "contributing")
"""Docs about the project rather than its use: no examples from them."""
PRONOUNS = frozenset({"it", "this", "that", "them", "one", "these", "those"})
MAX_WORDS = 9
_NUMBER = re.compile(r"^(?:(?:[A-Z]|\d+)(?:\.\d+)*\.|\d+(?:\.\d+)+)\s+")
"""A numbered heading's number: "32.2. ", "F.10. ", "1.2 " (not the "3" of "3 ways")."""


def _gerund(verb: str) -> str:
    if verb in DOUBLED:
        return verb + verb[-1] + "ing"
    if verb.endswith("e") and not verb.endswith("ee"):
        return verb[:-1] + "ing"
    return verb + "ing"


GERUNDS = {_gerund(verb): verb for verb in VERBS}


def as_question(heading: str) -> str | None:
    """`heading` as a question a person might ask, or None when it does not read as one."""
    text = " ".join(heading.split())
    if text.endswith("?"):  # "32.2. When to JIT?": the number is no part of the question
        text = _NUMBER.sub("", text)
    if ": " in text:  # "Escape: cancel a run": the part after the colon says what it does
        text = text.split(": ", 1)[1]
    text = without_trailing(text, "(", ")").rstrip(" .:~")  # "Step limit (--max-steps)"
    words = text.split()
    if not 2 <= len(words) <= MAX_WORDS or any(c in text for c in "`*[]<>{}|#=_\\\"'"):
        return None
    first = words[0].lower()
    if text.endswith("?") or (first in QUESTION_WORDS and len(words) >= 3):
        question = text.rstrip("?")
        return f"{question[0].upper()}{question[1:]}?" if _reads_as_question(words) else None
    if first in VERBS and all(word.isupper() for word in words):
        return f"How do I use {text}?"  # a command's name: "CREATE TABLE", "ALTER ROLE"
    verb = first if first in VERBS else GERUNDS.get(first)
    if verb is None or words[-1].lower() in PRONOUNS or words[1].lower() == "and":
        return None
    if first == verb and verb in NOUN_LIKE and words[1].lower() not in OBJECT_WORDS:
        return None
    rest = [_lowered(word) for word in words[1:]]
    if first != verb and "and" in rest:  # "Enabling and disabling ...": both verbs
        after = rest[rest.index("and") + 1 :]
        if after[:1] and after[0].endswith("ing"):
            if after[0] not in GERUNDS:
                return None  # "Opening and closing": no plain form known for the second
            rest[rest.index("and") + 1] = GERUNDS[after[0]]
    rest = ["my" if word == "your" else word for word in rest]
    return f"How do I {' '.join([verb, *rest])}?"


def _reads_as_question(words: Sequence[str]) -> bool:
    """True for "How do I ...", "Which files count ...", not a clause ("How the agent works")."""
    second = words[1].lower()
    if words[0].lower() in {"which", "what", "who"}:
        return second not in {"the", "a", "an", "this", "your", "docsagent"}
    return second in QUESTION_WORDS | {"should", "could", "will", "would", "did", "i", "to"}


def _lowered(word: str) -> str:
    """Title-case words lowered ("Encoded" → "encoded", "A" → "a"); names and acronyms
    kept ("JSON")."""
    return word.lower() if word == "A" or (word[:1].isupper() and word[1:].islower()) else word


def example_questions(headings: Iterable[tuple[str, str]], count: int = 3) -> list[str]:
    """Up to `count` questions from (doc path, heading) pairs given in reading order.

    Each doc gives at most its first heading that reads as a question; the picks are
    spread evenly over the docs that give one.
    """
    per_doc: dict[str, str] = {}
    for path, heading in headings:
        name = path.lower().rsplit("/", 1)[-1]
        if path in per_doc or name.startswith(NOT_DOCS):
            continue
        question = as_question(heading)
        if question is not None and question not in per_doc.values():
            per_doc[path] = question
    found = list(per_doc.values())
    if len(found) <= count:
        return found
    return [found[(2 * i + 1) * len(found) // (2 * count)] for i in range(count)]
