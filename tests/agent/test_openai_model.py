"""OpenAIModel: the real openai SDK talking HTTP to the scripted server in tests/chatserver.py."""

from __future__ import annotations

import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agent import errors
from agent.events import Usage
from agent.messages import Message, ToolCall, assistant, system, tool_result, user
from agent.models.base import Chunk, Delta, Reply, Retry, estimate_usage
from agent.models.openai import OpenAIModel
from tests.chatserver import (
    SSE,
    Call,
    ChatServer,
    Completion,
    Drop,
    Hang,
    Status,
    chunk,
    usage_chunk,
    validate,
)
from tests.chatserver import Reply as Scripted

KEY = "sk-test-0123456789-secret"
MESSAGES = (system("Answer from the docs."), user("How do I replay a trace?"))
TOOLS = (
    {
        "type": "function",
        "function": {
            "name": "search_docs",
            "description": "Search the docs.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    },
)
BOTH = pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])

Factory = Callable[..., OpenAIModel]


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def make(chat_server: ChatServer, sleeps: list[float]) -> Iterator[Factory]:
    """Build models against the test server (frozen clock, recorded sleeps); close them after."""
    models: list[OpenAIModel] = []

    def factory(**options: Any) -> OpenAIModel:
        settings: dict[str, Any] = {
            "api_key": KEY,
            "base_url": chat_server.base_url,
            "timeout": 5.0,
            "sleep": sleeps.append,
            "clock": lambda: 0.0,
            **options,
        }
        model = OpenAIModel("test-model", **settings)
        models.append(model)
        return model

    yield factory
    for model in models:
        model.close()


def run(model: OpenAIModel, tools: Any = TOOLS) -> list[Chunk]:
    return list(model.query(MESSAGES, tools))


def fail(model: OpenAIModel) -> tuple[list[Chunk], errors.ModelError]:
    """The chunks yielded before the query raised, and the error."""
    chunks: list[Chunk] = []
    with pytest.raises(errors.ModelError) as info:
        chunks.extend(model.query(MESSAGES, TOOLS))
    assert KEY not in str(info.value)
    assert "\n" not in str(info.value)
    return chunks, info.value


def host(server: ChatServer) -> str:
    return f"http://127.0.0.1:{server.port}"


# --- replies -------------------------------------------------------------------------

TEXT = "To replay a trace, run docsagent replay with the trace file."


def test_streamed_text_is_coalesced_and_usage_comes_from_the_last_chunk(
    chat_server: ChatServer, make: Factory
) -> None:
    chat_server.push(Scripted(content=TEXT, usage=(42, 7)))
    chunks = run(make(), tools=())
    # the first piece at once, then 40 characters at a time
    assert chunks == [
        Delta(TEXT[:4]),
        Delta(TEXT[4:44]),
        Delta(TEXT[44:]),
        Reply(Message("assistant", TEXT), Usage(42, 7), "stop"),
    ]
    body = chat_server.requests[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["model"] == "test-model"
    assert body["messages"] == [m.to_dict() for m in MESSAGES]
    assert "tools" not in body
    assert chat_server.headers[0]["authorization"] == f"Bearer {KEY}"


def test_streamed_text_is_flushed_when_time_passes(chat_server: ChatServer, make: Factory) -> None:
    ticks = iter(range(1000))
    chat_server.push(Scripted(content="abcdefghij", text_piece=4))
    chunks = run(make(clock=lambda: next(ticks) * 0.1))
    assert chunks[:-1] == [Delta("abcd"), Delta("efgh"), Delta("ij")]


def test_whole_reply_is_one_chunk(chat_server: ChatServer, make: Factory) -> None:
    chat_server.push(Scripted(content=TEXT, usage=(42, 7)))
    assert run(make(stream=False)) == [Reply(Message("assistant", TEXT), Usage(42, 7), "stop")]
    body = chat_server.requests[0]
    assert "stream" not in body and "stream_options" not in body
    assert body["tools"] == list(TOOLS)


@BOTH
def test_parallel_tool_calls_are_reassembled(
    chat_server: ChatServer, make: Factory, stream: bool
) -> None:
    calls = [
        Call("search_docs", '{"query": "replay trace"}', id="call_a", pieces=4),
        Call("read_doc", '{"path": "traces.md", "start": 1}', id="call_b", pieces=5),
    ]
    chat_server.push(Scripted(calls=calls, finish_reason="tool_calls", usage=None, interleave=True))
    chunks = run(make(stream=stream))
    message = assistant(
        None,
        (
            ToolCall("call_a", "search_docs", '{"query": "replay trace"}'),
            ToolCall("call_b", "read_doc", '{"path": "traces.md", "start": 1}'),
        ),
    )
    assert chunks == [Reply(message, estimate_usage(MESSAGES, TOOLS, message), "tool_calls")]
    assert chunks[0].usage.estimated  # type: ignore[union-attr]


def test_text_and_a_tool_call_in_one_streamed_turn(chat_server: ChatServer, make: Factory) -> None:
    chat_server.push(Scripted(content="Let me look.", calls=[Call("search_docs", '{"q": 1}')]))
    chunks = run(make())
    call = ToolCall("call_1", "search_docs", '{"q": 1}')
    assert chunks == [
        Delta("Let "),
        Delta("me look."),
        Reply(assistant("Let me look.", (call,)), Usage(10, 5), "tool_calls"),
    ]


def frag(index: int | None = None, id: str | None = None, name: str | None = None,
         args: str | None = None) -> dict[str, Any]:  # fmt: skip
    fragment: dict[str, Any] = {"function": {}}
    if index is not None:
        fragment["index"] = index
    if id is not None:
        fragment["id"] = id
    if name is not None:
        fragment["function"]["name"] = name
    if args is not None:
        fragment["function"]["arguments"] = args
    return chunk({"tool_calls": [fragment]})


QUIRKS: dict[str, tuple[list[Any], tuple[ToolCall, ...], str | None]] = {
    "content null, no id, empty args, stop": (
        [chunk({"role": "assistant", "content": None}), frag(0, None, "list_docs", ""),
         chunk({}, "stop")],
        (ToolCall("call_1", "list_docs", "{}"),),
        "tool_calls",
    ),
    "missing index, id and name repeated": (
        [frag(None, "c1", "search_docs", '{"q"'), frag(None, "c1", "search_docs", ': "x"}'),
         chunk({}, "tool_calls")],
        (ToolCall("c1", "search_docs", '{"q": "x"}'),),
        "tool_calls",
    ),
    "id arriving late, no finish reason": (
        [frag(0, None, "search_docs", '{"q":'), frag(0, "late", None, ' 1}')],
        (ToolCall("late", "search_docs", '{"q": 1}'),),
        "tool_calls",
    ),
    "index 0 reused for parallel calls": (
        [frag(0, "a", "search_docs", '{"q": 1}'), frag(0, "b", "read_doc", '{"p": 2}')],
        (ToolCall("a", "search_docs", '{"q": 1}'), ToolCall("b", "read_doc", '{"p": 2}')),
        "tool_calls",
    ),
    "whole calls without index or id": (
        [frag(None, None, "search_docs", '{"q": 1}'), frag(None, None, "search_docs", '{"q": 2}')],
        (ToolCall("call_1", "search_docs", '{"q": 1}'),
         ToolCall("call_2", "search_docs", '{"q": 2}')),
        "tool_calls",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(QUIRKS))
def test_streamed_tool_call_quirks(chat_server: ChatServer, make: Factory, name: str) -> None:
    events, calls, finish = QUIRKS[name]
    chat_server.push(SSE([*events, usage_chunk(3, 4)]))
    assert run(make()) == [Reply(assistant(None, calls), Usage(3, 4), finish)]


def test_streamed_extra_fields_empty_tool_calls_and_no_finish_reason(
    chat_server: ChatServer, make: Factory
) -> None:
    odd = chunk({"content": "Hi", "tool_calls": [], "reasoning_content": "hmm"})
    odd["x_provider"] = {"region": "eu"}
    chat_server.push(SSE([odd, {**usage_chunk(1, 2), "choices": None}]))
    assert run(make()) == [Delta("Hi"), Reply(Message("assistant", "Hi"), Usage(1, 2), None)]


def completion(message: dict[str, Any], finish: str | None, **extra: Any) -> dict[str, Any]:
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return {"id": "x", "object": "chat.completion", "choices": [choice], **extra}


def test_whole_reply_quirks(chat_server: ChatServer, make: Factory) -> None:
    call = {"type": "function", "function": {"name": "list_docs", "arguments": ""}, "extra": 1}
    chat_server.push(
        Completion(completion({"role": "assistant", "content": None, "tool_calls": [call]}, "stop",
                              usage={"prompt_tokens": 5, "completion_tokens": 6}, odd=True)),
        Completion(completion({"role": "assistant", "content": "Hi", "tool_calls": []}, None)),
    )  # fmt: skip
    model = make(stream=False)
    expected = assistant(None, (ToolCall("call_1", "list_docs", "{}"),))
    assert run(model) == [Reply(expected, Usage(5, 6), "tool_calls")]
    plain = Message("assistant", "Hi")
    assert run(model) == [Reply(plain, estimate_usage(MESSAGES, TOOLS, plain), None)]


def test_a_local_server_needs_no_key(chat_server: ChatServer, make: Factory) -> None:
    chat_server.push(Scripted(content="ok"))
    assert run(make(api_key=None))[-1] == Reply(Message("assistant", "ok"), Usage(10, 5), "stop")
    assert chat_server.headers[0]["authorization"] == "Bearer not-needed"


def test_strict_server_accepts_answered_tool_calls(chat_server: ChatServer, make: Factory) -> None:
    chat_server.strict = True
    call = ToolCall("call_a", "search_docs", '{"query": "replay"}')
    history = [*MESSAGES, assistant(None, (call,)), tool_result(call, "traces.md:1-3")]
    chat_server.push(Scripted(content="Use replay."))
    assert list(make().query(history, TOOLS))[-1].message.content == "Use replay."  # type: ignore[union-attr]
    assert chat_server.requests[0]["messages"][2]["content"] is None


def test_strict_server_rejects_unanswered_tool_calls(
    chat_server: ChatServer, make: Factory
) -> None:
    chat_server.strict = True
    history = [*MESSAGES, assistant(None, (ToolCall("call_a", "search_docs", "{}"),)), user("?")]
    with pytest.raises(errors.BadRequestError) as info:
        list(make().query(history, TOOLS))
    assert str(info.value) == (
        f"{host(chat_server)} rejected the request (400): "
        "messages[3]: tool_call_ids ['call_a'] have no tool response message"
    )
    assert chat_server.script == type(chat_server.script)()  # nothing was consumed


def test_validate_matches_tool_messages_to_calls() -> None:
    call = {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    asked = {"role": "assistant", "content": None, "tool_calls": [call]}
    answer = {"role": "tool", "tool_call_id": "a", "content": "x"}
    assert validate([{"role": "user", "content": "q"}, asked, answer]) is None
    assert validate([asked]) == "tool_call_ids ['a'] have no tool response message"
    assert validate([asked, answer, answer]) == (
        "messages[2]: a tool message must answer a preceding tool call; no pending tool_call_id 'a'"
    )


# --- errors --------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_no_key_for_a_remote_endpoint() -> None:
    model = OpenAIModel("gpt-4o-mini", api_key="", base_url="https://api.example.com/v1")
    with pytest.raises(errors.AuthenticationError) as info:
        run(model)
    assert str(info.value) == (
        "no API key: set LLM_API_KEY (or OPENAI_API_KEY) to use https://api.example.com"
    )


@BOTH
def test_a_refused_key_is_never_quoted(
    chat_server: ChatServer, make: Factory, stream: bool
) -> None:
    chat_server.api_key = "sk-the-right-one"  # the server echoes the wrong key it got
    chunks, error = fail(make(stream=stream))
    assert isinstance(error, errors.AuthenticationError)
    refused = "refused the API key (401); set LLM_API_KEY"
    assert str(error) == f"the endpoint {host(chat_server)} {refused}"
    assert chunks == []


@BOTH
@pytest.mark.parametrize(
    ("status", "kind", "message"),
    [
        (403, errors.AuthenticationError,
         "the endpoint {h} refused the API key (403); set LLM_API_KEY"),
        (404, errors.ModelNotFoundError,
         "model 'test-model' not found at {h} (404); check --model and --base-url"),
        (400, errors.BadRequestError, "{h} rejected the request (400): bad *** in tools"),
        (422, errors.BadRequestError, "{h} rejected the request (422): bad *** in tools"),
    ],
)  # fmt: skip
def test_status_errors(
    chat_server: ChatServer, make: Factory, stream: bool, status: int, kind: type, message: str
) -> None:
    chat_server.push(Status(status, f"bad {KEY} in \n tools"))
    chunks, error = fail(make(stream=stream))
    assert type(error) is kind
    assert str(error) == message.format(h=host(chat_server))
    assert chunks == []


@BOTH
def test_rate_limits_are_retried_honouring_retry_after(
    chat_server: ChatServer, make: Factory, sleeps: list[float], stream: bool
) -> None:
    chat_server.push(
        Status(429, "slow down", retry_after="2"),
        Status(429, "slow down", headers={"retry-after-ms": "250"}),
        Status(503, "busy", retry_after="600"),
        Scripted(content="ok"),
    )
    chunks = run(make(stream=stream))
    assert chunks[:3] == [
        Retry(1, 2.0, "rate limited (429)"),
        Retry(2, 0.25, "rate limited (429)"),
        Retry(3, 30.0, "server error (503)"),
    ]
    assert chunks[-1] == Reply(Message("assistant", "ok"), Usage(10, 5), "stop")
    assert sleeps == [2.0, 0.25, 30.0]
    assert len(chat_server.requests) == 4


@BOTH
@pytest.mark.parametrize(
    ("status", "kind", "message", "reason"),
    [
        (429, errors.RateLimitError, "still rate-limited by {h} (429) after 2 retries: no",
         "rate limited (429)"),
        (500, errors.ServerError, "server error from {h} (500) after 2 retries: no",
         "server error (500)"),
    ],
)  # fmt: skip
def test_retries_run_out_with_exponential_backoff(
    chat_server: ChatServer,
    make: Factory,
    sleeps: list[float],
    stream: bool,
    status: int,
    kind: type,
    message: str,
    reason: str,
) -> None:
    chat_server.push(*[Status(status, "no")] * 3)
    chunks, error = fail(make(stream=stream, max_retries=2, backoff=0.5))
    assert chunks == [Retry(1, 0.5, reason), Retry(2, 1.0, reason)]
    assert sleeps == [0.5, 1.0]
    assert type(error) is kind
    assert str(error) == message.format(h=host(chat_server))


@BOTH
def test_connection_refused_fails_at_once(make: Factory, sleeps: list[float], stream: bool) -> None:
    port = free_port()
    chunks, error = fail(make(stream=stream, base_url=f"http://127.0.0.1:{port}/v1"))
    assert type(error) is errors.ConnectionFailed
    assert str(error) == f"cannot reach http://127.0.0.1:{port}/v1: connection refused"
    assert chunks == [] and sleeps == []


@BOTH
def test_a_dropped_connection_is_retried(
    chat_server: ChatServer, make: Factory, sleeps: list[float], stream: bool
) -> None:
    chat_server.push(Drop(), Scripted(content="ok"))
    chunks = run(make(stream=stream))
    assert chunks[0] == Retry(1, 1.0, "connection dropped")
    assert chunks[-1].message.content == "ok"  # type: ignore[union-attr]
    chat_server.push(Drop(), Drop())
    chunks, error = fail(make(stream=stream, max_retries=1))
    assert type(error) is errors.ConnectionFailed
    assert str(error) == (
        f"cannot reach {chat_server.base_url}: Server disconnected without sending a response."
    )


@BOTH
def test_no_answer_within_the_timeout(chat_server: ChatServer, make: Factory, stream: bool) -> None:
    chat_server.push(Hang([], seconds=3))
    chunks, error = fail(make(stream=stream, timeout=0.5))
    assert type(error) is errors.ModelTimeout
    assert str(error) == f"no answer from {host(chat_server)} within 0.5 s"
    assert chunks == []


def test_a_stream_that_stalls_midway(chat_server: ChatServer, make: Factory) -> None:
    chat_server.push(Hang([chunk({"content": TEXT})], seconds=3))
    chunks, error = fail(make(timeout=0.5))
    assert chunks == [Delta(TEXT)]
    assert type(error) is errors.ModelTimeout
    assert str(error) == f"{host(chat_server)} stopped streaming for 0.5 s mid-reply"
    assert len(chat_server.requests) == 1  # not retried: the text was already shown


@pytest.mark.parametrize(
    ("events", "kind", "message"),
    [
        (["{not json"], errors.ProtocolError, "{h} sent a reply that is not valid JSON"),
        (["[1, 2]"], errors.ProtocolError,
         "the endpoint sent unexpected stream data: [1, 2]"),
        ([{"error": {"message": "overloaded"}}], errors.ServerError,
         "{h} reported an error mid-stream: overloaded"),
    ],
)  # fmt: skip
def test_malformed_streams(
    chat_server: ChatServer, make: Factory, events: list[Any], kind: type, message: str
) -> None:
    chat_server.push(SSE([chunk({"content": "Hi"}), *events]))
    chunks, error = fail(make())
    assert type(error) is kind
    assert str(error) == message.format(h=host(chat_server))


def test_unusable_whole_replies(chat_server: ChatServer, make: Factory) -> None:
    chat_server.push(Completion({"object": "chat.completion", "weird": 1}), Completion("{oops"))
    model = make(stream=False)
    _, error = fail(model)
    assert type(error) is errors.ProtocolError
    assert str(error) == "the endpoint sent a reply with no choices"
    _, error = fail(model)
    assert type(error) is errors.ProtocolError
    assert str(error) == f"{host(chat_server)} sent a reply that is not valid JSON"


def test_stream_options_are_dropped_when_the_server_rejects_them(
    chat_server: ChatServer, make: Factory
) -> None:
    chat_server.push(
        Status(400, "Unrecognized request argument supplied: stream_options"),
        Scripted(content="ok", usage=None),
    )
    chunks = run(make())
    assert chunks[:2] == [Retry(1, 0.0, "endpoint rejected stream_options"), Delta("ok")]
    assert [("stream_options" in body) for body in chat_server.requests] == [True, False]


# --- cancel, close, endpoint ---------------------------------------------------------


def test_cancel_stops_the_stream_without_a_reply(chat_server: ChatServer, make: Factory) -> None:
    chat_server.push(Scripted(content=TEXT * 3))
    cancel = threading.Event()
    chunks: list[Chunk] = []
    for item in make().query(MESSAGES, TOOLS, cancel=cancel):
        chunks.append(item)
        cancel.set()
    assert chunks == [Delta(TEXT[:4])]


def test_cancel_cuts_a_backoff_short(chat_server: ChatServer, make: Factory) -> None:
    chat_server.push(Status(429, "slow down", retry_after="20"), Scripted(content="ok"))
    cancel = threading.Event()
    query = make(sleep=None).query(MESSAGES, TOOLS, cancel=cancel)
    assert next(query) == Retry(1, 20.0, "rate limited (429)")
    cancel.set()
    assert list(query) == []
    assert len(chat_server.requests) == 1


def test_close_from_another_thread_ends_a_blocked_read(
    chat_server: ChatServer, make: Factory
) -> None:
    chat_server.push(Hang([chunk({"content": TEXT})], seconds=5))
    model = make(timeout=5.0)
    out: queue.Queue[object] = queue.Queue()
    # The Delta arrives first; the read after it blocks until close() ends it.
    chunks: list[Chunk] = []
    query = model.query(MESSAGES, TOOLS)
    chunks.append(next(query))
    thread = threading.Thread(target=lambda: out.put(list(query)))
    thread.start()
    model.close()
    thread.join(timeout=3)
    assert not thread.is_alive()
    assert (chunks, out.get_nowait()) == ([Delta(TEXT)], [])


def test_endpoint_never_shows_credentials_or_path() -> None:
    assert OpenAIModel("m", api_key=KEY).endpoint == "https://api.openai.com"
    remote = OpenAIModel("m", api_key=KEY, base_url="https://user:pw@llm.example.com:8443/v1/")
    assert remote.endpoint == "https://llm.example.com:8443"
    assert remote.base_url == "https://user:pw@llm.example.com:8443/v1"
    assert KEY not in repr(remote)


def test_importing_the_model_does_not_import_openai() -> None:
    code = "import sys, agent.models.openai; print('openai' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False", result.stderr


# --- end to end ----------------------------------------------------------------------


@BOTH
def test_the_agent_runs_against_a_strict_server(
    chat_server: ChatServer, tmp_path: Any, stream: bool
) -> None:
    from agent.config import Config, build_agent
    from agent.events import RunFinished, ToolCallFinished

    (tmp_path / "traces.md").write_text("# Traces\n\nReplay a trace with `docsagent replay`.\n")
    chat_server.strict = True
    chat_server.push(
        Scripted(
            calls=[
                Call("list_docs", "{}", id="call_a", pieces=1),
                Call("grep_docs", '{"keyword": "replay"}', id="call_b"),
            ],
            interleave=True,
        ),
        Scripted(content="Run `docsagent replay` (traces.md:3-3)."),
    )
    config = Config(docs=tmp_path, model="test-model", base_url=chat_server.base_url,
                    api_key=KEY, stream=stream)  # fmt: skip
    agent = build_agent(config)
    try:
        events = list(agent.run("How do I replay a trace?"))
    finally:
        agent.model.close()  # type: ignore[attr-defined]
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.tool_call_id, e.name, e.error) for e in finished] == [
        ("call_a", "list_docs", False),
        ("call_b", "grep_docs", False),
    ]
    last = events[-1]
    assert isinstance(last, RunFinished)
    assert (last.stop_reason, last.answer) == (
        "answered",
        "Run `docsagent replay` (traces.md:3-3).",
    )
    sent = chat_server.requests[1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "tool"]
    assert [m.get("tool_call_id") for m in sent[3:]] == ["call_a", "call_b"]


def test_a_key_with_stray_whitespace_is_trimmed_and_never_shown(chat_server: ChatServer) -> None:
    chat_server.api_key = "sk-secret-abcdef"
    chat_server.push(Scripted(content="hi"))
    model = OpenAIModel("m", api_key="sk-secret-abcdef\r\n", base_url=chat_server.base_url)
    chunks = list(model.query(MESSAGES, TOOLS))
    assert isinstance(chunks[-1], Reply) and chunks[-1].message.content == "hi"
    assert chat_server.headers[0]["authorization"] == "Bearer sk-secret-abcdef"


def test_errors_never_carry_the_key_whatever_the_path() -> None:
    from agent.models.openai_errors import Context, translate

    key = "sk-secret-abcdef"
    cause = ValueError(f"Illegal header value b'Bearer {key}\\r'")
    for exc in [RuntimeError(f"boom {key}"), cause]:
        error = translate(exc, Context("m", "http://127.0.0.1:1/v1", 1.0, key))
        assert key not in str(error)
        assert str(error).endswith("failed: boom ***") or "***" in str(error)
