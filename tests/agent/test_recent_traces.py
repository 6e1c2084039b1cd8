from __future__ import annotations

import os
import shutil
from pathlib import Path

from agent.loop import Agent
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.tools.docs import DocsContext, docs_registry
from agent.trace import MAX_LINE_BYTES
from agent.traces import TAIL_BYTES, UNREADABLE_ENDING, recent_traces
from tui.outcomes import outcome_label

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


def _long_run(ctx: DocsContext, folder: Path, answer: str) -> Path:
    model = ScriptedModel([reply(None, call("list_docs")), reply(answer)])
    session = Session(Agent(model, docs_registry(), context=[ctx], docs="docs"), trace_dir=folder)
    list(session.ask("write it all out"))
    assert session.last_trace is not None
    return session.last_trace


def test_a_run_whose_final_line_is_longer_than_a_tail_block_is_listed_as_it_ended(
    ctx: DocsContext, tmp_path: Path
) -> None:
    # 200 KB of answer, citing a doc: the final event's line is three blocks long.
    answer = "See guide.md:5-7. " + "Timeouts apply to every request. " * 6_000
    path = _long_run(ctx, tmp_path, answer)
    assert len(path.read_bytes().splitlines()[-1]) > 3 * TAIL_BYTES
    assert [(t.path, t.outcome) for t in recent_traces(tmp_path)] == [(path, "answered")]


def test_a_last_line_longer_than_the_reader_accepts_is_an_unreadable_ending(
    ctx: DocsContext, tmp_path: Path
) -> None:
    path = _long_run(ctx, tmp_path, "See guide.md:5-7.")
    with path.open("ab") as stream:
        stream.write(b'{"type": "run_finished", "answer": "' + b"x" * MAX_LINE_BYTES + b'"}\n')
    assert [t.outcome for t in recent_traces(tmp_path)] == [UNREADABLE_ENDING]
    assert outcome_label(UNREADABLE_ENDING) == "unreadable ending"
