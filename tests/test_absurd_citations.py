"""An answer citing absurd line ranges, through every reader of citations: ask, the TUI's
reducer, export, rerun and eval. Ranges are intervals, so none of them counts lines out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent import Corpus, export_trace, read_trace
from agent.eval.questions import Evidence, Question
from agent.eval.scoring import score
from agent.events import RunFinished
from agent.tools.citations import find_citations
from tests.cli_support import ask
from tui.cli import app
from tui.state import reduce_all
from tui.transcript.entries import TurnEntry

pytestmark = pytest.mark.usefixtures("cli_env")  # without the user's settings

HUGE = "9" * 4000
ANSWER = f"See replay.md:1-1000000000000, replay.md:1-{HUGE} and replay.md:1-3."


def test_absurd_ranges_are_checked_as_intervals_everywhere(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "replay.md").write_text("# Replay\n\nRun `docsagent replay FILE`.\n")
    script = tmp_path / "script.json"
    turns = [
        {"tool_calls": [{"name": "read_doc", "arguments": {"path": "replay.md"}}]},
        {"content": ANSWER},
    ]
    script.write_text(json.dumps(turns))
    trace = tmp_path / "run.jsonl"
    code, out, err = ask(
        "How?", "--docs", str(docs), "--model", f"script:{script}", "--json", "--trace", str(trace)
    )
    assert code == 0 and "Traceback" not in err
    cited = json.loads(out)["citations"]
    assert [(c["end"], c["valid"], c["read"]) for c in cited] == [
        (10**12, False, False),
        (10**15, False, False),
        (3, True, True),
    ]
    events = read_trace(trace).events
    state = reduce_all(events)
    (answer,) = [e for e in state.entries if isinstance(e, TurnEntry) and e.answer]
    assert answer.unread == ("replay.md:1-1000000000000", "replay.md:1-1000000000000000")
    assert "replay.md:1-1000000000000 (NOT read in the run)" in export_trace(
        read_trace(trace), "markdown"
    )
    result = CliRunner().invoke(app, ["rerun", str(trace)])
    assert result.exit_code == 1 and "no such lines now" in result.stdout
    assert "Traceback" not in result.stdout
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    question = Question(
        question="How?", id="q", evidence=(Evidence(path="replay.md", start=2, end=3),)
    )
    scored = score(question, finished, find_citations(ANSWER, Corpus.open(docs), events))
    assert scored.hit is True and scored.hit_at == 3
