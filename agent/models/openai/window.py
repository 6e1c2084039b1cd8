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
from typing import Any
from urllib.parse import urlsplit

PROBE_TIMEOUT = 5.0
"""Seconds each question about the context may take before it counts as unknown."""

_MODEL_KEYS = ("loaded_context_length", "max_model_len", "context_length", "max_context_length")


def probe_context(http: Any, base_url: str, model: str, *, headers: dict[str, str]) -> int | None:
    """The context window the server at `base_url` reports for `model`, or None."""
    if urlsplit(base_url).hostname == "api.openai.com":
        return None  # it says nothing about context: spare the two requests
    root = base_url.removesuffix("/v1")
    props = _get(http, f"{root}/props", headers)
    found = context_of_props(props) if isinstance(props, dict) else None
    for url in (f"{base_url}/models", f"{root}/api/v0/models"):
        if found is None:
            listing = _get(http, url, headers)
            found = context_of_models(listing, model) if isinstance(listing, dict) else None
    return found


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
