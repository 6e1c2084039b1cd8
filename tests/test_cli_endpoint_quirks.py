"""`docsagent ask` and `export` against servers that behave like the real ones: a reply cut
by the length limit, an empty reply, a stream refused with tools, a small context."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.events import ContextCompacted, ModelNotice
from agent.trace import read_trace
from tests.chatserver import SSE, Call, ChatServer, Reply
from tests.test_cli_endpoint import ANSWER, ask, env, the_trace
from tui.cli import app

__all__ = ["env"]  # a fixture (`docs` is the shared one in tests/conftest.py)

REFUSED = {"error": {"message": "Automatic streaming tool choice is not supported"}}


def test_a_reply_cut_by_the_length_limit_is_cut_short_exit_3(
    chat_server: ChatServer, docs: Path
) -> None:
    chat_server.push(Reply(content="Run `docsagent rep", finish_reason="length"))
    code, out, err = ask(chat_server, docs, "--json")
    assert code == 3
    data = json.loads(out)
    assert (data["stop_reason"], data["answer"]) == ("truncated", "Run `docsagent rep")
    assert err.splitlines()[0].startswith("cut short after 1 step")
    assert err.splitlines()[-1] == (
        "docsagent: the reply was cut short at the length limit "
        "(the reply token limit, or the server's context)"
    )
    assert chat_server.requests[0]["max_tokens"] == 2048  # the default reply limit


def test_the_reply_limit_can_be_set(
    chat_server: ChatServer, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat_server.push(Reply(content=ANSWER), Reply(content=ANSWER))
    assert ask(chat_server, docs, "--max-reply-tokens", "300")[0] == 0
    monkeypatch.setenv("DOCSAGENT_MAX_REPLY_TOKENS", "200")
    assert ask(chat_server, docs)[0] == 0
    assert [body["max_tokens"] for body in chat_server.requests] == [300, 200]


def test_an_empty_reply_is_no_answer_naming_the_model(chat_server: ChatServer, docs: Path) -> None:
    chat_server.push(Reply(content=""))
    code, out, err = ask(chat_server, docs)
    assert (code, out) == (3, "")
    assert err.splitlines()[0].startswith("no answer after 1 step")
    assert err.splitlines()[-1] == (
        "docsagent: the model test-model sent an empty reply (no text and no tool call)"
    )


def test_a_stream_refused_with_tools_falls_back_once_and_says_so(
    chat_server: ChatServer, docs: Path, env: Path
) -> None:
    chat_server.push(
        SSE([REFUSED]),
        Reply(calls=[Call("read_doc", '{"path": "replay.md"}')]),
        Reply(content=ANSWER),
    )
    code, out, err = ask(chat_server, docs)
    assert code == 0, err
    assert out == ANSWER + "\n"
    line = (
        f"[step 1] http://127.0.0.1:{chat_server.port} could not stream this reply (Automatic "
        "streaming tool choice is not supported); asking without streaming from now on"
    )
    assert err.splitlines().count(line) == 1
    assert [body.get("stream", False) for body in chat_server.requests] == [True, False, False]
    notices = [e for e in the_trace(env) if isinstance(e, ModelNotice)]
    assert len(notices) == 1  # kept in the trace: replay shows it too


def test_a_small_context_is_never_overflowed_by_the_history(
    chat_server: ChatServer, docs: Path, env: Path
) -> None:
    long = "\n".join(f"line {n}: " + "word " * 30 for n in range(400))
    (docs / "long.md").write_text(long)
    chat_server.props = {"default_generation_settings": {"n_ctx": 2048}}
    reads = [
        Reply(calls=[Call("read_doc", json.dumps({"path": "long.md", "start": s}), id=f"c{s}")])
        for s in (1, 50, 100, 150, 200)
    ]
    chat_server.push(*reads, Reply(content=ANSWER))
    code, _, err = ask(chat_server, docs, "--max-steps", "8")
    assert code == 0, err
    sizes = [len(json.dumps(body["messages"])) // 4 for body in chat_server.requests]
    tools = len(json.dumps(chat_server.requests[0]["tools"])) // 4
    assert all(size + tools + 512 < 2048 for size in sizes), sizes
    assert any(isinstance(e, ContextCompacted) for e in the_trace(env))


def test_export_openai_is_what_was_sent_and_a_strict_server_takes_it(
    chat_server: ChatServer, docs: Path, env: Path, tmp_path: Path
) -> None:
    chat_server.strict = True
    chat_server.push(
        Reply(calls=[Call("read_doc", '{"path": "replay.md"}')]), Reply(content=ANSWER)
    )
    assert ask(chat_server, docs)[0] == 0
    (trace,) = env.iterdir()
    result = CliRunner().invoke(app, ["export", str(trace), "--format", "openai"])
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)
    sent = chat_server.requests[-1]
    assert body["messages"][:-1] == sent["messages"]  # plus the model's answer
    assert (body["tools"], body["tool_choice"]) == (sent["tools"], "auto")
    chat_server.push(Reply(content="accepted"))
    request = urllib.request.Request(
        f"{chat_server.base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:  # a 400 would raise
        assert json.load(response)["choices"][0]["message"]["content"] == "accepted"
    assert read_trace(trace).complete


def test_the_context_can_be_set_and_an_overflow_names_the_setting(
    chat_server: ChatServer, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.chatserver import Status

    overflow = "Requested tokens (6443) exceed context window of 2048"
    chat_server.push(Reply(content=ANSWER), Status(400, overflow))
    monkeypatch.setenv("DOCSAGENT_CONTEXT", "2048")
    assert ask(chat_server, docs)[0] == 0
    assert chat_server.requests[0]["max_tokens"] == 512  # a quarter of the context
    assert chat_server.gets == []  # a given size is not asked
    code, _, err = ask(chat_server, docs, "--context", "4096")
    assert code == 1
    assert err.splitlines()[-1] == (
        f"docsagent: the conversation does not fit the context of "
        f"http://127.0.0.1:{chat_server.port} (400): {overflow}; check --context "
        "(DOCSAGENT_CONTEXT)"
    )
