"""What the CLI tests share: where the repository and the httpx docs are, and `ask`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tui.cli import app

ROOT = Path(__file__).resolve().parent.parent
HTTPX_DOCS = ROOT.parent / "shared" / "corpora" / "httpx-docs"
needs_httpx = pytest.mark.skipif(
    not HTTPX_DOCS.is_dir(), reason="../shared/corpora/httpx-docs is not beside the checkout"
)


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
