"""What real OpenAI-compatible servers accept and send, scripted on tests/chatserver.py.

Each test stands for a quirk found against llama-cpp-python, llama-server, vLLM, Ollama
or LM Studio (see the manual's providers page).
"""

from __future__ import annotations

import json
from typing import Any

from agent import errors
from agent.events import Usage
from agent.messages import Message, ToolCall, assistant
from agent.models.base import Delta, Notice, Reply
from tests.agent.openai_support import BOTH, MESSAGES, TOOLS, Factory, fail, host, run
from tests.chatserver import (
    SSE,
    Call,
    ChatServer,
    Completion,
    Slow,
    Status,
    chunk,
)
from tests.chatserver import Reply as Scripted

REFUSED = {"error": {"message": "Automatic streaming tool choice is not supported"}}


@BOTH
def test_tools_go_with_tool_choice_auto_and_a_reply_limit(
    chat_server: ChatServer, make: Factory, stream: bool
) -> None:
    chat_server.strict = True
    chat_server.push(Scripted(content="ok"), Scripted(content="ok"))
    model = make(stream=stream, max_reply_tokens=700)
    run(model)
    run(model, tools=())
    with_tools, without = chat_server.requests
    assert with_tools["tool_choice"] == "auto"  # llama-cpp-python reads none as "no tools"
    assert with_tools["max_tokens"] == 700
    assert "tool_choice" not in without and "tools" not in without


def whole(message: dict[str, Any], finish: str | None = "stop") -> Completion:
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return Completion({"id": "x", "object": "chat.completion", "choices": [choice]})


def test_arguments_sent_as_an_object_are_read_as_json_text(
    chat_server: ChatServer, make: Factory
) -> None:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"q": "é"}}}
    fragment = {"index": 0, "id": "d", "function": {"name": "g", "arguments": {"n": 1}}}
    chat_server.push(
        whole({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"),
        SSE([chunk({"tool_calls": [fragment]}), chunk({}, "tool_calls")]),
    )
    (reply,) = run(make(stream=False))
    assert reply.message.tool_calls == (ToolCall("c", "f", '{"q": "é"}'),)  # type: ignore[union-attr]
    (reply,) = run(make())
    assert reply.message.tool_calls == (ToolCall("d", "g", '{"n": 1}'),)  # type: ignore[union-attr]


def test_a_legacy_function_call_is_a_tool_call(chat_server: ChatServer, make: Factory) -> None:
    legacy = {"name": "search_docs", "arguments": '{"query": "x"}'}
    chat_server.push(
        whole({"role": "assistant", "content": None, "function_call": legacy}, "function_call"),
        SSE(
            [
                chunk({"function_call": {"name": "search_docs", "arguments": ""}}),
                chunk({"function_call": {"arguments": '{"query": "x"}'}}),
                chunk({}, "function_call"),
            ]
        ),
    )
    expected = assistant(None, (ToolCall("call_1", "search_docs", '{"query": "x"}'),))
    (reply,) = run(make(stream=False))
    assert (reply.message, reply.finish_reason) == (expected, "tool_calls")  # type: ignore[union-attr]
    (reply,) = run(make())
    assert reply.message.tool_calls[0].arguments == '{"query": "x"}'  # type: ignore[union-attr]


def test_content_and_tool_calls_together_and_no_usage_in_the_stream(
    chat_server: ChatServer, make: Factory
) -> None:
    chat_server.push(Scripted(content="Looking.", calls=[Call("list_docs", "{}")], usage=None))
    *deltas, reply = run(make())
    assert "".join(d.text for d in deltas) == "Looking."  # type: ignore[union-attr]
    assert isinstance(reply, Reply)
    assert reply.message.content == "Looking." and reply.message.tool_calls
    assert reply.usage.estimated  # shown with ≈


@BOTH
def test_a_500_that_says_the_request_is_invalid_is_not_retried(
    chat_server: ChatServer, make: Factory, sleeps: list[float], stream: bool
) -> None:
    detail = (
        "7 validation errors: ('body', 'messages', 2, 'content'): Input should be a valid string"
    )
    chat_server.push(Status(500, detail), Scripted(content="never sent"))
    chunks, error = fail(make(stream=stream))
    assert type(error) is errors.BadRequestError
    assert str(error) == f"{host(chat_server)} rejected the request as invalid (500): {detail}"
    assert (len(chat_server.requests), sleeps, chunks) == (1, [], [])


def test_a_context_overflow_names_the_setting(chat_server: ChatServer, make: Factory) -> None:
    text = "This model's maximum context length is 2048 tokens. However, you requested 6443"
    chat_server.push(Status(400, text))
    _, error = fail(make())
    assert str(error) == (
        f"the conversation does not fit the context of {host(chat_server)} (400): {text}"
    )
    assert error.fields == ("context",)


def test_a_refused_stream_falls_back_to_whole_replies_once_with_a_notice(
    chat_server: ChatServer, make: Factory
) -> None:
    chat_server.push(SSE([REFUSED]), Scripted(content="whole"), Scripted(content="again"))
    model = make()
    chunks = run(model)
    notice = Notice(
        f"{host(chat_server)} could not stream this reply (Automatic streaming tool choice "
        "is not supported); asking without streaming from now on"
    )
    assert chunks == [notice, Reply(Message("assistant", "whole"), Usage(10, 5), "stop")]
    assert run(model) == [Reply(Message("assistant", "again"), Usage(10, 5), "stop")]
    assert [body.get("stream", False) for body in chat_server.requests] == [True, False, False]


def test_an_empty_stream_without_a_finish_is_asked_again_whole(
    chat_server: ChatServer, make: Factory
) -> None:
    # What llama-cpp-python sends when it cannot stream: a role chunk, then [DONE].
    text = "Requested tokens (6443) exceed context window of 2048"
    chat_server.push(SSE([chunk({"role": "assistant", "content": ""})]), Status(400, text))
    chunks, error = fail(make())
    assert chunks == [
        Notice(
            f"{host(chat_server)} ended a streamed reply with nothing in it; "
            "asking without streaming from now on"
        )
    ]
    assert str(error).endswith(f"(400): {text}")  # the server's own words, from the whole request
    assert error.fields == ("context",)


def test_a_stream_cut_off_without_a_finish_says_so(chat_server: ChatServer, make: Factory) -> None:
    chat_server.push(SSE([chunk({"content": "Half an ans"})]))  # then [DONE], no finish
    chunks, error = fail(make())
    assert all(isinstance(c, Delta) for c in chunks)  # (an "s" might begin the key: held back)
    assert "".join(c.text for c in chunks) == "Half an ans"  # type: ignore[union-attr]
    assert type(error) is errors.ProtocolError
    assert str(error).startswith(
        f"{host(chat_server)} ended the stream before the reply was finished (no finish reason)"
    )


def test_a_slow_whole_reply_is_not_cut_by_the_read_timeout(
    chat_server: ChatServer, make: Factory
) -> None:
    chat_server.push(Slow(Scripted(content="slow but sure"), seconds=0.6))
    (reply,) = run(make(stream=False, timeout=0.2, request_timeout=10.0))
    assert reply.message.content == "slow but sure"  # type: ignore[union-attr]


def test_the_context_size_comes_from_props_or_the_model_listing(
    chat_server: ChatServer, make: Factory
) -> None:
    chat_server.props = {"default_generation_settings": {"n_ctx": 2048}}
    chat_server.push(Scripted(content="ok"), Scripted(content="ok"), Scripted(content="ok"))
    model = make(max_reply_tokens=4096)
    run(model)
    assert model.context_window == 2048
    assert chat_server.requests[0]["max_tokens"] == 512  # at most a quarter of the context
    chat_server.props = None
    chat_server.models = {"data": [{"id": "test-model", "max_model_len": 8192}]}
    listed = make()
    run(listed)
    assert listed.context_window == 8192
    given = make(context=4096)
    run(given)
    assert given.context_window == 4096
    probes = ["/api/v0/models", "/props", "/v1/models"]  # asked at once, in any order
    assert sorted(chat_server.gets) == sorted(probes * 2)
    # a given size is not asked: the two runs above asked, the third did not


def test_lm_studio_tells_the_loaded_context_in_its_own_listing() -> None:
    from agent.models.openai.window import context_of_models

    listing = {"data": [{"id": "qwen", "max_context_length": 32768, "loaded_context_length": 4096},
                        {"id": "other", "max_context_length": 8192}]}  # fmt: skip
    assert context_of_models(listing, "qwen") == 4096
    assert context_of_models(listing, "missing") is None  # two models, none of them ours


def test_what_is_sent_is_valid_json_a_strict_server_takes(
    chat_server: ChatServer, make: Factory
) -> None:
    chat_server.strict = True
    call = ToolCall("a", "search_docs", "{}")
    history = [*MESSAGES, assistant(None, (call,)), Message("tool", "x", (), "a", "search_docs")]
    chat_server.push(Scripted(content="ok"))
    list(make().query(history, TOOLS))
    assert json.loads(json.dumps(chat_server.requests[0]))["messages"][3] == {
        "role": "tool",
        "content": "x",
        "tool_call_id": "a",
    }
