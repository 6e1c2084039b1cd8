"""Shared fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chatserver import ChatServer
from tests.folders import REPLAY_PAGE, docs_folder


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A scripted chat-completions server on 127.0.0.1 (see tests/chatserver.py)."""
    server = ChatServer().start()
    try:
        yield server
    finally:
        server.stop()


PROGRAM_ENV = [
    "COLUMNS", "DOCSAGENT_CACHE_DIR", "DOCSAGENT_CONTEXT", "DOCSAGENT_DOCS",
    "DOCSAGENT_MAX_REPLY_TOKENS", "DOCSAGENT_MAX_STEPS", "DOCSAGENT_MAX_TOKENS",
    "DOCSAGENT_NO_COMPACT", "DOCSAGENT_NO_STREAM", "DOCSAGENT_PRICES",
    "DOCSAGENT_REQUEST_TIMEOUT", "DOCSAGENT_TIMEOUT", "DOCSAGENT_TRACE_DIR", "LLM_API_KEY",
    "LLM_BASE_URL", "LLM_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL",
    "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME",
]  # fmt: skip
"""Every variable agent/ and tui/ read (tests/test_environment.py derives it from the code)."""
PROGRAM_PREFIXES = ("DOCSAGENT_", "LLM_", "OPENAI_")
"""Variables of these names are cleared too: the openai SDK reads its own (OPENAI_LOG)."""


def clear_program_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every variable docsagent reads, gone."""
    for name in [*PROGRAM_ENV, *(n for n in os.environ if n.startswith(PROGRAM_PREFIXES))]:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session", autouse=True)
def session_environment() -> Iterator[None]:
    """Module-scoped fixtures run before `environment`: they see no developer setting either
    (one that copies `os.environ` for a subprocess would hand it on)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        clear_program_environment(monkeypatch)
        yield


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's settings; the XDG folders are the test's own."""
    clear_program_environment(monkeypatch)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))


@pytest.fixture(autouse=True)
def cache_dir(environment: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Search indexes go to a folder of the test's own, never the user's cache."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("DOCSAGENT_CACHE_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def state_home(environment: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """docsagent's state (history, the docs folders asked about) goes to the test's own."""
    folder = tmp_path / "state-home"
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    return folder


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The commands' traces go to the returned folder."""
    traces = tmp_path / "traces"
    monkeypatch.setenv("DOCSAGENT_TRACE_DIR", str(traces))
    return traces


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A docs folder of one page, replay.md, whose line 3 says how to replay a run."""
    return docs_folder(tmp_path / "docs", {"replay.md": REPLAY_PAGE})
