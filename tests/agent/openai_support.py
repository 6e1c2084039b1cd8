"""Shared pieces of the OpenAIModel tests: the messages, tools and helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agent import errors
from agent.messages import system, user
from agent.models.base import Chunk
from agent.models.openai.model import OpenAIModel
from tests.chatserver import (
    ChatServer,
)

KEY = "sk-test-0123456789-secret"
MESSAGES = (system("Answer from the docs."), user("How do I replay a trace?"))
TOOLS = (
    {
        "type": "function",
        "function": {
            "name": "search_docs",
            "description": "Search the docs.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    },
)
BOTH = pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])

Factory = Callable[..., OpenAIModel]


def run(model: OpenAIModel, tools: Any = TOOLS) -> list[Chunk]:
    return list(model.query(MESSAGES, tools))


def fail(model: OpenAIModel) -> tuple[list[Chunk], errors.ModelError]:
    """The chunks yielded before the query raised, and the error."""
    chunks: list[Chunk] = []
    with pytest.raises(errors.ModelError) as info:
        chunks.extend(model.query(MESSAGES, TOOLS))
    assert KEY not in str(info.value)
    assert "\n" not in str(info.value)
    return chunks, info.value


def host(server: ChatServer) -> str:
    return f"http://127.0.0.1:{server.port}"


# --- replies -------------------------------------------------------------------------

TEXT = "To replay a trace, run docsagent replay with the trace file."
