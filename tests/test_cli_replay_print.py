"""`docsagent replay --print`: a saved run shown as ask showed it; what replay refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.served import ServedTools
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
from tests.cli_support import ANSWER, TURNS, ask, script
from tui.cli import app

pytestmark = pytest.mark.usefixtures("cli_env")  # without the user's settings


def test_replay_print_shows_the_run_as_ask_did(docs: Path, tmp_path: Path) -> None:
    trace = tmp_path / "run.jsonl"
    ask("How?", "--docs", str(docs), "--model", script(tmp_path, TURNS), "--trace", str(trace))
    result = CliRunner().invoke(app, ["replay", str(trace), "--print"])
    assert result.exit_code == 0
    assert result.stdout == ANSWER + "\n"
    assert result.stderr.splitlines()[0].startswith('[step 1] grep_docs({"keyword": "replay"})')
    assert result.stderr.splitlines()[2].startswith("answered after 3 steps")


def test_replay_print_of_a_served_session_shows_no_tokens(docs: Path, tmp_path: Path) -> None:
    served = ServedTools(
        docs_registry(), [DocsContext(Corpus(docs))], trace_dir=tmp_path, docs="d", clock=float
    )
    served.call("list_docs", {})
    served.close("the client closed the session", stop_reason="ended")
    result = CliRunner().invoke(app, ["replay", str(served.path), "--print"])
    assert result.exit_code == 0
    summary = result.stderr.splitlines()[1]
    assert summary == "session ended after 1 step · 1 tool call · 0.0 s · model mcp client"


@pytest.mark.parametrize(
    ("turns", "more", "line"),
    [
        (TURNS, ["--max-steps", "2"], "docsagent: no answer within 2 steps"),
        (TURNS[:1], [], "docsagent: the script has only 1 turns"),
    ],
)
def test_replay_print_ends_with_the_error_line_ask_printed(
    docs: Path, tmp_path: Path, turns: list[dict[str, object]], more: list[str], line: str
) -> None:
    trace = tmp_path / "run.jsonl"
    model = script(tmp_path, turns)
    code, _, err = ask("How?", "--docs", str(docs), "--model", model, "--trace", str(trace), *more)
    assert code != 0 and err.splitlines()[-1] == line
    result = CliRunner().invoke(app, ["replay", str(trace), "--print"])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == line
    assert result.stderr.splitlines()[-2].startswith(err.splitlines()[-2].split(" · ")[0])


def test_replay_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    newer = tmp_path / "new.jsonl"
    newer.write_text('{"type": "header", "format": "docsagent-trace", "version": 9}\n')
    for target, message in [
        (tmp_path, "is a folder, not a trace file"),
        (tmp_path / "none.jsonl", "no trace file at"),
        (newer, "is a version 9 trace"),
    ]:
        result = CliRunner().invoke(app, ["replay", str(target)])
        assert result.exit_code == 2
        assert message in result.stderr and len(result.stderr.splitlines()) == 1


def test_a_decline_is_named_in_the_summary_the_json_and_replay_print(
    docs: Path, tmp_path: Path
) -> None:
    turns: list[dict[str, object]] = [TURNS[0], {"content": "The docs do not cover bread."}]
    code, out, err = ask(
        "Bread?", "--docs", str(docs), "--model", script(tmp_path, turns), "--json"
    )
    assert code == 0  # a decline is a run that worked: tell it apart with `outcome`
    data = json.loads(out)
    assert (data["outcome"], data["declined"], data["stop_reason"]) == (
        "declined",
        True,
        "answered",
    )
    assert data["model"] == "script:script.json" and data["endpoint"] is None
    summary = err.splitlines()[1]
    assert summary.startswith("declined after 2 steps · 1 tool call · ")
    assert " · model script:script.json · trace: " in summary
    result = CliRunner().invoke(app, ["replay", "--print", data["trace"]])
    assert result.exit_code == 0
    assert result.stderr.splitlines()[1] == summary.split(" · trace: ")[0]
