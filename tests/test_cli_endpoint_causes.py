"""Errors and warnings that name their cause, each the line a user sees, against a real
chat-completions server on 127.0.0.1 (tests/chatserver.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.events import ModelReplied, RunFinished, TextDelta
from agent.models.openai.address import is_private
from agent.trace import read_trace
from tests.chatserver import ChatServer, Cut, Reply, Status, chunk
from tui.cli import app

KEY = "sk-live-abcdef0123456789"
ANSWER = "Run `docsagent replay FILE` to watch it again (replay.md:3)."


@pytest.fixture(autouse=True)
def env(cli_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LLM_API_KEY", KEY)
    return cli_env


def ask(base_url: str, docs: Path, *extra: str, model: str = "test-model") -> tuple[int, str, str]:
    args = ["ask", "How do I replay?", "--docs", str(docs), "--base-url", base_url]
    result = CliRunner().invoke(app, [*args, "--model", model, *extra])
    assert "Traceback" not in result.stderr and KEY not in result.stderr
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    "path, hint",
    [
        ("/v2", " (most servers want it to end in /v1)"),
        ("", " (most servers want it to end in /v1)"),
        ("/v1/chat/completions", " (it ends before /chat/completions, which docsagent adds)"),
    ],
)
def test_a_path_that_is_no_api_route_says_the_base_url_is_wrong_and_shows_the_url_tried(
    chat_server: ChatServer, docs: Path, path: str, hint: str
) -> None:
    base = chat_server.base_url.removesuffix("/v1") + path
    code, out, err = ask(base, docs)
    assert (code, out) == (1, "")
    assert err.splitlines()[-1] == (
        f"docsagent: {base}/chat/completions is not an API route (404), "
        f"so the base URL is likely wrong{hint}; check --base-url"
    )


def test_a_model_the_server_does_not_know_is_still_named_as_such(
    chat_server: ChatServer, docs: Path
) -> None:
    chat_server.push(Status(404, "The model `test-model` does not exist."))
    code, _, err = ask(chat_server.base_url, docs)
    host = chat_server.base_url.removesuffix("/v1")
    assert (code, err.splitlines()[-1]) == (
        1,
        f"docsagent: model 'test-model' not found at {host} (404); check --model and --base-url",
    )


def test_a_model_name_the_server_does_not_list_is_a_warning_naming_the_ones_it_lists(
    chat_server: ChatServer, docs: Path
) -> None:
    chat_server.models = {"object": "list", "data": [{"id": "smollm2"}, {"id": "qwen2.5-0.5b"}]}
    chat_server.push(Reply(content=ANSWER))
    code, out, err = ask(chat_server.base_url, docs, model="smollm3")
    assert (code, out) == (0, ANSWER + "\n")
    assert (
        f"[step 1] warning: {chat_server.base_url}/models does not list the model 'smollm3'; "
        "it lists smollm2, qwen2.5-0.5b"
    ) in err.splitlines()


def test_a_listed_model_gets_no_warning(chat_server: ChatServer, docs: Path) -> None:
    chat_server.models = {"object": "list", "data": [{"id": "smollm2"}]}
    chat_server.push(Reply(content=ANSWER))
    code, _, err = ask(chat_server.base_url, docs, model="smollm2")
    assert code == 0
    assert "does not list" not in err


def summary(err: str) -> str:
    return next(line for line in err.splitlines() if line.startswith("answered"))


def test_a_local_endpoint_has_no_list_price(chat_server: ChatServer, docs: Path) -> None:
    chat_server.push(Reply(content=ANSWER, usage=(1000, 100)))
    code, out, err = ask(chat_server.base_url, docs, "--json", model="gpt-4o-mini")
    assert code == 0
    assert "$" not in summary(err)
    assert json.loads(out)["stats"].get("cost_usd") is None


def test_a_local_endpoint_is_priced_when_the_user_gives_a_price(
    chat_server: ChatServer, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCSAGENT_PRICES", '{"gpt-4o-mini": [1.0, 2.0]}')
    chat_server.push(Reply(content=ANSWER, usage=(1000, 100)))
    code, _, err = ask(chat_server.base_url, docs, model="gpt-4o-mini")
    assert code == 0
    assert "≈$0.0012" in summary(err)


@pytest.mark.parametrize(
    "url, private",
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://[::1]:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://10.0.0.7/v1", True),
        ("http://192.168.1.20:8000/v1", True),
        ("http://[fd00::5]/v1", True),
        ("http://gpu-box.local:8000/v1", True),
        ("https://api.openai.com/v1", False),
        ("http://8.8.8.8/v1", False),
    ],
)
def test_which_endpoints_count_as_local_or_private(url: str, private: bool) -> None:
    assert is_private(url) is private


def test_a_question_that_alone_exceeds_the_context_is_refused_before_sending(
    chat_server: ChatServer, docs: Path
) -> None:
    question = "why " * 500
    args = ["ask", question, "--docs", str(docs), "--base-url", chat_server.base_url]
    result = CliRunner().invoke(app, [*args, "--model", "m", "--context", "256"])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        f"docsagent: the question is about 508 tokens, more than the whole context of "
        f"{chat_server.base_url.removesuffix('/v1')} (256 tokens): not sent; shorten the question"
    )
    assert chat_server.requests == []


def test_a_question_that_fits_is_sent(chat_server: ChatServer, docs: Path) -> None:
    chat_server.push(Reply(content=ANSWER))
    code, out, _ = ask(chat_server.base_url, docs, "--context", "4096")
    assert (code, out) == (0, ANSWER + "\n")


def test_a_server_that_dies_mid_stream_leaves_its_text_shown_and_counted_as_cut_off(
    chat_server: ChatServer, docs: Path, env: Path
) -> None:
    partial = "The partial answer is that repl"
    chat_server.push(Cut([chunk({"role": "assistant", "content": partial})]))
    code, out, err = ask(chat_server.base_url, docs)
    host = chat_server.base_url.removesuffix("/v1")
    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert lines[0] == f"[step 1] reply cut off after ≈8 tok: {partial}"
    assert "≈8 completion tokens" in lines[1]
    assert lines[-1].startswith(
        f"docsagent: {host} broke off the reply mid-stream after ≈8 tokens: "
    )
    (path,) = env.iterdir()
    events = list(read_trace(path).events)
    assert [e.text for e in events if isinstance(e, TextDelta)] == [partial]
    (cut,) = [e for e in events if isinstance(e, ModelReplied)]
    assert (cut.finish_reason, cut.usage.completion_tokens, cut.usage.estimated) == (
        "cut_off",
        8,
        True,
    )
    final = events[-1]
    assert isinstance(final, RunFinished) and final.stats.usage.completion_tokens == 8
