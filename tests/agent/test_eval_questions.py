from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.errors import ConfigError
from agent.eval.questions import (
    Evidence,
    Question,
    evidence_problems,
    load_questions,
)
from agent.tools.corpus import Corpus


def write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_a_question_set_is_read_line_by_line_skipping_blank_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        json.dumps(
            {
                "id": "t-asked",
                "base": "t",
                "wording": "asked",
                "question": " How long is the timeout? ",
                "evidence": [{"path": "./guide.md", "start": 5, "end": 8}],
                "must_mention": ["five seconds"],
                "note": "the default",
            }
        ),
        "",
        json.dumps({"question": "How do I bake bread?", "answerable": False}),
    )
    assert load_questions(path) == [
        Question(
            question="How long is the timeout?",
            id="t-asked",
            line=1,
            evidence=(Evidence("guide.md", 5, 8),),
            must_mention=("five seconds",),
            base="t",
            wording="asked",
        ),
        Question(question="How do I bake bread?", id="line-3", line=3, answerable=False),
    ]


def test_a_question_without_a_base_is_its_own_group() -> None:
    assert Question(question="q", id="a").group == "a"
    assert Question(question="q", id="a", base="b").group == "b"


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"question": "x",}', "not valid JSON (Expecting property name enclosed in double "
         "quotes, column 18)"),
        ('["x"]', 'expected a JSON object such as {"question": "..."}'),
        ('{"question": "  "}', '"question" must be a non-empty string'),
        ('{"id": "a"}', '"question" must be a non-empty string'),
        ('{"question": "x", "evidance": []}', 'unknown key "evidance" (keys are: question, '
         "evidence, must_mention, answerable, id, base, wording, note)"),
        ('{"question": "x", "evidence": {"path": "a.md"}}',
         '"evidence" must be a list of {"path", "start", "end"} objects'),
        ('{"question": "x", "evidence": [{"path": "a.md", "start": 1}]}',
         'evidence in a.md: "start" and "end" must be lines, start <= end'),
        ('{"question": "x", "evidence": [{"path": "a.md", "start": 9, "end": 2}]}',
         'evidence in a.md: "start" and "end" must be lines, start <= end'),
        ('{"question": "x", "evidence": [{"path": "a.md", "start": true, "end": 2}]}',
         'evidence in a.md: "start" and "end" must be lines, start <= end'),
        ('{"question": "x", "must_mention": "pool"}',
         '"must_mention" must be a list of non-empty strings'),
        ('{"question": "x", "answerable": "no"}', '"answerable" must be true or false'),
        ('{"question": "x", "answerable": false, "must_mention": ["a"]}',
         'an unanswerable question has no "evidence" or "must_mention"'),
    ],
)  # fmt: skip
def test_a_bad_line_is_one_error_naming_the_file_and_line(
    tmp_path: Path, line: str, problem: str
) -> None:
    path = write(tmp_path, '{"question": "fine"}', line)
    with pytest.raises(ConfigError) as caught:
        load_questions(path)
    assert str(caught.value) == f"{path}: line 2: {problem}"


def test_ids_must_be_unique(tmp_path: Path) -> None:
    path = write(tmp_path, '{"id": "a", "question": "x"}', '{"id": "a", "question": "y"}')
    with pytest.raises(ConfigError, match='line 2: the id "a" is already used on line 1$'):
        load_questions(path)


def test_a_missing_empty_or_unreadable_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="^no question file at "):
        load_questions(tmp_path / "missing.jsonl")
    with pytest.raises(ConfigError, match="is a folder, not a question file$"):
        load_questions(tmp_path)
    with pytest.raises(ConfigError, match="^no questions in .*: expected one JSON object per line"):
        load_questions(write(tmp_path, "", "  "))
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="binary.jsonl: line 1 is not UTF-8 text$"):
        load_questions(binary)


def test_evidence_must_name_lines_of_a_doc(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("one\ntwo\nthree\n")
    questions = [
        Question(question="a", id="a", line=1, evidence=(Evidence("guide.md", 1, 3),)),
        Question(question="b", id="b", line=2, evidence=(Evidence("guide.md", 2, 4),)),
        Question(question="c", id="c", line=3, evidence=(Evidence("gone.md", 1, 1),)),
        Question(question="d", id="d", line=4, evidence=(Evidence("../x.md", 1, 1),)),
    ]
    assert evidence_problems(questions, Corpus.open(docs)) == [
        "line 2: evidence guide.md:2-4 runs past the end of guide.md (3 lines)",
        "line 3: evidence gone.md:1-1: no file 'gone.md' in the docs",
        "line 4: evidence ../x.md:1-1: '../x.md' is outside the docs folder",
    ]


def test_evidence_overlaps_ranges_of_its_own_file_only() -> None:
    evidence = Evidence("a.md", 10, 20)
    assert evidence.overlaps("a.md", 20, 30)
    assert evidence.overlaps("a.md", 1, 10)
    assert evidence.overlaps("a.md", 12, 14)
    assert not evidence.overlaps("a.md", 21, 30)
    assert not evidence.overlaps("a.md", 1, 9)
    assert not evidence.overlaps("b.md", 10, 20)
    assert str(evidence) == "a.md:10-20"
