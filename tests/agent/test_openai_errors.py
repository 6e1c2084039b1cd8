"""OpenAIModel failures: status errors, retries, timeouts, bad streams, cancel and the key."""

from __future__ import annotations

import socket
import threading
from typing import Any

import pytest

from agent import errors
from agent.events import Usage
from agent.messages import Message
from agent.models.base import Chunk, Delta, Reply, Retry
from agent.models.openai.model import OpenAIModel
from tests.agent.openai_support import BOTH, KEY, MESSAGES, TEXT, TOOLS, Factory, fail, host, run
from tests.chatserver import (
    SSE,
    ChatServer,
    Completion,
    Drop,
    Hang,
    Status,
    chunk,
)
from tests.chatserver import Reply as Scripted


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_no_key_for_a_remote_endpoint() -> None:
    model = OpenAIModel("gpt-4o-mini", api_key="", base_url="https://api.example.com/v1")
    with pytest.raises(errors.AuthenticationError) as info:
        run(model)
    assert str(info.value) == "no API key to use https://api.example.com"
    assert info.value.fields == ("api_key",)


@BOTH
def test_a_refused_key_is_never_quoted(
    chat_server: ChatServer, make: Factory, stream: bool
) -> None:
    chat_server.api_key = "sk-the-right-one"  # the server echoes the wrong key it got
    chunks, error = fail(make(stream=stream))
    assert isinstance(error, errors.AuthenticationError)
    assert str(error) == f"the endpoint {host(chat_server)} refused the API key (401)"
    assert error.fields == ("api_key",)
    assert chunks == []


@BOTH
@pytest.mark.parametrize(
    ("status", "kind", "message"),
    [
        (403, errors.AuthenticationError, "the endpoint {h} refused the API key (403)"),
        (404, errors.ModelNotFoundError,
         "{h}/v1/chat/completions is not an API route (404), so the base URL is likely wrong"),
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
    # A whole reply may take the request's time to come: it arrives in one piece.
    chunks, error = fail(make(stream=stream, timeout=0.5, request_timeout=0.8))
    assert type(error) is errors.ModelTimeout
    waited = "0.5" if stream else "0.8"
    assert str(error) == f"no answer from {host(chat_server)} within {waited} s"
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


def test_a_key_with_stray_whitespace_is_trimmed_and_never_shown(chat_server: ChatServer) -> None:
    chat_server.api_key = "sk-secret-abcdef"
    chat_server.push(Scripted(content="hi"))
    model = OpenAIModel("m", api_key="sk-secret-abcdef\r\n", base_url=chat_server.base_url)
    chunks = list(model.query(MESSAGES, TOOLS))
    assert isinstance(chunks[-1], Reply) and chunks[-1].message.content == "hi"
    assert chat_server.headers[0]["authorization"] == "Bearer sk-secret-abcdef"


def test_errors_never_carry_the_key_whatever_the_path() -> None:
    from agent.models.openai.errors import Context, translate

    key = "sk-secret-abcdef"
    cause = ValueError(f"Illegal header value b'Bearer {key}\\r'")
    for exc in [RuntimeError(f"boom {key}"), cause]:
        error = translate(exc, Context("m", "http://127.0.0.1:1/v1", 1.0, key))
        assert key not in str(error)
        assert str(error).endswith("failed: boom ***") or "***" in str(error)


def test_a_key_with_a_line_break_inside_is_refused_without_showing_it(
    chat_server: ChatServer,
) -> None:
    model = OpenAIModel("m", api_key="sk-abcdef0123\nSECRETTAIL99", base_url=chat_server.base_url)
    with pytest.raises(errors.AuthenticationError) as info:
        list(model.query(MESSAGES, TOOLS))
    assert "SECRETTAIL" not in str(info.value) and "sk-abcdef" not in str(info.value)
    assert str(info.value).startswith("the API key holds a line break")
    assert chat_server.requests == []


def test_a_stream_cut_off_mid_body_is_an_error_not_an_answer(
    chat_server: ChatServer, make: Factory
) -> None:
    from tests.chatserver import Cut

    chat_server.push(Cut([chunk({"role": "assistant", "content": "Partial answ"})]))
    chunks, error = fail(make(max_retries=0))
    assert chunks == [Delta("Partial answ")]
    assert isinstance(error, errors.ConnectionFailed)
    assert str(error).startswith(
        f"{host(chat_server)} broke off the reply mid-stream after ≈3 tokens: "
    )
    assert error.partial == "Partial answ"  # kept: the run shows it, marked as cut off
