"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Iterator

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
