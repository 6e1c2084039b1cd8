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
