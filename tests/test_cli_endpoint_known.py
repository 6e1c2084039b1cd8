"""An endpoint learned once: its context, its listing and whether it streams tool calls are
kept in the cache folder with their age and reused by the next run (tests/chatserver.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.models.openai.known import MAX_AGE_S
from tests.chatserver import SSE, ChatServer, Reply
from tui.cli import app

ANSWER = "Run `docsagent replay FILE` to watch it again (replay.md:3)."
PROBES = ["/api/v0/models", "/props", "/v1/models"]
REFUSED = {"error": {"message": "Automatic streaming tool choice is not supported"}}


@pytest.fixture(autouse=True)
def env(cli_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LLM_API_KEY", "sk-test-0123456789")
    return cli_env


def ask(server: ChatServer, docs: Path, *extra: str) -> tuple[int, str]:
    args = ["ask", "How do I replay?", "--docs", str(docs), "--base-url", server.base_url]
    result = CliRunner().invoke(app, [*args, "--model", "m", *extra])
    assert "Traceback" not in result.stderr
    return result.exit_code, result.stderr


def known(cache_dir: Path) -> dict[str, object]:
    data = json.loads((cache_dir / "endpoints.json").read_text())
    (entry,) = data["endpoints"].values()
    assert isinstance(entry, dict)
    return entry


def test_the_endpoint_is_probed_once_and_the_next_run_asks_nothing_first(
    chat_server: ChatServer, docs: Path, cache_dir: Path
) -> None:
    chat_server.props = {"default_generation_settings": {"n_ctx": 2048}}
    chat_server.push(Reply(content=ANSWER), Reply(content=ANSWER))
    assert ask(chat_server, docs)[0] == 0
    assert sorted(chat_server.gets) == PROBES  # the three at once
    entry = known(cache_dir)
    assert (entry["context"], entry["streams_tools"]) == (2048, None)
    assert ask(chat_server, docs)[0] == 0
    assert sorted(chat_server.gets) == PROBES  # the second run asked the file, not the server
    assert [r["max_tokens"] for r in chat_server.requests] == [512, 512]  # the context, reused


def test_an_entry_older_than_its_age_is_asked_again(
    chat_server: ChatServer, docs: Path, cache_dir: Path
) -> None:
    chat_server.push(Reply(content=ANSWER), Reply(content=ANSWER))
    ask(chat_server, docs)
    path = cache_dir / "endpoints.json"
    data = json.loads(path.read_text())
    for entry in data["endpoints"].values():
        entry["learned"] -= MAX_AGE_S + 1
    path.write_text(json.dumps(data))
    ask(chat_server, docs)
    assert sorted(chat_server.gets) == sorted(PROBES * 2)


def test_a_damaged_file_is_asked_again_and_written_anew(
    chat_server: ChatServer, docs: Path, cache_dir: Path
) -> None:
    cache_dir.mkdir(parents=True)
    (cache_dir / "endpoints.json").write_text('{"version": 1, "endpoints": {"x": [')
    chat_server.push(Reply(content=ANSWER))
    assert ask(chat_server, docs)[0] == 0
    assert sorted(chat_server.gets) == PROBES
    assert known(cache_dir)["probed"] is True


def test_a_given_context_means_no_probe(chat_server: ChatServer, docs: Path) -> None:
    chat_server.push(Reply(content=ANSWER))
    assert ask(chat_server, docs, "--context", "4096")[0] == 0
    assert chat_server.gets == []


def test_a_server_that_cannot_stream_tool_calls_is_asked_unstreamed_by_the_next_run(
    chat_server: ChatServer, docs: Path, cache_dir: Path
) -> None:
    chat_server.push(SSE([REFUSED]), Reply(content=ANSWER), Reply(content=ANSWER))
    code, err = ask(chat_server, docs)
    assert code == 0 and "asking without streaming from now on" in err
    assert known(cache_dir)["streams_tools"] is False
    code, err = ask(chat_server, docs)
    assert code == 0 and "streaming" not in err  # no notice, no wasted request
    assert [body.get("stream", False) for body in chat_server.requests] == [True, False, False]


def test_what_is_learned_with_a_given_context_is_reused_without_it(
    chat_server: ChatServer, docs: Path
) -> None:
    chat_server.push(SSE([REFUSED]), Reply(content=ANSWER), Reply(content=ANSWER))
    assert ask(chat_server, docs, "--context", "4096")[0] == 0
    assert chat_server.gets == []
    assert ask(chat_server, docs)[0] == 0  # the context was never probed: it is now
    assert sorted(chat_server.gets) == PROBES
    assert [body.get("stream", False) for body in chat_server.requests] == [True, False, False]
