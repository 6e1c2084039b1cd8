"""`docsagent ask`: the answer on stdout, progress on stderr, exit codes, --json, the trace."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.events import RunFinished
from agent.trace import read_trace
from tests.cli_support import ANSWER, TURNS, ask, script

SECRET = "sk-test-0123456789-do-not-print"

pytestmark = pytest.mark.usefixtures("cli_env")  # without the user's settings


def test_ask_prints_progress_on_stderr_and_only_the_answer_on_stdout(
    docs: Path, tmp_path: Path, cli_env: Path
) -> None:
    code, out, err = ask(
        "How do I replay?", "--docs", str(docs), "--model", script(tmp_path, TURNS)
    )
    assert code == 0
    assert out == ANSWER + "\n"
    lines = err.splitlines()
    assert lines[0] == (
        '[step 1] grep_docs({"keyword": "replay"}) → replay.md:1: # Replay '
        "replay.md:3: Run `docsagent replay FILE` to watch a saved run again."
    )
    assert lines[1].startswith(
        '[step 2] read_doc({"path": "replay.md"}) → replay.md lines 1-3 of 3'
    )
    assert lines[2].startswith("answered after 3 steps · 2 tool calls · ≈")
    trace_path = lines[2].split("trace: ")[1]
    assert Path(trace_path).parent == cli_env
    trace = read_trace(trace_path)
    assert trace.complete and trace.header["question"] == "How do I replay?"
    final = trace.events[-1]
    assert isinstance(final, RunFinished) and final.answer == ANSWER


def test_ask_json(docs: Path, tmp_path: Path) -> None:
    trace = tmp_path / "run.jsonl"
    code, out, _ = ask(
        "How?", "--docs", str(docs), "--model", script(tmp_path, TURNS), "--json",
        "--trace", str(trace),
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["answer"] == ANSWER
    assert data["stop_reason"] == "answered"
    assert data["declined"] is False
    assert data["citations"] == [
        {"path": "replay.md", "start": 3, "end": 3, "valid": True, "read": True, "quoted": True}
    ]
    assert data["stats"]["steps"] == 3
    assert data["stats"]["tool_calls"] == 2
    assert data["stats"]["prompt_tokens"] > 0 and data["stats"]["completion_tokens"] > 0
    assert data["trace"] == str(trace) and read_trace(trace).complete
    assert data["error"] is None


def test_step_limit_exits_3_with_an_honest_line(docs: Path, tmp_path: Path) -> None:
    turns = [TURNS[0]] * 3
    code, out, err = ask(
        "How?", "--docs", str(docs), "--model", script(tmp_path, turns), "--max-steps", "2"
    )
    assert code == 3
    assert out == ""
    assert err.splitlines()[-1] == "docsagent: no answer within 2 steps"


def test_a_model_failure_exits_1_with_one_line_and_a_closed_trace(
    docs: Path, tmp_path: Path, cli_env: Path
) -> None:
    code, out, err = ask("How?", "--docs", str(docs), "--model", script(tmp_path, TURNS[:1]))
    assert code == 1
    assert "Traceback" not in err
    assert err.splitlines()[-1] == "docsagent: the script has only 1 turns"
    (trace,) = cli_env.iterdir()
    final = read_trace(trace).events[-1]
    assert isinstance(final, RunFinished) and final.stop_reason == "error"


@pytest.mark.parametrize(
    "setup, message",
    [
        ("missing", "docs folder not found"),
        ("empty", "no docs in"),
        ("file", "replay.md; check --docs"),
        ("no-script", "script file not found"),
        ("bad-json", "is not valid JSON: line 1"),
        ("bad-shape", 'turn 1 needs "content" or "tool_calls"'),
        ("bad-content", 'turn 1: "content" must be text'),
    ],
)
def test_bad_inputs_exit_2_with_one_clear_line(
    docs: Path, tmp_path: Path, setup: str, message: str
) -> None:
    folder, model = str(docs), script(tmp_path, TURNS)
    if setup == "missing":
        folder = str(tmp_path / "nope")
    elif setup == "empty":
        (tmp_path / "empty").mkdir()
        folder = str(tmp_path / "empty")
    elif setup == "file":
        folder = str(docs / "replay.md")
    elif setup == "no-script":
        model = f"script:{tmp_path / 'nope.json'}"
    elif setup == "bad-json":
        (tmp_path / "bad.json").write_text("[{")
        model = f"script:{tmp_path / 'bad.json'}"
    elif setup == "bad-content":
        model = script(tmp_path, [{"content": 5}])
    else:
        model = script(tmp_path, [{"text": "hi"}])  # type: ignore[list-item]
    code, out, err = ask("How?", "--docs", folder, "--model", model)
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and message in err and err.startswith("docsagent: ")


@pytest.mark.parametrize("setup", ["missing docs", "trace exists", "no question"])
def test_ask_json_prints_its_own_usage_errors_as_json(
    docs: Path, tmp_path: Path, setup: str
) -> None:
    question, folder, extra = "How?", str(docs), []
    if setup == "missing docs":
        folder = str(tmp_path / "nope")
    elif setup == "trace exists":
        (tmp_path / "run.jsonl").write_text("keep me\n")
        extra = ["--trace", str(tmp_path / "run.jsonl")]
    else:
        question = ""
    model = script(tmp_path, TURNS)
    code, out, err = ask(question, "--docs", folder, "--model", model, "--json", *extra)
    assert code == 2
    line = err.splitlines()[-1].removeprefix("docsagent: ")
    assert json.loads(out) == {"answer": None, "error": line, "exit_code": 2}
    assert out.count("\n") == 1  # one object, one line


def test_the_key_never_reaches_a_trace_or_the_output(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_env: Path
) -> None:
    monkeypatch.setenv("LLM_API_KEY", SECRET)
    code, out, err = ask("How?", "--docs", str(docs), "--model", script(tmp_path, TURNS), "--json")
    assert code == 0
    (trace,) = cli_env.iterdir()
    assert SECRET not in trace.read_text() + out + err


def test_a_token_budget_stops_the_run_with_exit_3(docs: Path, tmp_path: Path) -> None:
    code, out, err = ask(
        "How?", "--docs", str(docs), "--model", script(tmp_path, TURNS), "--max-tokens", "10"
    )
    assert code == 3
    assert out == ""
    assert err.splitlines()[-2].startswith("stopped: token budget after 1 step")
    assert err.splitlines()[-1] == "docsagent: token budget of 10 used up"


def test_an_unwritable_trace_folder_is_one_clear_line(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("DOCSAGENT_TRACE_DIR", str(blocker / "traces"))
    code, out, err = ask("How?", "--docs", str(docs), "--model", script(tmp_path, TURNS))
    assert code == 2
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith(f"docsagent: cannot write the trace {blocker / 'traces'}/")
    assert line.endswith(".jsonl: Not a directory")


def test_ask_warns_about_a_citation_of_lines_the_run_never_read(docs: Path, tmp_path: Path) -> None:
    turns: list[dict[str, object]] = [
        {"tool_calls": [{"name": "grep_docs", "arguments": {"keyword": "replay"}}]},
        {"content": ANSWER},
    ]
    code, out, err = ask("How?", "--docs", str(docs), "--model", script(tmp_path, turns), "--json")
    assert code == 0
    assert "docsagent: warning: the answer cites lines the run never read: replay.md:3" in err
    assert json.loads(out)["citations"] == [
        {"path": "replay.md", "start": 3, "end": 3, "valid": True, "read": False, "quoted": True}
    ]
    code, out, err = ask("How?", "--docs", str(docs), "--model", script(tmp_path, TURNS))
    assert code == 0 and "warning" not in err


def test_a_doc_name_that_is_not_utf8_is_answered_escaped_on_a_strict_utf8_stdout(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    with open(os.path.join(os.fsencode(docs), b"caf\xe9.md"), "wb") as f:
        f.write(b"# Cafe notes\n\nThe espresso timeout is five seconds.\n")
    code, out, err = ask("--docs", str(docs), "What is the espresso timeout?")
    assert code == 0 and "Traceback" not in err
    assert "Source: caf\\xe9.md:1-3" in out


def test_ask_keeps_the_search_index_in_the_cache_folder(
    docs: Path, tmp_path: Path, cache_dir: Path
) -> None:
    turns: list[dict[str, object]] = [
        {"tool_calls": [{"name": "search_docs", "arguments": {"query": "replay a run"}}]},
        {"content": ANSWER},
    ]
    code, out, err = ask("How?", "--docs", str(docs), "--model", script(tmp_path, turns))
    assert code == 0, err
    assert err.splitlines()[0] == (
        '[step 1] search_docs({"query": "replay a run"}) → 1 best section for replay, run: '
        "1. replay.md:1-3 Replay Run `docsagent replay FILE` to wa…"
    )
    assert [p.name.split("-")[0] for p in cache_dir.glob("*.sqlite")] == ["docs"]


def test_an_unwritable_cache_folder_is_one_notice_and_the_run_goes_on(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("DOCSAGENT_CACHE_DIR", str(blocker / "cache"))
    code, out, err = ask("How?", "--docs", str(docs), "--model", script(tmp_path, TURNS))
    assert (code, out) == (0, ANSWER + "\n")
    first, *rest = err.splitlines()
    assert first.startswith(f"docsagent: cannot keep the search index in {blocker / 'cache'} (")
    assert first.endswith("); indexing in memory for this run")
    assert not any("search index" in line for line in rest)
