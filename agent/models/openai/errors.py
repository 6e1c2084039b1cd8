"""How failures of the `openai` SDK become `agent.errors`, and which ones are retried.

`openai` is imported inside the functions: they only run after a call, when it is
loaded anyway. Every message is one line and never holds the API key:
401/403 bodies are never quoted (OpenAI echoes part of the key there) and every quoted
server message is scrubbed of the key.
"""

from __future__ import annotations

import email.utils
import json
import re
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import agent.errors as errors
from agent.models.base import estimate_tokens as streamed_tokens
from agent.models.openai.address import display_url, endpoint_of

MAX_RETRY_AFTER_S = 30.0
"""A server's Retry-After is honoured up to this many seconds."""

# What servers say when the request itself is wrong, whatever status they send it with
# (llama-cpp-python answers pydantic validation errors with a 500): retrying cannot help.
_INVALID = re.compile(
    r"validation error|input should be|field required|extra inputs are not permitted"
    r"|invalid_request_error|invalid request",
    re.IGNORECASE,
)
# What servers say when the conversation does not fit their context.
_OVERFLOW = re.compile(
    r"context length|context window|context size|maximum context|exceeds? the context"
    r"|too many tokens|prompt is too long",
    re.IGNORECASE,
)


def invalid_request(exc: Any) -> bool:
    """Whether a failed request's body says the request was invalid (so: no retry)."""
    body = getattr(exc, "body", None)
    text = json.dumps(body) if isinstance(body, (dict, list)) else str(body or "")
    return bool(_INVALID.search(text[:4000]) or _OVERFLOW.search(text[:4000]))


@dataclass(frozen=True)
class Context:
    """What an error message may mention about the failed call."""

    model: str
    base_url: str
    timeout: float
    api_key: str
    received: bool = False
    retries: int = 0
    request_timeout: float | None = None
    partial: str = ""
    """The text that had streamed in before the failure."""


def server_message(exc: Any, api_key: str) -> str:
    """The server's own error message, on one line, scrubbed of the key."""
    body = getattr(exc, "body", None)
    message: Any = None
    if isinstance(body, dict):
        message = body.get("message") or body.get("detail") or body.get("error")
    if message is None:
        message = body if isinstance(body, str) and body else getattr(exc, "message", None)
    if message is None:
        message = str(exc) or type(exc).__name__
    if not isinstance(message, str):
        message = json.dumps(message)
    text = scrub(" ".join(message.split()), api_key)
    return text[:300] + ("…" if len(text) > 300 else "")


MIN_SECRET = 6
"""A key shorter than this is not looked for in text (it would match ordinary words)."""


def scrub(text: str, api_key: str) -> str:
    """`text` with the key (and the key without its surrounding whitespace) replaced by ***,
    in any case: a server may echo it upper- or lower-cased (`SK-...`)."""
    for secret in {api_key, api_key.strip()}:
        if len(secret) >= MIN_SECRET:
            text = re.sub(re.escape(secret), "***", text, flags=re.IGNORECASE)
    return text


def rejects_stream_options(exc: Any) -> bool:
    """Whether an older server refused the request for its `stream_options`."""
    status = getattr(exc, "status_code", None)
    return status in (400, 422) and "stream_options" in str(getattr(exc, "body", ""))


def retry_reason(exc: Any, received: bool) -> str | None:
    """Why `exc` is worth retrying (429, 5xx, a dropped connection), or None."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status == 429:
            return "rate limited (429)"
        if status >= 500 and not invalid_request(exc):
            return f"server error ({status})"
        return None
    if received or not isinstance(exc, openai.APIConnectionError):
        return None
    if isinstance(exc, openai.APITimeoutError):
        return None
    # A refused connection, an unknown host or a request we could not even send
    # (a local protocol error, such as a key with a newline) will not fix itself.
    if _root(exc, ConnectionRefusedError) or _root(exc, socket.gaierror):
        return None
    if any("LocalProtocolError" in type(e).__name__ for e in _chain(exc)):
        return None
    return "connection dropped"


def retry_delay(exc: Any, retry: int, backoff: float) -> float:
    """Seconds to wait before retry number `retry` (1, 2, …): Retry-After, else exponential."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is not None:
        after = _retry_after(headers)
        if after is not None:
            return min(max(after, 0.0), MAX_RETRY_AFTER_S)
    return float(backoff * 2 ** (retry - 1))


def _retry_after(headers: Any) -> float | None:
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) * scale
        except ValueError:
            pass
        try:
            date = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            continue
        return date.timestamp() - time.time()
    return None


def translate(exc: Any, ctx: Context) -> errors.ModelError:
    """The `agent.errors` exception for an SDK failure, with one clear line and no key."""
    error = _translate(exc, ctx)
    translated = type(error)(scrub(str(error), ctx.api_key), fields=error.fields)
    translated.partial = ctx.partial
    return translated


def _translate(exc: Any, ctx: Context) -> errors.ModelError:
    import openai

    host = endpoint_of(ctx.base_url)
    if isinstance(exc, openai.APIStatusError):
        message = server_message(exc, ctx.api_key)
        if _OVERFLOW.search(message):
            return errors.BadRequestError(
                f"the conversation does not fit the context of {host} ({exc.status_code}): "
                f"{message}",
                fields=("context",),
            )
        if exc.status_code >= 500 and invalid_request(exc):
            return errors.BadRequestError(
                f"{host} rejected the request as invalid ({exc.status_code}): {message}"
            )
        return _for_status(exc.status_code, message, ctx)
    if isinstance(exc, openai.APITimeoutError):
        from agent.models.openai.transport import DeadlineExceeded

        if _root(exc, DeadlineExceeded) and ctx.request_timeout is not None:
            return errors.ModelTimeout(
                f"no complete reply from {host} within the request timeout "
                f"of {ctx.request_timeout:g} s"
            )
        if ctx.received:
            return errors.ModelTimeout(f"{host} stopped streaming for {ctx.timeout:g} s mid-reply")
        return errors.ModelTimeout(f"no answer from {host} within {ctx.timeout:g} s")
    if isinstance(exc, openai.APIConnectionError):
        if ctx.received:
            after = f" after ≈{streamed_tokens(ctx.partial):,} tokens" if ctx.partial else ""
            return errors.ConnectionFailed(
                f"{host} broke off the reply mid-stream{after}: {_why(exc)}"
            )
        return errors.ConnectionFailed(f"cannot reach {display_url(ctx.base_url)}: {_why(exc)}")
    if isinstance(exc, json.JSONDecodeError):
        return errors.ProtocolError(f"{host} sent a reply that is not valid JSON")
    if isinstance(exc, openai.APIResponseValidationError):
        return errors.ProtocolError(f"{host} sent a reply that could not be parsed")
    if isinstance(exc, openai.APIError):  # an error event inside a stream
        message = server_message(exc, ctx.api_key)
        return errors.ServerError(f"{host} reported an error mid-stream: {message}")
    return errors.ModelError(f"the call to {host} failed: {server_message(exc, ctx.api_key)}")


def _for_status(status: int, message: str, ctx: Context) -> errors.ModelError:
    host = endpoint_of(ctx.base_url)
    after = f" after {ctx.retries} retries" if ctx.retries else ""
    if status in (401, 403):
        return errors.AuthenticationError(
            f"the endpoint {host} refused the API key ({status})", fields=("api_key",)
        )
    if status == 404 and not _names_a_model(message, ctx.model):
        return errors.ModelNotFoundError(
            f"{display_url(ctx.base_url)}/chat/completions is not an API route (404), "
            f"so the base URL is likely wrong{_url_hint(ctx.base_url)}",
            fields=("base_url",),
        )
    if status == 404:
        return errors.ModelNotFoundError(
            f"model {ctx.model!r} not found at {host} (404)", fields=("model", "base_url")
        )
    if status == 429:
        return errors.RateLimitError(f"still rate-limited by {host} (429){after}: {message}")
    if status >= 500:
        return errors.ServerError(f"server error from {host} ({status}){after}: {message}")
    return errors.BadRequestError(f"{host} rejected the request ({status}): {message}")


def _names_a_model(message: str, model: str) -> bool:
    """Whether a 404's message is about the model (vLLM, Ollama, OpenAI say so), not the path.

    A path that is no route gets the web framework's own words ("Not Found", "File Not
    Found", "404 page not found"), which never mention a model.
    """
    return "model" in message.lower() or (bool(model) and model.lower() in message.lower())


def _url_hint(base_url: str) -> str:
    """What is likely wrong with the base URL's path, for the 404 of a path that is no route."""
    path = urlsplit(base_url).path.rstrip("/")
    if path.endswith("/chat/completions"):
        return " (it ends before /chat/completions, which docsagent adds)"
    if not path.endswith("/v1"):
        return " (most servers want it to end in /v1)"
    return ""


def _why(exc: Any) -> str:
    if _root(exc, ConnectionRefusedError):
        return "connection refused"
    if _root(exc, socket.gaierror):
        return "unknown host"
    tls = _root(exc, ssl.SSLError)
    if tls is not None:
        return f"TLS error ({getattr(tls, 'reason', None) or tls})"
    cause = exc.__cause__ or exc
    text = " ".join(str(cause).split()) or type(cause).__name__
    return text[:200]


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _root(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    return next((e for e in _chain(exc) if isinstance(e, kind)), None)
