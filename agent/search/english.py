"""Plain English: whether a word is common in English at large, whatever the docs' subject.

A folder's own statistics cannot tell a plain word from a term of its subject when the
folder is small: in three files every word is rare. How often a word is used in English
at large can: "often", "switch", "happen" and "ready" are common everywhere, "timeout",
"leadscrew" and "QUIC" are not. The list is `data/english/words.txt` (drawn from
wordfreq's English frequencies; its header names the source and licence), read once,
on the first question.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path

COMMON_RANK = 3000
"""Words at most this far down the list (Zipf frequency about 4.5, once in 30,000 words:
"often", "switch", "fix", "safe", "ready") are common English; rarer ones ("database",
"proxy", "grease", "timeout") may be words of a subject."""

VERB_RANK = 8000
"""How far down the list a verb of the asking ("how do I bump ...", "I want to tweak ...")
is still common English (Zipf frequency about 4: "bump" is 7,201st): the action a question
asks for is put in the asker's words, the docs' own verb is often another."""

EVERYDAY_RANK = 2000
"""Words this common ("often", "fix", "ready", "unit", "test") are never what a question
is about, however few sections of the docs use them; rarer common words ("blame",
"switch") can be, in a big folder that uses them once or twice: a name for something."""


def _list_file() -> Path:
    """The word list: from an installed wheel, or from a checkout."""
    try:
        from importlib.resources import files

        bundled = Path(str(files("docsagent_data") / "english" / "words.txt"))
        if bundled.is_file():
            return bundled
    except (ModuleNotFoundError, TypeError):
        pass
    return Path(__file__).resolve().parents[2] / "data" / "english" / "words.txt"


@functools.cache
def ranks() -> dict[str, int]:
    """Each listed word's place in the list, 0 for the most frequent ("the")."""
    try:
        text = _list_file().read_text(encoding="utf-8")
    except OSError:
        return {}  # without the list every word counts as a subject's: the old behaviour
    listed = [line.strip() for line in text.splitlines() if line and not line.startswith("#")]
    return {word: n for n, word in enumerate(listed)}


def is_common(word: str, *, within: int = COMMON_RANK) -> bool:
    """Whether `word` (lower case, one word) is among the `within` most common English words."""
    rank = ranks().get(word)
    return rank is not None and rank < within


_ASKING = re.compile(
    r"\b(?:do|does|can|could|should|would|will|must|to|please|how)\s+(?:i\s+|we\s+|you\s+)?"
    r"([a-z]+)",
    re.IGNORECASE,
)


def asked_verbs(question: str) -> set[str]:
    """The words a question puts where its verb goes: after "do I", "can we", "to", ..."""
    return {m.group(1).lower() for m in _ASKING.finditer(question)}


def plain_words(question: str, words: Iterable[str]) -> set[str]:
    """Those of `words` (the question's, lower case) that are common English: among the
    `COMMON_RANK` most common, or the `VERB_RANK` most common where they are its verb."""
    verbs = asked_verbs(question)
    return {w for w in words if is_common(w) or (w in verbs and is_common(w, within=VERB_RANK))}
