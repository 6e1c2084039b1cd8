"""The offline model on a folder of three short pages (a bench lathe's manual): every word
is rare in so few sections, so what is plain English is told by English at large, and a
question is declined only when the docs lack what it asks about."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.models.weighing import weigh
from agent.search import DocsIndex
from agent.search.english import is_common
from agent.tools.corpus import Corpus
from tests.agent.test_offline import converse

WORKSHOP = Path(__file__).resolve().parents[1] / "fixtures" / "workshop"


def cites(answer: str, line: str) -> bool:
    """Whether the answer's source range holds `line` ("care.md:5")."""
    found = re.search(r"^Source: (\S+):(\d+)-(\d+)$", answer, re.MULTILINE)
    assert found, answer
    path, number = line.split(":")
    return found[1] == path and int(found[2]) <= int(number) <= int(found[3])


@pytest.mark.parametrize(
    ("question", "line", "quoted"),
    [
        ("How often should I oil the gears?", "care.md:5", "every 40 hours"),
        ("What voltage does the machine need?", "setup.md:8", "230 V"),
        ("What grease should I use on the leadscrew?", "care.md:9", "lithium grease"),
        ("Is it safe to use compressed air for cleaning?", "care.md:15", "do not use it"),
        ("The motor just hums. How do I fix that?", "troubleshooting.md:5", "capacitor"),
    ],
)
def test_a_question_the_folder_answers_is_answered_with_its_line(
    question: str, line: str, quoted: str
) -> None:
    answer, _ = converse(WORKSHOP, question)
    assert answer.startswith("According to"), answer
    assert cites(answer, line), answer
    assert quoted in answer


@pytest.mark.parametrize(
    "question",
    [
        "How do I replace the spindle bearings?",
        "Which cutting speed should I use for brass?",
        "Can I connect the lathe to a CNC controller?",
    ],
)
def test_a_topic_the_folder_never_mentions_is_declined(question: str) -> None:
    answer, _ = converse(WORKSHOP, question)
    assert answer.startswith("The docs don't seem to cover this"), answer
    assert "Source:" not in answer


def test_plain_english_is_judged_by_english_at_large_not_by_three_pages() -> None:
    assert is_common("often") and is_common("switch") and is_common("happen")
    assert not is_common("leadscrew") and not is_common("timeout") and not is_common("quic")
    terms = {
        t.text: t
        for t in weigh("How often should I oil the gears?", DocsIndex(Corpus.open(WORKSHOP)))
    }
    assert terms["often"].absent and terms["often"].everyday
    assert not terms["gears"].everyday
    assert terms["often"].weight < terms["gears"].weight  # how it is asked, not what
