"""What the CLI tests share: where the repository and the httpx docs are, `ask`, a scripted run."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tui.cli import app

ROOT = Path(__file__).resolve().parent.parent
HTTPX_DOCS = ROOT.parent / "shared" / "corpora" / "httpx-docs"
needs_httpx = pytest.mark.skipif(
    not HTTPX_DOCS.is_dir(), reason="../shared/corpora/httpx-docs is not beside the checkout"
)


ANSWER = "Use `docsagent replay FILE` (replay.md:3)."
TURNS: list[dict[str, object]] = [
    {"tool_calls": [{"name": "grep_docs", "arguments": {"keyword": "replay"}}]},
    {"tool_calls": [{"name": "read_doc", "arguments": {"path": "replay.md"}}]},
    {"content": ANSWER},
]
"""A scripted run that greps, reads replay.md (the `docs` fixture's) and answers `ANSWER`."""


def script(tmp_path: Path, turns: Sequence[Mapping[str, object]]) -> str:
    """`--model` for a scripted model playing `turns` (written to tmp_path/script.json)."""
    path = tmp_path / "script.json"
    path.write_text(json.dumps(turns))
    return f"script:{path}"


def ask(*args: str) -> tuple[int, str, str]:
    """`docsagent ask ARGS`: exit code, stdout and stderr."""
    result = CliRunner().invoke(app, ["ask", *args])
    return result.exit_code, result.stdout, result.stderr


def read_until_closed(fd: int) -> bytes:
    """All a pseudo-terminal's program writes, until it closes the terminal."""
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the terminal closed: the command is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)
