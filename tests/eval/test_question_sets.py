from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from agent import load_questions
from tests.eval.sets import (
    BENCH_SETS,
    BLIND_SETS,
    FIRST_HITS,
    FRESH_SETS,
    HELDOUT_SETS,
    HERE,
    SPENT_SETS,
    WRITTEN_FOR,
    chosen,
    digest,
    drift,
    hashes,
    locate,
    question_file,
    source,
)

ALL_SETS = BENCH_SETS + HELDOUT_SETS
WORDINGS = ["asked", "terse", "context"]


def test_the_sets_hold_at_least_60_questions_over_at_least_four_doc_sets() -> None:
    counts = {name: len(load_questions(question_file(name))) for name in ALL_SETS}
    assert len(counts) >= 4
    assert sum(counts.values()) >= 60
    assert sum(counts[name] for name in BENCH_SETS) >= 60


@pytest.mark.parametrize("name", ALL_SETS)
def test_each_base_question_comes_in_three_wordings(name: str) -> None:
    bases: dict[str, list[str]] = defaultdict(list)
    for question in load_questions(question_file(name)):
        assert question.base, f"{question.id} names no base question"
        assert question.id == f"{question.base}-{question.wording}"
        bases[question.base].append(question.wording)
    assert all(wordings == WORDINGS for wordings in bases.values())


@pytest.mark.parametrize("name", ALL_SETS)
def test_each_set_has_answerable_and_unanswerable_questions(name: str) -> None:
    questions = load_questions(question_file(name))
    answerable = [q for q in questions if q.answerable]
    assert all(q.evidence and q.must_mention for q in answerable)
    assert len(answerable) >= 15
    assert len(questions) - len(answerable) >= 3


@pytest.mark.parametrize("name", ["manual", "httpx"])
def test_evidence_ranges_lie_inside_their_docs_and_hold_the_terms(name: str) -> None:
    docs = locate((name,), install=False).get(name)
    if docs is None:
        pytest.skip(f"the {name} docs are not here")
    assert drift(load_questions(question_file(name)), docs) == []


@pytest.mark.parametrize("name", list(WRITTEN_FOR))  # every Debian set, bench and held out
def test_debian_doc_sets_match_when_installed(name: str) -> None:
    docs = locate((name,), install=False).get(name)
    if docs is None:
        pytest.skip(f"the {name} docs are not installed (tests/eval/fetch_docs.sh {name})")
    if not str(docs).endswith(str(WRITTEN_FOR[name])):  # or unpacked in a cache (node)
        pytest.skip(f"the {name} set counts lines of {WRITTEN_FOR[name]}, not {docs}")
    assert drift(load_questions(question_file(name)), docs) == []


def test_manual_evidence_ranges_start_at_a_heading() -> None:
    """The manual changes with the product: a section added above an answer moves its
    lines, and a range that no longer starts at a heading points at something else."""
    manual = Path(__file__).resolve().parents[2] / "data" / "manual"
    moved = []
    for question in load_questions(question_file("manual")):
        for e in question.evidence:
            line = (manual / e.path).read_text(encoding="utf-8").splitlines()[e.start - 1]
            if not line.startswith("#"):
                moved.append(f"{question.id}: {e} starts at {line[:40]!r}")
    assert moved == []


def test_fetch_docs_finds_the_bench_sets_by_default_and_knows_every_set() -> None:
    script = (HERE / "fetch_docs.sh").read_text(encoding="utf-8")
    default = re.search(r"&& sets=\(([^)]*)\)", script)
    known = re.search(r"\(sets: ([^)]*)\)", script)
    assert default is not None and known is not None
    assert tuple(default[1].split()) == BENCH_SETS
    assert tuple(known[1].split()) == ALL_SETS


def test_a_run_measures_the_sets_picked_in_their_group_order() -> None:
    assert chosen(None, heldout=False) == BENCH_SETS
    assert chosen([], heldout=True) == HELDOUT_SETS
    assert chosen(["apache"], heldout=True) == ("apache",)
    assert chosen(["vim", "cmake"], heldout=False) == ("cmake", "vim")
    assert chosen(None, heldout=False, blind=True) == BLIND_SETS
    assert set(BLIND_SETS) == set(FIRST_HITS) and sum(FIRST_HITS.values()) == 150 + 18


def test_a_held_out_set_is_never_picked_without_heldout() -> None:
    with pytest.raises(ValueError, match="not a bench set: apache; .*--heldout"):
        chosen(["apache"], heldout=False)
    with pytest.raises(ValueError, match="not a held-out set: vim"):
        chosen(["vim"], heldout=True)


@pytest.mark.parametrize("name", FRESH_SETS + SPENT_SETS)
def test_a_fresh_blind_set_is_unchanged_since_it_was_committed(name: str) -> None:
    """Its hash is the one committed with it, before the rules it judges: a question edited
    after a run would no longer measure docs nobody tuned for."""
    assert digest(question_file(name)) == hashes()[f"{name}.jsonl"]


@pytest.mark.parametrize("name", FRESH_SETS + SPENT_SETS)
def test_a_fresh_blind_set_has_25_answerable_and_5_unanswerable_questions(name: str) -> None:
    questions = load_questions(question_file(name))
    answerable = [q for q in questions if q.answerable]
    assert all(q.evidence and q.must_mention for q in answerable)
    assert len(answerable) >= 25 and len(questions) - len(answerable) >= 5
    assert {"kind", "package", "version", "folder"} <= set(source(name))
