"""An endpoint that sends what no real one would: absurd token counts, a stream without end.
What it sends never makes its own record unreadable, and never outlives the run's limits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent import errors
from agent.events import TextDelta
from agent.models.base import Delta, Reply
from agent.trace import read_trace
from tests.agent.openai_support import Factory, fail, run
from tests.chatserver import MODEL, SSE, Call, ChatServer, Completion, Endless, chunk
from tests.chatserver import Reply as Scripted
from tests.folders import docs_folder
from tui.cli import app

ABSURD = [10**30, 2**63, 1e308, -5, 2.5, "NaN", "12", True]


def completion(usage: dict[str, object]) -> str:
    body = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hi."},
                "finish_reason": "stop",
            }
        ],
        "usage": usage,
    }
    return json.dumps(body)


@pytest.mark.parametrize("value", ABSURD, ids=str)
def test_a_count_that_is_not_one_is_estimated_instead(
    chat_server: ChatServer, make: Factory, value: object
) -> None:
    chat_server.push(Completion(completion({"prompt_tokens": value, "completion_tokens": 3})))
    (reply,) = run(make(stream=False))
    assert isinstance(reply, Reply)
    assert reply.usage.estimated
    assert 0 < reply.usage.prompt_tokens < 10_000


def test_infinity_from_the_server_is_estimated_too(chat_server: ChatServer, make: Factory) -> None:
    chat_server.push(Completion(completion({"prompt_tokens": 1, "completion_tokens": 3}).replace(
        '"prompt_tokens": 1', '"prompt_tokens": 1e400'
    )))  # fmt: skip
    (reply,) = run(make(stream=False))
    assert isinstance(reply, Reply) and reply.usage.estimated


def test_sensible_counts_are_kept(chat_server: ChatServer, make: Factory) -> None:
    usage: dict[str, object] = {
        "prompt_tokens": 120,
        "completion_tokens": 7.0,
    }  # 7.0: some servers send floats
    chat_server.push(Completion(completion(usage)))
    (reply,) = run(make(stream=False))
    assert isinstance(reply, Reply)
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (120, 7)
    assert not reply.usage.estimated


def test_a_run_with_absurd_counts_leaves_a_trace_that_replays(
    chat_server: ChatServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_env: Path
) -> None:
    # 10**30, 2**63 or 1e308 prompt tokens made the trace unreadable: "line 7 is damaged".
    monkeypatch.setenv("LLM_API_KEY", "sk-test-hostile")
    docs = docs_folder(tmp_path / "docs", {"a.md": "# A\n\nText.\n"})
    chat_server.push(Completion(completion({"prompt_tokens": 10**30, "completion_tokens": 1e308})))
    base = ["--docs", str(docs), "--model", MODEL, "--base-url", chat_server.base_url]
    asked = CliRunner().invoke(app, ["ask", "What is A?", *base, "--no-stream"])
    assert asked.exit_code == 0, asked.stderr
    (trace,) = cli_env.glob("*.jsonl")
    assert read_trace(trace).complete
    replayed = CliRunner().invoke(app, ["replay", "--print", str(trace)])
    assert replayed.exit_code == 0, replayed.stderr
    assert "prompt + ≈" in replayed.stderr  # estimated, and said to be


def test_a_stream_that_never_ends_is_cut_short_at_the_reply_limit(
    chat_server: ChatServer, make: Factory
) -> None:
    chat_server.push(Endless(piece="x" * 1000))
    chunks = run(make(max_reply_chars=50_000, request_timeout=60.0))
    reply = chunks[-1]
    assert isinstance(reply, Reply)
    assert reply.finish_reason == "length"  # cut short, as at a length limit
    assert reply.message.content is not None
    assert 50_000 < len(reply.message.content) <= 51_000
    assert sum(len(c.text) for c in chunks if isinstance(c, Delta)) == len(reply.message.content)


def test_endless_tool_call_arguments_count_toward_the_limit(
    chat_server: ChatServer, make: Factory
) -> None:
    call = {"index": 0, "id": "c1", "type": "function", "function": {"name": "search_docs"}}
    piece = {"index": 0, "function": {"arguments": "x" * 1000}}
    events = [chunk({"tool_calls": [call]}), *[chunk({"tool_calls": [piece]})] * 100]
    chat_server.push(SSE(events, done=False))
    reply = run(make(max_reply_chars=20_000))[-1]
    assert isinstance(reply, Reply) and reply.finish_reason == "length"
    assert len(reply.message.tool_calls[0].arguments) <= 21_000


def test_the_request_deadline_holds_while_pieces_keep_arriving(
    chat_server: ChatServer, make: Factory
) -> None:
    # Each piece resets the wait for the next one; the request's deadline must still hold
    # (the server would stream for 30 s, then close: a different error).
    chat_server.push(Endless(piece="x", seconds=30.0))
    _, error = fail(make(request_timeout=1.0))
    assert isinstance(error, errors.ModelError)
    assert "within the request timeout of 1 s" in str(error)


def test_a_stream_line_that_never_ends_ends_the_run_with_one_line(
    chat_server: ChatServer, cli_env: Path, tmp_path: Path
) -> None:
    docs = docs_folder(tmp_path / "docs", {"a.md": "# A\n\nText.\n"})
    chat_server.push(Endless(piece="x" * 65536, line=True))
    base = ["--docs", str(docs), "--model", MODEL, "--base-url", chat_server.base_url]
    asked = CliRunner().invoke(app, ["ask", "What is A?", *base])
    assert asked.exit_code == 1
    host = chat_server.base_url.removesuffix("/v1")
    assert asked.stderr.splitlines()[-1] == (
        f"docsagent: {host} sent a stream event (one line or more) longer than 8 MiB, "
        "the most docsagent reads; the reply was cut off"
    )
    assert len(chat_server.requests) == 1  # not retried
    (trace,) = cli_env.glob("*.jsonl")
    loaded = read_trace(trace)
    assert loaded.complete and loaded.events[-1].stop_reason == "error"  # type: ignore[attr-defined]


def test_many_short_lines_of_one_event_count_as_one_event(
    chat_server: ChatServer, make: Factory
) -> None:
    # `data:` lines without the blank line that ends an event pile up in the SDK's decoder.
    line = "data: " + "z" * 1000 + "\n"
    chat_server.push(SSE([line * 9000], done=False))  # about 9 MB in one event
    _, error = fail(make())
    assert isinstance(error, errors.ProtocolError)
    assert "a stream event (one line or more) longer than 8 MiB" in str(error)


def test_a_whole_reply_past_its_bound_is_refused(chat_server: ChatServer, make: Factory) -> None:
    body = completion({"prompt_tokens": 1, "completion_tokens": 1})
    chat_server.push(Completion(body.replace('"Hi."', json.dumps("x" * (33 * 2**20)))))
    _, error = fail(make(stream=False))
    assert isinstance(error, errors.ProtocolError)
    assert str(error).endswith(
        "sent a reply longer than 32 MiB, the most docsagent reads; the reply was cut off"
    )
    assert len(chat_server.requests) == 1


def test_a_tool_name_of_megabytes_is_cut_and_the_trace_stays_readable(
    chat_server: ChatServer, cli_env: Path, tmp_path: Path
) -> None:
    docs = docs_folder(tmp_path / "docs", {"a.md": "# A\n\nText.\n"})
    name = "n" * 10_000_000
    long_id = "i" * 5_000
    chat_server.push(
        Scripted(calls=[Call(name, "{}", id=long_id)], finish_reason="tool_calls"),
        Scripted("A is text (a.md:3-3)."),
    )
    base = ["--docs", str(docs), "--model", MODEL, "--base-url", chat_server.base_url]
    asked = CliRunner().invoke(app, ["ask", "What is A?", *base, "--no-stream"])
    assert asked.exit_code == 0, asked.stderr
    (trace,) = cli_env.glob("*.jsonl")
    assert trace.stat().st_size < 100_000
    shown = "n" * 64 + "… (10,000,000 characters)"
    started = [e for e in read_trace(trace).events if type(e).__name__ == "ToolCallStarted"]
    assert [e.name for e in started] == [shown]  # type: ignore[attr-defined]
    assert long_id not in trace.read_text()
    replayed = CliRunner().invoke(app, ["replay", "--print", str(trace)])
    assert replayed.exit_code == 0 and "answered after 2 steps" in replayed.stderr
    exported = CliRunner().invoke(app, ["export", str(trace)])
    assert exported.exit_code == 0 and shown in exported.stdout


def test_a_tool_name_streamed_without_end_counts_toward_the_reply_limit(
    chat_server: ChatServer, make: Factory
) -> None:
    first = {"index": 0, "id": "c1", "type": "function", "function": {"name": "n"}}
    piece = {"index": 0, "function": {"name": "n" * 1000}}
    chat_server.push(SSE([chunk({"tool_calls": [first]}), *[chunk({"tool_calls": [piece]})] * 100]))
    reply = run(make(max_reply_chars=20_000))[-1]
    assert isinstance(reply, Reply) and reply.finish_reason == "length"
    assert reply.message.tool_calls[0].name.endswith("… (20,001 characters)")


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_a_key_the_server_echoes_is_scrubbed_from_every_output(
    chat_server: ChatServer, cli_env: Path, tmp_path: Path, stream: bool
) -> None:
    key = "sk-live-0123456789abcdef"
    docs = docs_folder(tmp_path / "docs", {"a.md": "# A\n\nText.\n"})
    echoed = json.dumps({"keyword": f"{key} and {key.upper()}"})
    chat_server.push(
        Scripted(calls=[Call("grep_docs", echoed, pieces=7)], finish_reason="tool_calls"),
        Scripted(f"Your key is {key}, or {key.upper()} (a.md:3-3).", text_piece=5),
    )
    base = ["--docs", str(docs), "--model", MODEL, "--base-url", chat_server.base_url]
    extra = [] if stream else ["--no-stream"]
    asked = CliRunner(env={"LLM_API_KEY": key}).invoke(
        app, ["ask", "What is A?", *base, "--json", *extra]
    )
    assert asked.exit_code == 0, asked.stderr
    (trace,) = cli_env.glob("*.jsonl")
    written = trace.read_text()
    shown = "".join(e.text for e in read_trace(trace).events if isinstance(e, TextDelta))
    for output in (asked.stdout, asked.stderr, written, shown):  # the deltas as the TUI joins them
        assert key not in output and key.upper() not in output
    assert json.loads(asked.stdout)["answer"] == "Your key is ***, or *** (a.md:3-3)."
    assert '"arguments": "{\\"keyword\\": \\"*** and ***\\"}"' in written
