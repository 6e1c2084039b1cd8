from __future__ import annotations

from pathlib import Path

import pytest

from agent.corpus import Corpus
from agent.docs_tools import DocsContext

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
