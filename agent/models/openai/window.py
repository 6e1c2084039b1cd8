"""The server's context window, where it tells it: asked once, before the first request.

- llama.cpp's `llama-server`: `GET /props` → `default_generation_settings.n_ctx`
  (newer builds also put `n_ctx` at the top level);
- vLLM: `GET /v1/models` → each model's `max_model_len`;
- LM Studio: `GET /api/v0/models` → `loaded_context_length` (else `max_context_length`);
- OpenRouter and others: `context_length` on the model's entry in `/v1/models`.

`llama-cpp-python`, Ollama and OpenAI do not say: the user sets it (`--context`). Every
failure here (no such route, not JSON, a timeout) just means "unknown".
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

PROBE_TIMEOUT = 5.0
"""Seconds each question about the context may take before it counts as unknown."""

_MODEL_KEYS = ("loaded_context_length", "max_model_len", "context_length", "max_context_length")


@dataclass(frozen=True)
class Facts:
    """What the server says of itself: its context for the model, the models it lists."""

    context: int | None = None
    models: tuple[str, ...] | None = None
    """The ids `/v1/models` lists; None when it did not answer with a listing."""


def probe_endpoint(http: Any, base_url: str, model: str, *, headers: dict[str, str]) -> Facts:
    """What the server at `base_url` reports: its three routes asked at once, in one round trip.

    Asked one after another they took three round trips before the first question.
    """
    if urlsplit(base_url).hostname == "api.openai.com":
        return Facts()  # it says nothing about context: spare the requests
    root = base_url.removesuffix("/v1")
    urls = (f"{root}/props", f"{base_url}/models", f"{root}/api/v0/models")
    answers: list[Any] = [None] * len(urls)

    def ask(i: int) -> None:
        answers[i] = _get(http, urls[i], headers)

    threads = [threading.Thread(target=ask, args=(i,), daemon=True) for i in range(len(urls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    props, listing, lmstudio = (a if isinstance(a, dict) else None for a in answers)
    found = context_of_props(props) if props is not None else None
    for entries in (listing, lmstudio):
        if found is None and entries is not None:
            found = context_of_models(entries, model)
    return Facts(found, model_ids(listing) if listing is not None else None)


def model_ids(listing: dict[str, Any]) -> tuple[str, ...] | None:
    """The model ids a `/v1/models` listing names (None if it names none)."""
    ids = [e.get("id") for e in listing.get("data") or () if isinstance(e, dict)]
    named = tuple(dict.fromkeys(i for i in ids if isinstance(i, str) and i))
    return named or None


def unlisted(model: str, facts: Facts, models_url: str) -> str | None:
    """The warning for a model name the server's listing does not hold, or None."""
    if facts.models is None or model in facts.models:
        return None
    shown = ", ".join(facts.models[:5]) + (
        f" and {len(facts.models) - 5} more" if len(facts.models) > 5 else ""
    )
    return f"warning: {models_url} does not list the model {model!r}; it lists {shown}"


def context_of_props(props: dict[str, Any]) -> int | None:
    """`n_ctx` from llama-server's `/props`."""
    settings = props.get("default_generation_settings")
    if isinstance(settings, dict) and _positive(settings.get("n_ctx")):
        return int(settings["n_ctx"])
    return int(props["n_ctx"]) if _positive(props.get("n_ctx")) else None


def context_of_models(listing: dict[str, Any], model: str) -> int | None:
    """The context length a model listing gives for `model` (or its only model)."""
    entries = [e for e in listing.get("data") or () if isinstance(e, dict)]
    chosen = [e for e in entries if e.get("id") == model] or (entries if len(entries) == 1 else [])
    for entry in chosen:
        for key in _MODEL_KEYS:
            if _positive(entry.get(key)):
                return int(entry[key])
    return None


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _get(http: Any, url: str, headers: dict[str, str]) -> Any:
    with contextlib.suppress(Exception):  # unknown, whatever went wrong
        response = http.get(url, headers=headers, timeout=PROBE_TIMEOUT)
        if response.status_code == 200:
            return response.json()
    return None
