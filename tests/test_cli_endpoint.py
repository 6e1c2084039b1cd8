"""`docsagent ask` against a real chat-completions server on 127.0.0.1, through the openai SDK."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.events import RetryScheduled, RunFinished, TextDelta
from agent.trace import read_trace
from tests.chatserver import (
    HOLD_LIMIT_S,
    SSE,
    Call,
    ChatServer,
    Hang,
    Ping,
    Reply,
    Status,
    chunk,
)
from tui.cli import app

KEY = "sk-live-abcdef0123456789"
HELLO = chunk({"role": "assistant", "content": "Hel"})
ANSWER = "Run `docsagent replay FILE` to watch it again (replay.md:3)."


@pytest.fixture(autouse=True)
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ["LLM_BASE_URL", "LLM_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LLM_API_KEY", KEY)
    monkeypatch.setenv("DOCSAGENT_TRACE_DIR", str(tmp_path / "traces"))
    return tmp_path / "traces"


def ask(server: ChatServer, docs: Path, *extra: str) -> tuple[int, str, str]:
    args = ["ask", "How do I replay?", "--docs", str(docs), "--base-url", server.base_url]
    result = CliRunner().invoke(app, [*args, "--model", "test-model", *extra])
    output = result.stdout + result.stderr
    assert KEY not in output
    assert "Traceback" not in output
    return result.exit_code, result.stdout, result.stderr


def the_trace(folder: Path) -> list[object]:
    (path,) = folder.iterdir()
    assert KEY not in path.read_text()
    trace = read_trace(path)
    assert trace.complete
    return list(trace.events)


@pytest.mark.parametrize("mode", ["stream", "no-stream"])
def test_a_tool_run_in_both_modes_ends_at_the_servers_usage(
    chat_server: ChatServer, docs: Path, env: Path, mode: str
) -> None:
    chat_server.strict = True
    chat_server.push(
        Reply(calls=[Call("grep_docs", '{"keyword": "replay"}')], usage=(120, 30)),
        Reply(content=ANSWER, usage=(300, 45)),
    )
    extra = ["--no-stream"] if mode == "no-stream" else []
    code, out, err = ask(chat_server, docs, "--json", *extra)
    assert code == 0, err
    data = json.loads(out)
    assert data["answer"] == ANSWER
    # the run only grepped: the citation is valid and quoted, but its lines were never read
    assert data["citations"] == [
        {"path": "replay.md", "start": 3, "end": 3, "valid": True, "read": False, "quoted": True}
    ]
    assert err.splitlines()[-1] == (
        "docsagent: warning: the answer cites lines the run never read: replay.md:3"
    )
    stats = data["stats"]
    assert (stats["prompt_tokens"], stats["completion_tokens"]) == (420, 75)
    assert stats["tokens_estimated"] is False
    first, second = chat_server.requests
    assert first.get("stream", False) is (mode == "stream")
    if mode == "stream":
        assert first["stream_options"] == {"include_usage": True}
    tools = [t["function"]["name"] for t in first["tools"]]
    assert tools == ["search_docs", "list_docs", "grep_docs", "read_doc"]
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "tool"]
    assert chat_server.headers[0]["authorization"] == f"Bearer {KEY}"
    events = the_trace(env)
    deltas = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert deltas == (ANSWER if mode == "stream" else "")


def test_no_usage_from_the_server_means_marked_estimates(
    chat_server: ChatServer, docs: Path
) -> None:
    chat_server.push(Reply(content=ANSWER, usage=None))
    code, out, err = ask(chat_server, docs, "--json")
    assert code == 0
    stats = json.loads(out)["stats"]
    assert stats["tokens_estimated"] is True and stats["prompt_tokens"] > 0
    assert "≈" in next(line for line in err.splitlines() if line.startswith("answered"))


def test_rate_limits_are_retried_visibly(chat_server: ChatServer, docs: Path, env: Path) -> None:
    chat_server.push(Status(429, "slow down", retry_after="0"), Reply(content=ANSWER))
    code, out, err = ask(chat_server, docs)
    assert code == 0
    assert out == ANSWER + "\n"
    assert "[step 1] retry 1 in 0.0 s: rate limited (429)" in err.splitlines()
    assert any(isinstance(e, RetryScheduled) for e in the_trace(env))


@pytest.mark.parametrize("variable", ["LLM_BASE_URL", "OPENAI_BASE_URL"])
def test_the_endpoint_can_come_from_the_environment(
    chat_server: ChatServer, docs: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, chat_server.base_url)
    chat_server.push(Reply(content=ANSWER))
    result = CliRunner().invoke(app, ["ask", "How?", "--docs", str(docs), "--model", "m"])
    assert (result.exit_code, result.stdout) == (0, ANSWER + "\n")
    assert chat_server.requests[0]["model"] == "m"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    "responses, extra, message",
    [
        ([Status(401, f"Incorrect API key provided: {KEY}")], [], "refused the API key (401)"),
        ([Status(404, "The model does not exist")], [], "model 'test-model' not found at http://127.0.0.1:"),
        ([Status(400, "messages: too long")], [], "rejected the request (400): messages: too long"),
        ([Status(500, "boom", retry_after="0")] * 4, [], "server error from http://127.0.0.1:"),
        ([Hang([HELLO], seconds=3)], ["--timeout", "0.5"], "stopped streaming for 0.5 s"),
        ([Ping([HELLO])], ["--request-timeout", "0.5"], "within the request timeout of 0.5"),
        ([Ping()], ["--request-timeout", "0.5", "--no-stream"], "within the request timeout"),
        ([SSE(["{not json"])], [], "not valid JSON"),
    ],
)  # fmt: skip
def test_failures_are_one_line_exit_1_and_a_closed_trace(
    chat_server: ChatServer,
    docs: Path,
    env: Path,
    responses: list[object],
    extra: list[str],
    message: str,
) -> None:
    chat_server.push(*responses)  # type: ignore[arg-type]
    code, out, err = ask(chat_server, docs, *extra)
    assert code == 1
    assert out == ""
    last = err.splitlines()[-1]
    assert last.startswith("docsagent: ") and message in last
    final = the_trace(env)[-1]
    assert isinstance(final, RunFinished) and final.stop_reason == "error"
    assert final.error is not None and message in final.error


def test_connection_refused(docs: Path, env: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    result = CliRunner().invoke(
        app, ["ask", "q", "--docs", str(docs), "--base-url", url, "--model", "m"]
    )
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == f"docsagent: cannot reach {url}: connection refused"


def test_a_remote_endpoint_without_a_key_says_how_to_set_one(
    docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LLM_API_KEY")
    result = CliRunner().invoke(
        app,
        ["ask", "q", "--docs", str(docs), "--base-url", "https://llm.example.invalid/v1",
         "--model", "m"],
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        "docsagent: no API key to use https://llm.example.invalid; "
        "set LLM_API_KEY (or OPENAI_API_KEY)"
    )


@pytest.mark.parametrize(
    "status, core, hint",
    [
        (401, "the endpoint {h} refused the API key (401)", "set LLM_API_KEY (or OPENAI_API_KEY)"),
        (404, "model 'test-model' not found at {h} (404)", "check --model and --base-url"),
    ],
)
def test_the_command_line_names_the_options_the_core_error_points_at(
    chat_server: ChatServer, docs: Path, env: Path, status: int, core: str, hint: str
) -> None:
    chat_server.push(Status(status, "The model `test-model` does not exist"))
    code, out, err = ask(chat_server, docs)
    core = core.format(h=chat_server.base_url.removesuffix("/v1"))
    assert (code, err.splitlines()[-1]) == (1, f"docsagent: {core}; {hint}")
    final = the_trace(env)[-1]
    assert isinstance(final, RunFinished) and final.error == core


@pytest.mark.parametrize(
    "name, code, line",
    [
        ("SIGINT", 130, "docsagent: interrupted"),
        ("SIGTERM", 143, "docsagent: terminated (SIGTERM)"),
        ("SIGHUP", 129, "docsagent: hung up (SIGHUP)"),
    ],
)
def test_a_signal_mid_stream_exits_with_one_line_and_closes_the_trace(
    chat_server: ChatServer, docs: Path, env: Path, name: str, code: int, line: str
) -> None:
    import os
    import signal
    import subprocess
    import sys

    chat_server.push(Hang([HELLO], seconds=HOLD_LIMIT_S))  # until the signal ends the client
    script = Path(sys.executable).parent / "docsagent"
    # The child inherits an ignored SIGINT (a run started in the background); restore it.
    old_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    proc = subprocess.Popen(
        [str(script), "ask", "q", "--docs", str(docs), "--base-url", chat_server.base_url,
         "--model", "test-model"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "LLM_API_KEY": KEY, "DOCSAGENT_TRACE_DIR": str(env)},
    )  # fmt: skip
    signal.signal(signal.SIGINT, old_handler)
    # wait until the stream is under way
    assert chat_server.wait_for_requests(1, client=proc), proc.communicate()
    proc.send_signal(getattr(signal, name))
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == code, err
    assert out == ""
    assert "Traceback" not in err and KEY not in err
    assert err.splitlines()[-1] == line
    assert err.splitlines()[-2].startswith("cancelled after 1 step · 0 tool calls")
    final = the_trace(env)[-1]
    assert isinstance(final, RunFinished) and final.stop_reason == "cancelled"


@pytest.mark.parametrize("mode", ["stream", "no-stream"])
def test_a_run_reuses_one_connection(
    chat_server: ChatServer, docs: Path, env: Path, mode: str
) -> None:
    chat_server.strict = True
    chat_server.push(
        Reply(calls=[Call("grep_docs", '{"keyword": "replay"}')]),
        Reply(calls=[Call("read_doc", '{"path": "replay.md"}', id="call_2")]),
        Reply(content=ANSWER),
    )
    extra = ["--no-stream"] if mode == "no-stream" else []
    code, out, err = ask(chat_server, docs, *extra)
    assert code == 0, err
    assert len(chat_server.requests) == 3
    assert len(chat_server.chat_connections) == 1  # the probes go at once, on their own


@pytest.mark.parametrize("mode", ["stream", "no-stream"])
def test_repeated_or_missing_tool_call_ids_pass_a_strict_server(
    chat_server: ChatServer, docs: Path, env: Path, mode: str
) -> None:
    chat_server.strict = True
    chat_server.push(
        Reply(calls=[Call("list_docs", "{}", id="call_1"),
                     Call("grep_docs", '{"keyword": "replay"}', id="call_1")]),
        Reply(calls=[Call("read_doc", '{"path": "replay.md"}', id=None)]),
        Reply(calls=[Call("read_doc", '{"path": "replay.md"}', id="")]),
        Reply(content=ANSWER),
    )  # fmt: skip
    extra = ["--no-stream"] if mode == "no-stream" else []
    code, out, err = ask(chat_server, docs, *extra)
    assert code == 0, err
    assert out == ANSWER + "\n"
    sent = chat_server.requests[-1]["messages"]
    ids = [c["id"] for m in sent for c in m.get("tool_calls") or ()]
    assert len(ids) == len(set(ids)) == 4
    assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == ids


BAD_URLS = {
    "http://127.0.0.1:99999/v1": "the port must be 1 to 65535",
    "http://127.0.0.1:0/v1": "the port must be 1 to 65535",
    ":notaport": "it must start with http:// or https://",
    "http://[::1/v1": "the host in brackets is not an IPv6 address",
    "http://127.0.0.1:8000/v1\n": "it holds a space, a line break or another control character",
    "http://llm\x1b]0;x\x07.example/v1": "it holds a space, a line break or another control",
    "ftp://llm.example/v1": "it must start with http:// or https://",
    "notaurl": "it must start with http:// or https://",
    "https://": "it has no host",
    "http://a..b/v1": "the host name is not valid",
}


@pytest.mark.parametrize("url", list(BAD_URLS))
def test_a_malformed_base_url_is_one_line_and_exit_2_before_any_request(
    docs: Path, env: Path, url: str
) -> None:
    result = CliRunner().invoke(
        app, ["ask", "q", "--docs", str(docs), "--base-url", url, "--model", "m"]
    )
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"docsagent: bad base URL: {BAD_URLS[url]}")
    assert result.stderr.endswith("; check --base-url\n")  # the core's words, the CLI's option
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    assert not env.exists()  # no run was started


@pytest.mark.parametrize("url", list(BAD_URLS))
def test_the_tui_and_every_command_refuse_a_malformed_base_url(url: str) -> None:
    from agent import ConfigError
    from tui.commands.options import Options, make_config

    with pytest.raises(ConfigError, match="^bad base URL: "):
        make_config(Options(base_url=url), {"LLM_API_KEY": KEY})
    result = CliRunner().invoke(
        app, ["ask", "How?"], env={"LLM_API_KEY": KEY, "LLM_BASE_URL": None, "OPENAI_BASE_URL": url}
    )
    assert result.exit_code == 2 and result.stderr.startswith("docsagent: bad base URL: ")


def test_json_records_the_model_and_the_endpoint_never_a_key(
    chat_server: ChatServer, docs: Path
) -> None:
    chat_server.push(
        Reply(calls=[Call("read_doc", '{"path": "replay.md"}')]), Reply(content=ANSWER)
    )
    base = chat_server.base_url
    result = CliRunner().invoke(
        app,
        ["ask", "How?", "--docs", str(docs), "--model", "test-model", "--json",
         "--base-url", base.replace("://", "://user:sk-in-userinfo@")],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["model"], data["endpoint"], data["outcome"]) == ("test-model", base, "answered")
    assert "sk-in-userinfo" not in result.stdout + result.stderr
    assert "· model test-model ·" in result.stderr


def test_the_openai_fallback_is_said_once(
    chat_server: ChatServer, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LLM_API_KEY")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    chat_server.push(
        Reply(calls=[Call("read_doc", '{"path": "replay.md"}')]), Reply(content=ANSWER)
    )
    result = CliRunner().invoke(
        app, ["ask", "How?", "--docs", str(docs), "--base-url", chat_server.base_url]
    )
    assert result.exit_code == 0, result.stderr
    notice = "docsagent: using gpt-4o-mini at 127.0.0.1 because OPENAI_API_KEY is set"
    assert result.stderr.splitlines().count(notice) == 1
    assert KEY not in result.stdout + result.stderr
    monkeypatch.setenv("LLM_API_KEY", "sk-other")  # LLM_* first: nothing to say
    chat_server.push(
        Reply(calls=[Call("read_doc", '{"path": "replay.md"}')]), Reply(content=ANSWER)
    )
    result = CliRunner().invoke(
        app, ["ask", "How?", "--docs", str(docs), "--base-url", chat_server.base_url]
    )
    assert "because" not in result.stderr


def test_an_answer_that_called_no_tool_says_so_and_is_not_a_decline(
    chat_server: ChatServer, docs: Path
) -> None:
    chat_server.push(Reply(content="Use fetch() in JavaScript."))
    code, out, err = ask(chat_server, docs, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["outcome"], data["declined"]) == ("read_nothing", False)
    assert "answered without reading the docs after 1 step · 0 tool calls" in err
    assert (
        "docsagent: answered without reading the docs: the model called no tool; the model or "
        "server may not support tools (see providers.md in the manual)"
    ) in err.splitlines()
