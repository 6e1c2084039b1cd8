"""A streamed reply read as it comes: its text shown at once with the key kept out, a
runaway stream cut short, and the text that came kept when the stream breaks."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from typing import Any

from agent.models.base import Chunk, Delta, Reply
from agent.models.openai.errors import server_message
from agent.models.openai.inflight import Request, shutdown
from agent.models.openai.secret import KeyFilter
from agent.models.openai.stream import StreamAssembler, fields


def read_stream(
    stream: Any,
    request: Request,
    stopped: Callable[[], bool],
    *,
    limit: int,
    endpoint: str,
    api_key: str,
    reply: Callable[[StreamAssembler], Reply],
) -> Generator[Chunk, None, str | None]:
    """Yield `stream`'s text as `Delta`s, then `reply` of what came; return why to ask again
    without streaming, or None when done or stopped. The stream is closed here whatever
    happens; `request` (which `cancel` reaches the stream through) keeps whether data came
    and the text that had come when the stream fails; past `limit` characters the reply is
    cut short (ended as at the length limit), so a stream that never ends cannot run on.
    """
    import openai

    # Set before checking `stopped`: a cancel either sees the stream or is seen here.
    request.stream = stream
    assembler = StreamAssembler()
    secret = KeyFilter(api_key)
    why: str | None = None
    try:
        if stopped():
            return None
        try:
            yield from _texts(stream, request, stopped, assembler, secret, limit)
            if stopped():
                return None  # stopped, or the stream ended because it was shut down under us
            why = assembler.unfinished(endpoint)
        except Exception:  # what the key filter held back was shown before the failure
            if rest := secret.flush():
                yield Delta(rest)
            raise
    except openai.APIError as exc:
        if type(exc) is not openai.APIError or not assembler.empty:
            request.partial = "".join(assembler.text)  # kept by the error: shown as cut off
            raise
        # An error event before any reply: the server could not stream this one.
        why = f"{endpoint} could not stream this reply ({server_message(exc, api_key)})"
    except BaseException:
        request.partial = "".join(assembler.text)  # kept by the error: shown as cut off
        raise
    finally:
        request.stream = None
        if why is not None:  # a server that failed a stream drops its connection: not reused
            shutdown(stream.response)
        stream.close()
    if why is None:
        if rest := secret.flush():
            yield Delta(rest)
        yield secret.reply(reply(assembler))
    return why


def _texts(
    stream: Any,
    request: Request,
    stopped: Callable[[], bool],
    assembler: StreamAssembler,
    secret: KeyFilter,
    limit: int,
) -> Iterator[Delta]:
    """The stream's text as it comes, until it ends, is stopped or passes `limit`."""
    for chunk in stream:
        if stopped():
            return
        request.received = True
        text = secret.feed(assembler.feed(fields(chunk)))
        if text:
            yield Delta(text)
        if assembler.size > limit:
            assembler.finish_reason = "length"  # a runaway stream: cut short here
            return
