from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.trace import read_trace
from tests.chatserver import HOLD_LIMIT_S, MODEL, ChatServer, Hang, Ping, Reply, Status
from tests.folders import EVAL_PAGES, docs_folder
from tui.cli import app

QUESTIONS: list[dict[str, object]] = [
    {
        "id": "replay",
        "question": "How do I replay a saved run?",
        "evidence": [{"path": "replay.md", "start": 3, "end": 4}],
        "must_mention": ["docsagent replay"],
    },
    {
        "id": "upgrade",
        "question": "How do I upgrade docsagent?",
        "evidence": [{"path": "install.md", "start": 5, "end": 7}],
        "must_mention": ["--upgrade"],
    },
    {"id": "bread", "question": "How do I bake sourdough bread?", "answerable": False},
]


pytestmark = pytest.mark.usefixtures("cli_env")  # without the user's settings


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return docs_folder(tmp_path / "docs", EVAL_PAGES)


def question_file(tmp_path: Path, questions: Sequence[Mapping[str, object]] = QUESTIONS) -> str:
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in questions))
    return str(path)


def script(tmp_path: Path, turns: list[dict[str, object]]) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(turns))
    return f"script:{path}"


REPLAY_SCRIPT: list[dict[str, object]] = [
    {"tool_calls": [{"name": "read_doc", "arguments": {"path": "replay.md"}}]},
    {"content": "Run `docsagent replay FILE` (replay.md:3-4)."},
]


def run_eval(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["eval", *args])
    return result.exit_code, result.stdout, result.stderr


def test_eval_prints_a_line_per_question_on_stderr_and_the_table_on_stdout(
    docs: Path, tmp_path: Path, cli_env: Path
) -> None:
    code, out, err = run_eval(
        question_file(tmp_path), "--docs", str(docs), "--model", script(tmp_path, REPLAY_SCRIPT)
    )
    assert code == 0
    assert err.splitlines()[0].startswith("[1/3] replay: hit (")
    assert [line.split(" (")[0] for line in err.splitlines()] == [
        "[1/3] replay: hit",
        "[2/3] upgrade: miss",
        "[3/3] bread: answered",
    ]
    lines = out.splitlines()
    assert lines[0].split() == ["question", "result", "cites", "terms", "steps", "tokens", "s"]
    assert lines[1].split()[:5] == ["replay", "hit", "replay.md:3-4", "1/1", "2"]
    assert lines[2].split()[:5] == ["upgrade", "miss", "replay.md:3-4", "0/1", "2"]
    assert lines[3].split()[:4] == ["bread", "answered", "replay.md:3-4", "2"]
    assert lines[5] == (
        "evidence hits 1/2 (50%), first citation 1/2 (50%) · terms found 1/2 (50%) · "
        "unanswerables declined 0/1 (0%) · wordings agree -"
    )
    (folder,) = cli_env.iterdir()
    assert folder.name.startswith("eval-") and folder.name.endswith("-questions")
    assert lines[6].endswith(f"traces: {folder}")
    assert sorted(p.name for p in folder.iterdir()) == [
        "001-replay.jsonl",
        "002-upgrade.jsonl",
        "003-bread.jsonl",
    ]
    assert list(cli_env.glob("*.jsonl")) == []  # not among the recent traces


def test_eval_json_with_the_offline_model(docs: Path, tmp_path: Path) -> None:
    code, out, err = run_eval(question_file(tmp_path), "--docs", str(docs), "--json")
    assert code == 0
    assert err.splitlines()[0].startswith("docsagent: no API key set, so answering with")
    report = json.loads(out)
    assert report["model"] == "offline"
    assert report["docs"] == str(docs)
    summary = report["summary"]
    assert (summary["hits"], summary["with_evidence"], summary["hit_rate"]) == (2, 2, 1.0)
    assert (summary["first_hits"], summary["first_hit_rate"]) == (2, 1.0)
    assert [r["first_hit"] for r in report["results"]] == [True, True, None]
    assert (summary["declined"], summary["unanswerable"]) == (1, 1)
    assert summary["false_declines"] == 0
    bread = report["results"][2]
    assert (bread["outcome"], bread["declined"], bread["citations"]) == ("declined", True, [])
    for result in report["results"]:
        assert read_trace(result["trace"]).header["question"] == result["question"]


def test_eval_exits_1_under_min_hit(docs: Path, tmp_path: Path) -> None:
    model = script(tmp_path, REPLAY_SCRIPT)
    code, _, err = run_eval(
        question_file(tmp_path), "--docs", str(docs), "--model", model, "--min-hit", "0.9"
    )
    assert code == 1
    assert err.splitlines()[-1] == "docsagent: evidence hit rate 50% is under --min-hit 90%"
    code, _, _ = run_eval(
        question_file(tmp_path), "--docs", str(docs), "--model", model, "--min-hit", "0.5"
    )
    assert code == 0


def test_min_hit_counts_hits_in_the_first_three_citations_not_only_the_first(
    docs: Path, tmp_path: Path
) -> None:
    second: list[dict[str, object]] = [
        {"tool_calls": [{"name": "read_doc", "arguments": {"path": "replay.md"}}]},
        {"content": "Run `docsagent replay FILE` (install.md:1-2, replay.md:3-4)."},
    ]
    questions = question_file(tmp_path, QUESTIONS[:1])
    model = script(tmp_path, second)
    code, out, err = run_eval(questions, "--docs", str(docs), "--model", model, "--min-hit", "1")
    assert code == 0  # every hit is in the first three citations
    assert err.startswith("[1/1] replay: hit (")
    lines = out.splitlines()
    assert lines[1].split()[:4] == ["replay", "hit", "(2nd)", "install.md:1-2"]
    assert lines[3].startswith("evidence hits 1/1 (100%), first citation 0/1 (0%) · ")


def test_eval_exits_1_when_runs_fail(docs: Path, tmp_path: Path) -> None:
    model = script(tmp_path, REPLAY_SCRIPT[:1])  # runs out of turns
    code, out, err = run_eval(question_file(tmp_path), "--docs", str(docs), "--model", model)
    assert code == 1
    assert err.splitlines()[-1] == (
        "docsagent: 3 of 3 questions failed; replay: the script has only 1 turns"
    )
    assert "3 without an answer" in out


def test_a_bad_line_is_one_error_with_its_line_number(docs: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"question": "fine"}\n{"question": "broken"\n')
    code, out, err = run_eval(str(path), "--docs", str(docs))
    assert code == 2
    assert out == ""
    assert err.splitlines() == [
        f"docsagent: {path}: line 2: not valid JSON (Expecting ',' delimiter, column 22)"
    ]
    assert "Traceback" not in err


def test_evidence_outside_the_docs_is_a_usage_error(docs: Path, tmp_path: Path) -> None:
    questions: list[dict[str, object]] = [
        {"question": "q", "evidence": [{"path": "replay.md", "start": 4, "end": 9}]}
    ]
    code, _, err = run_eval(question_file(tmp_path, questions), "--docs", str(docs))
    assert code == 2
    assert err.splitlines() == [
        f"docsagent: {tmp_path / 'questions.jsonl'}: line 1: evidence replay.md:4-9 runs past "
        f"the end of replay.md (4 lines); is --docs {docs} right?"
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.jsonl"], "docsagent: no question file at missing.jsonl"),
        (["QUESTIONS", "--min-hit", "0.5"], "needs questions with evidence"),
        (["QUESTIONS", "--min-hit", "1.5"], "--min-hit"),
        (["QUESTIONS", "--concurrency", "0"], "--concurrency"),
    ],
)
def test_bad_input_exits_2(docs: Path, tmp_path: Path, args: list[str], message: str) -> None:
    unscored = question_file(tmp_path, [{"question": "anything?"}])
    args = [unscored if a == "QUESTIONS" else a for a in args]
    code, _, err = run_eval(*args, "--docs", str(docs))
    assert code == 2
    assert message in err


@pytest.mark.parametrize("setup", ["missing file", "missing docs", "min-hit without evidence"])
def test_eval_json_prints_its_own_usage_errors_as_json(
    docs: Path, tmp_path: Path, setup: str
) -> None:
    questions = question_file(tmp_path, [{"question": "anything?"}])
    args = [questions, "--docs", str(docs), "--json"]
    if setup == "missing file":
        args[0] = str(tmp_path / "missing.jsonl")
    elif setup == "missing docs":
        args[2] = str(tmp_path / "nope")
    else:
        args += ["--min-hit", "0.5"]
    code, out, err = run_eval(*args)
    assert code == 2
    line = err.splitlines()[-1].removeprefix("docsagent: ")
    failure = {"summary": None, "results": None, "error": line, "exit_code": 2}
    assert json.loads(out) == failure
    assert out.count("\n") == 1  # one object, one line


def test_an_unwritable_trace_folder_exits_2_before_any_run(docs: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    traces = blocker / "traces"
    code, out, err = run_eval(
        question_file(tmp_path), "--docs", str(docs), "--trace-dir", str(traces)
    )
    assert code == 2
    assert out == ""
    assert err.splitlines() == [f"docsagent: cannot write traces in {traces}: Not a directory"]
    assert "[1/3]" not in err


def test_eval_against_an_endpoint_counts_the_servers_tokens(
    chat_server: ChatServer, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-test-eval")
    chat_server.push(*[Reply(content="Run `docsagent replay FILE` (replay.md:3-4).")] * 3)
    code, out, err = run_eval(
        question_file(tmp_path),
        "--docs",
        str(docs),
        "--model",
        MODEL,
        "--base-url",
        chat_server.base_url,
        "--json",
    )
    assert code == 0, err
    assert len(chat_server.requests) == 3
    report = json.loads(out)
    assert (report["model"], report["endpoint"]) == (MODEL, chat_server.base_url)
    # The server answers at once, calling no tool: answers that read nothing, not declines.
    assert [r["outcome"] for r in report["results"]] == ["read nothing"] * 3
    assert [r["declined"] for r in report["results"]] == [False] * 3
    assert report["summary"]["read_nothing"] == 3
    assert err.splitlines()[-1] == (
        "docsagent: no question's run called a tool: the model or server may not support "
        "tools (see providers.md in the manual)"
    )
    assert [(r["tokens"], r["tokens_estimated"]) for r in report["results"]] == [(15, False)] * 3
    assert "sk-test-eval" not in out + err


def test_an_eval_run_sends_every_question_through_one_pool_of_connections(
    chat_server: ChatServer, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-test-eval")
    questions = [{"id": f"q{n}", "question": "How do I replay a saved run?"} for n in range(12)]
    chat_server.push(*[Reply(content="Run `docsagent replay FILE` (replay.md:3-4).")] * 12)
    code, _, err = run_eval(
        question_file(tmp_path, questions),
        "--docs",
        str(docs),
        "--model",
        MODEL,
        "--base-url",
        chat_server.base_url,
        "--concurrency",
        "2",
    )
    assert code == 0, err
    assert len(chat_server.requests) == 12
    # the probes' three connections (asked at once), reused by the questions' two at a time;
    # a client per question opened one per question
    assert chat_server.connections <= 3 and len(chat_server.chat_connections) <= 2


def test_an_eval_run_asks_the_server_for_its_context_window_once(
    chat_server: ChatServer, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-test-eval")
    chat_server.props = {"default_generation_settings": {"n_ctx": 2048}}
    questions = [{"id": f"q{n}", "question": "How do I replay a saved run?"} for n in range(6)]
    chat_server.push(*[Reply(content="Run `docsagent replay FILE` (replay.md:3-4).")] * 6)
    code, _, err = run_eval(
        question_file(tmp_path, questions),
        *("--docs", str(docs), "--model", MODEL, "--base-url", chat_server.base_url),
        *("--concurrency", "3"),
    )
    assert code == 0, err
    # once, not once a question: the three probes at once, then the cache folder's answer
    assert sorted(chat_server.gets) == ["/api/v0/models", "/props", "/v1/models"]
    assert [r["max_tokens"] for r in chat_server.requests] == [512] * 6  # a quarter of it


def test_eval_takes_the_endpoint_options_ask_takes(
    chat_server: ChatServer, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-test-eval")
    chat_server.props = {"default_generation_settings": {"n_ctx": 2048}}  # not asked: given
    questions = [{"id": f"q{n}", "question": "How do I replay a saved run?"} for n in range(2)]
    chat_server.push(*[Reply(content="Run `docsagent replay FILE` (replay.md:3-4).")] * 2)
    code, _, err = run_eval(
        question_file(tmp_path, questions),
        *("--docs", str(docs), "--model", MODEL, "--base-url", chat_server.base_url),
        *("--context", "100000", "--max-reply-tokens", "300", "--no-compact"),
    )
    assert code == 0, err
    assert "/props" not in chat_server.gets
    assert [r["max_tokens"] for r in chat_server.requests] == [300] * 2


def test_eval_takes_a_request_timeout_as_ask_does(
    chat_server: ChatServer, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-test-eval")
    chat_server.push(Ping())  # keep-alive comments for ever: only the request's deadline ends it
    questions = [{"id": "q", "question": "How do I replay a saved run?"}]
    code, _, err = run_eval(
        question_file(tmp_path, questions),
        "--docs",
        str(docs),
        "--model",
        MODEL,
        "--base-url",
        chat_server.base_url,
        "--request-timeout",
        "0.5",
    )
    assert code == 1
    assert "within the request timeout of 0.5" in err.splitlines()[-1]


def test_ctrl_c_cancels_the_requests_in_flight_at_once(
    chat_server: ChatServer, docs: Path, tmp_path: Path, cli_env: Path
) -> None:
    chat_server.push(*[Hang(answer=False, seconds=HOLD_LIMIT_S)] * 2)  # never answered
    script = Path(sys.executable).parent / "docsagent"
    # The child inherits an ignored SIGINT (a run started in the background); restore it.
    old_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    proc = subprocess.Popen(
        [str(script), "eval", question_file(tmp_path, QUESTIONS[:2]), "--docs", str(docs),
         "--base-url", chat_server.base_url, "--model", MODEL],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "LLM_API_KEY": "sk-test-eval"},
    )  # fmt: skip
    signal.signal(signal.SIGINT, old_handler)
    if not chat_server.wait_for_requests(2, client=proc):
        proc.kill()
        raise AssertionError(proc.communicate())
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate()  # the server holds the requests; the signal cuts them
    assert proc.returncode == 130, err
    assert out == ""
    (folder,) = cli_env.iterdir()
    assert err.splitlines() == [f"docsagent: interrupted (traces so far: {folder})"]
    traces = sorted(folder.iterdir())
    assert [p.name for p in traces] == ["001-replay.jsonl", "002-upgrade.jsonl"]
    for path in traces:
        trace = read_trace(path)
        assert trace.complete
        assert trace.events[-1].stop_reason == "cancelled"  # type: ignore[attr-defined]


def test_a_failure_line_shows_control_characters_from_the_server_visibly(
    chat_server: ChatServer, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-test-eval")
    chat_server.push(Status(400, "bad \x1b]0;T\x07 request"))
    questions = question_file(tmp_path, [{"question": "How do I replay a saved run?"}])
    code, _, err = run_eval(
        questions, "--docs", str(docs), "--model", MODEL, "--base-url", chat_server.base_url
    )
    assert code == 1
    assert err.splitlines()[-1].startswith("docsagent: 1 of 1 questions failed; line-1: ")
    assert err.splitlines()[-1].endswith(": bad \u241b]0;T\u2407 request")
    assert "\x1b" not in err and "\x07" not in err
