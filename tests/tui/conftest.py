"""Fixtures for the TUI tests: a small docs folder, sessions over scripted models."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from agent.config import Config, build_agent
from agent.errors import ModelError
from agent.messages import Message
from agent.session import Session
from agent.testing import ScriptedModel, call, reply

TIMEOUTS = "\n".join(
    ["# Timeouts", "", "httpx times out after 5 seconds by default."]
    + [f"Line {n} about timeouts." for n in range(4, 31)]
)
CLIENTS = "# Clients\n\nUse a Client to reuse connections.\n"

SessionFactory = Callable[..., tuple[Session, ScriptedModel]]


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A docs folder with two small pages."""
    folder = tmp_path / "docs"
    (folder / "advanced").mkdir(parents=True)
    (folder / "advanced" / "timeouts.md").write_text(TIMEOUTS, encoding="utf-8")
    (folder / "clients.md").write_text(CLIENTS, encoding="utf-8")
    return folder


@pytest.fixture
def config(docs: Path, tmp_path: Path) -> Config:
    """A config over `docs` that saves traces under tmp_path."""
    return Config(docs=docs, model="script:test", trace_dir=tmp_path / "traces")


@pytest.fixture
def make_session(config: Config) -> SessionFactory:
    """Build a session over a scripted model: `make_session(turns, stream=..., gate=...)`."""

    def make(turns: Sequence[Message | ModelError], **options: object) -> tuple[Session, ScriptedModel]:
        model = ScriptedModel(turns, **options)  # type: ignore[arg-type]
        return Session(build_agent(config, model=model), trace_dir=config.trace_dir), model

    return make


def timeout_script() -> list[Message | ModelError]:
    """Two parallel tool calls (one failing), a read, then an answer."""
    return [
        reply(
            "Let me search.",
            call("grep_docs", {"keyword": "timeout"}),
            call("read_doc", {"path": "missing.md"}),
        ),
        reply(None, call("read_doc", {"path": "advanced/timeouts.md", "start": 1, "end": 30})),
        reply("The default timeout is **5 seconds** (advanced/timeouts.md:3-3)."),
    ]
