"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chatserver import ChatServer


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A scripted chat-completions server on 127.0.0.1 (see tests/chatserver.py)."""
    server = ChatServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Search indexes go to a folder of the test's own, never the user's cache."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("DOCSAGENT_CACHE_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def state_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """docsagent's state (history, the docs folders asked about) goes to the test's own."""
    folder = tmp_path / "state-home"
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    return folder


CLI_ENV = [
    "LLM_API_KEY", "LLM_BASE_URL", "LLM_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL",
    "OPENAI_MODEL", "DOCSAGENT_DOCS", "DOCSAGENT_MAX_STEPS", "DOCSAGENT_PRICES",
    "DOCSAGENT_NO_STREAM", "DOCSAGENT_TIMEOUT",
]  # fmt: skip
"""Variables of the user's environment that would change what a command does."""


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The commands run without the user's settings; traces go to the returned folder."""
    for name in CLI_ENV:
        monkeypatch.delenv(name, raising=False)
    traces = tmp_path / "traces"
    monkeypatch.setenv("DOCSAGENT_TRACE_DIR", str(traces))
    return traces
