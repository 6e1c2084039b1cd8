"""Which terms a text holds, matched as the index matches them."""

from __future__ import annotations

from agent.models.quoting import QUOTE_LINES, quote_range
from agent.models.weighing import Term
from agent.search.stemming import terms_held


def test_terms_are_held_by_their_stems_synonyms_and_phrases() -> None:
    texts = [
        "Turn on timing with \\timing.",
        "There are four types of timeouts.",
        "Connections are pooled.",
        "The pool timeout is separate.",
    ]
    held = terms_held(texts, ["time", "kinds", "pool timeout", "timeouts"])
    assert held == [{"time"}, {"kinds", "timeouts"}, set(), {"pool timeout", "timeouts"}]
    assert terms_held([], ["time"]) == [] and terms_held(texts[:1], []) == [set()]


def test_the_quote_is_the_paragraph_that_holds_the_words_as_the_index_stems_them() -> None:
    filler = [f"Line {n} is a statement about something else." for n in range(QUOTE_LINES)]
    lines = [*filler, "", "Use \\timing to show how long each statement takes.", ""]
    lines += [f"More text {n}." for n in range(QUOTE_LINES)]
    first, last = quote_range(lines, 1, [Term("time", 3, 5.0), Term("statement", 40, 1.0)])
    assert first <= QUOTE_LINES + 2 <= last  # "timing" is "time" to the index
