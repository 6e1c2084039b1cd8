from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.events import RunFinished
from agent.served import ServedTools
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
from agent.trace import read_trace
from tests.cli_support import ask
from tui.cli import app

SECRET = "sk-test-0123456789-do-not-print"


pytestmark = pytest.mark.usefixtures("cli_env")  # without the user's settings


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "replay.md").write_text(
        "# Replay\n\nRun `docsagent replay FILE` to watch a saved run again.\n"
    )
    return root


def script(tmp_path: Path, turns: Sequence[Mapping[str, object]]) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(turns))
    return f"script:{path}"


ANSWER = "Use `docsagent replay FILE` (replay.md:3)."
TURNS: list[dict[str, object]] = [
    {"tool_calls": [{"name": "grep_docs", "arguments": {"keyword": "replay"}}]},
    {"tool_calls": [{"name": "read_doc", "arguments": {"path": "replay.md"}}]},
    {"content": ANSWER},
]


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


def test_usage_errors_exit_2() -> None:
    assert ask("")[0] == 2
    assert ask("q", "--max-steps", "0")[0] == 2
    assert CliRunner().invoke(app, ["ask"]).exit_code == 2


def test_the_key_never_reaches_a_trace_or_the_output(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_env: Path
) -> None:
    monkeypatch.setenv("LLM_API_KEY", SECRET)
    code, out, err = ask("How?", "--docs", str(docs), "--model", script(tmp_path, TURNS), "--json")
    assert code == 0
    (trace,) = cli_env.iterdir()
    assert SECRET not in trace.read_text() + out + err


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


def test_bare_command_without_a_terminal_points_at_ask() -> None:
    result = CliRunner().invoke(app, [])
    assert result.exit_code == 2
    assert "docsagent ask" in result.stderr


def test_help_and_version() -> None:
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for word in ["ask", "replay", "tui", "--docs", "--model", "LLM_MODEL"]:
        assert word in result.stdout
    assert CliRunner().invoke(app, ["--version"]).stdout.startswith("docsagent ")


def test_options_before_the_command_count_too(docs: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["--docs", str(tmp_path / "nope"), "ask", "q"])
    assert result.exit_code == 2
    assert "docs folder not found" in result.stderr
    model = script(tmp_path, TURNS)
    result = CliRunner().invoke(app, ["--docs", str(docs), "--model", model, "ask", "How?"])
    assert (result.exit_code, result.stdout) == (0, ANSWER + "\n")


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


def test_the_command_line_beats_the_environment_wherever_the_option_stands(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCSAGENT_MAX_STEPS", "5")
    model = script(tmp_path, [TURNS[0]] * 6)
    args = ["--max-steps", "2", "ask", "How?", "--docs", str(docs), "--model", model]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 3
    assert result.stderr.splitlines()[-1] == "docsagent: no answer within 2 steps"
    trace = tmp_path / "before.jsonl"
    model = script(tmp_path, TURNS)
    args = ["--trace", str(trace), "ask", "How?", "--docs", str(docs), "--model", model]
    assert CliRunner().invoke(app, args).exit_code == 0
    assert read_trace(trace).complete


def test_a_blank_llm_key_does_not_hide_the_openai_key() -> None:
    from tui.commands.options import Options, make_config

    config, notice = make_config(Options(), {"LLM_API_KEY": " ", "OPENAI_API_KEY": "sk-x"})
    assert (config.api_key, config.model) == ("sk-x", "gpt-4o-mini")
    assert notice == "docsagent: using gpt-4o-mini at api.openai.com because OPENAI_API_KEY is set"


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


def test_the_trace_folder_follows_xdg_state_home(tmp_path: Path) -> None:
    from tui.commands.options import Options, make_config

    config, _ = make_config(Options(), {"XDG_STATE_HOME": str(tmp_path)})
    assert config.trace_dir == tmp_path / "docsagent" / "traces"
    given = tmp_path / "mine"
    config, _ = make_config(Options(trace_dir=given), {"XDG_STATE_HOME": str(tmp_path)})
    assert config.trace_dir == given


@pytest.mark.parametrize("value", ["", "  ", "relative/state"])
def test_a_blank_or_relative_xdg_folder_counts_as_unset(value: str) -> None:
    """As the XDG spec says: no trace folder named by spaces in the current directory."""
    from tui.commands.options import Options, history_file, make_config, settings_file

    home = Path.home()
    env = {"XDG_STATE_HOME": value, "XDG_CACHE_HOME": value, "XDG_CONFIG_HOME": value}
    config, _ = make_config(Options(), env)
    assert config.trace_dir == home / ".local" / "state" / "docsagent" / "traces"
    assert history_file(env) == home / ".local" / "state" / "docsagent" / "history"
    assert config.cache_dir == home / ".cache" / "docsagent"
    assert settings_file(env) == home / ".config" / "docsagent" / "settings.json"


def test_core_errors_gain_the_options_that_set_what_they_name() -> None:
    from agent import ConfigError, ModelError
    from tui.commands.options import explain

    assert explain(ConfigError("max_steps must be at least 1", fields=("max_steps",))) == (
        "max_steps must be at least 1; check --max-steps"
    )
    assert explain(ModelError("no such model", fields=("model", "base_url"))) == (
        "no such model; check --model and --base-url"
    )
    assert explain(ModelError("no key", fields=("api_key",))) == (
        "no key; set LLM_API_KEY (or OPENAI_API_KEY)"
    )
    assert explain(ModelError("the server failed")) == "the server failed"


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


def test_the_cache_folder_comes_from_the_environment() -> None:
    from tui.commands.options import Options, make_config

    home = Path.home()
    assert make_config(Options(), {})[0].cache_dir == home / ".cache" / "docsagent"
    xdg = {"XDG_CACHE_HOME": "/x/cache"}
    assert make_config(Options(), xdg)[0].cache_dir == Path("/x/cache/docsagent")
    ours = {**xdg, "DOCSAGENT_CACHE_DIR": "~/idx"}
    assert make_config(Options(), ours)[0].cache_dir == home / "idx"


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


def test_the_endpoint_recorded_is_host_and_path_without_credentials_or_query() -> None:
    from agent import Config

    config = Config(model="m", base_url="https://user:sk-secret@llm.example.com:8443/v1?key=sk-q")
    assert config.endpoint == "https://llm.example.com:8443/v1"
    assert Config(model="offline").endpoint is None
