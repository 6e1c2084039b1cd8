from __future__ import annotations

import os
import shutil
from pathlib import Path

from agent.traces import recent_traces

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_recent_traces_newest_first_with_question_model_and_outcome(tmp_path: Path) -> None:
    for age, name in enumerate(["answered", "error", "interrupted"]):
        copy = tmp_path / f"{name}.jsonl"
        shutil.copy(FIXTURES / f"{name}.jsonl", copy)
        os.utime(copy, (1_000_000 - age, 1_000_000 - age))
    (tmp_path / "junk.jsonl").write_text("not a trace\n")
    os.utime(tmp_path / "junk.jsonl", (1, 1))
    found = [(t.path.name, t.question, t.model, t.outcome) for t in recent_traces(tmp_path)]
    assert found == [
        ("answered.jsonl", "What is the default timeout?", "scripted", "answered"),
        ("error.jsonl", "What is the default timeout?", "scripted", "error"),
        ("interrupted.jsonl", "What is the default timeout?", "scripted", "interrupted"),
        ("junk.jsonl", "?", "?", "not a trace"),
    ]
    newest = recent_traces(tmp_path, limit=1)
    assert [(t.path.name, t.docs) for t in newest] == [("answered.jsonl", "docs")]
    assert recent_traces(tmp_path)[-1].docs == ""
    assert recent_traces(tmp_path / "missing") == []
