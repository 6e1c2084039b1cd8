"""OpenAIModel: the real openai SDK talking HTTP to the scripted server in tests/chatserver.py."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from typing import Any

import pytest

from agent import errors
from agent.events import Usage
from agent.messages import Message, ToolCall, assistant, tool_result, user
from agent.models.base import Chunk, Delta, Reply, estimate_usage
from agent.models.openai.model import OpenAIModel
from tests.agent.openai_support import BOTH, KEY, MESSAGES, TEXT, TOOLS, Factory, host, run
from tests.chatserver import (
    SSE,
    Call,
    ChatServer,
    Completion,
    Hang,
    chunk,
    usage_chunk,
    validate,
)
from tests.chatserver import Reply as Scripted


def test_streamed_text_comes_as_it_arrives_and_usage_from_the_last_chunk(
    chat_server: ChatServer, make: Factory
) -> None:
    chat_server.push(Scripted(content=TEXT, usage=(42, 7)))
    chunks = run(make(), tools=())
    # one Delta per piece the server sent (4 characters); drawing them is the UI's business
    pieces = [Delta(TEXT[start : start + 4]) for start in range(0, len(TEXT), 4)]
    assert chunks == [*pieces, Reply(Message("assistant", TEXT), Usage(42, 7), "stop")]
    body = chat_server.requests[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["model"] == "test-model"
    assert body["messages"] == [m.to_dict() for m in MESSAGES]
    assert "tools" not in body
    assert chat_server.headers[0]["authorization"] == f"Bearer {KEY}"


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
        Delta("me l"),
        Delta("ook."),
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
    sent = chat_server.requests[0]["messages"]
    assert sent[2]["content"] == ""  # llama-cpp-python refuses null; OpenAI takes ""
    assert sent[3] == {"role": "tool", "content": "traces.md:1-3", "tool_call_id": "call_a"}


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
    asked = {"role": "assistant", "content": "", "tool_calls": [call]}
    answer = {"role": "tool", "tool_call_id": "a", "content": "x"}
    assert validate([{"role": "user", "content": "q"}, asked, answer]) is None
    assert validate([{**asked, "content": None}, answer]) == (
        "messages[0].content: Input should be a valid string"
    )
    assert validate([asked, {**answer, "name": "f"}]) == (
        "messages[1]: extra inputs are not permitted: ['name']"
    )
    assert validate([asked]) == "tool_call_ids ['a'] have no tool response message"
    assert validate([asked, answer, answer]) == (
        "messages[2]: a tool message must answer a preceding tool call; no pending tool_call_id 'a'"
    )


# --- errors --------------------------------------------------------------------------


def test_cancel_from_another_thread_ends_a_blocked_read(
    chat_server: ChatServer, make: Factory
) -> None:
    chat_server.push(Hang([chunk({"content": TEXT})], seconds=5), Scripted(content="next"))
    model = make(timeout=5.0)
    model.cancel()  # nothing in flight: the next query is not affected
    out: queue.Queue[object] = queue.Queue()
    # The Delta arrives first; the read after it blocks until cancel() ends it.
    chunks: list[Chunk] = []
    query = model.query(MESSAGES, TOOLS)
    chunks.append(next(query))
    thread = threading.Thread(target=lambda: out.put(list(query)))
    thread.start()
    model.cancel()
    thread.join(timeout=3)
    assert not thread.is_alive()
    assert (chunks, out.get_nowait()) == ([Delta(TEXT)], [])
    assert run(model)[-1] == Reply(Message("assistant", "next"), Usage(10, 5), "stop")


CANCEL_WHILE_CONNECTING = """
import importlib.abc, sys, threading
from agent.messages import user
from agent.models.openai.model import OpenAIModel

importing, release = threading.Event(), threading.Event()


class Gate(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "openai":  # the model builds its client: hold the import here
            importing.set()
            release.wait()
        return None


sys.meta_path.insert(0, Gate())
model = OpenAIModel("m", api_key="k", base_url="http://127.0.0.1:9/v1", timeout=1.0)
cancel = threading.Event()
query = threading.Thread(target=lambda: list(model.query([user("q")], (), cancel=cancel)))
query.start()
importing.wait()
guard = threading.Timer(30.0, release.set)  # only guards a hang: cancel must not need it
guard.start()
cancel.set()
model.cancel()
print("cancel waited for the import" if release.is_set() else "cancelled while connecting")
release.set()
guard.cancel()
query.join()
"""


def test_cancel_does_not_wait_for_the_client_to_be_built() -> None:
    # The first query imports `openai` (a second on a loaded machine): a quit or an Escape
    # meanwhile must not wait for it.
    result = subprocess.run(
        [sys.executable, "-c", CANCEL_WHILE_CONNECTING], capture_output=True, text=True
    )
    assert result.stdout.strip() == "cancelled while connecting", result.stderr


@pytest.mark.parametrize("answer", [True, False], ids=["no-body", "no-headers"])
def test_close_from_another_thread_ends_a_blocked_whole_request(
    chat_server: ChatServer, make: Factory, answer: bool
) -> None:
    # A hung server: the request waits for the body (or, with answer=False, the headers).
    chat_server.push(Hang(seconds=8, answer=answer))
    model = make(stream=False, timeout=8.0)
    out: queue.Queue[object] = queue.Queue()
    thread = threading.Thread(target=lambda: out.put(list(model.query(MESSAGES, TOOLS))))
    thread.start()
    while not chat_server.requests:  # the request is in flight
        thread.join(timeout=0.01)
    model.close()
    thread.join(timeout=3)
    assert not thread.is_alive()
    assert out.get_nowait() == []


def test_endpoint_never_shows_credentials_or_path() -> None:
    assert OpenAIModel("m", api_key=KEY).endpoint == "https://api.openai.com"
    remote = OpenAIModel("m", api_key=KEY, base_url="https://user:pw@llm.example.com:8443/v1/")
    assert remote.endpoint == "https://llm.example.com:8443"
    assert remote.base_url == "https://user:pw@llm.example.com:8443/v1"
    assert KEY not in repr(remote)


def test_importing_the_model_does_not_import_openai() -> None:
    code = "import sys, agent.models.openai.model; print('openai' in sys.modules)"
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
