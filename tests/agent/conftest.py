from __future__ import annotations

import contextlib
import resource
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from agent.models.openai.model import OpenAIModel
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext
from tests.agent.openai_support import KEY, Factory
from tests.chatserver import ChatServer

GUIDE = """\
# Guide

Intro line.

## Timeouts

Requests time out after five seconds by default.
Set `timeout=None` to wait forever.
"""


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A small docs folder: two docs, a LICENSE and a non-doc file."""
    root = tmp_path / "docs"
    (root / "advanced").mkdir(parents=True)
    (root / "guide.md").write_text(GUIDE)
    (root / "advanced" / "long.md").write_text("\n".join(f"line {n}" for n in range(1, 201)) + "\n")
    (root / "LICENSE.md").write_text("All rights reserved.\n")
    (root / "image.png").write_bytes(b"\x89PNG")
    return root


@pytest.fixture
def ctx(docs: Path) -> DocsContext:
    return DocsContext(Corpus.open(docs))


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def make(chat_server: ChatServer, sleeps: list[float]) -> Iterator[Factory]:
    """Build models against the test server (recorded sleeps); close them after."""
    models: list[OpenAIModel] = []

    def factory(**options: Any) -> OpenAIModel:
        settings: dict[str, Any] = {
            "api_key": KEY,
            "base_url": chat_server.base_url,
            "timeout": 5.0,
            "sleep": sleeps.append,
            **options,
        }
        model = OpenAIModel("test-model", **settings)
        models.append(model)
        return model

    yield factory
    for model in models:
        model.close()


@contextlib.contextmanager
def _file_size_limit(size: int) -> Iterator[None]:
    old = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, old[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old)


@pytest.fixture
def file_size_limit() -> Callable[[int], AbstractContextManager[None]]:
    """`with file_size_limit(n):` files of this process cannot grow past n bytes (EFBIG, as a
    full disk's ENOSPC; Python ignores SIGXFSZ), exactly, on any file system."""
    return _file_size_limit
