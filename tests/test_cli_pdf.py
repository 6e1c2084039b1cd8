"""A folder of PDFs through `docsagent ask`, `replay --print` and `export`: the page shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.agent.test_pdf_docs import OUTLINE, PAGES
from tests.cli_support import ask
from tests.pdf_support import pdf_bytes
from tui.cli import app

pytestmark = pytest.mark.usefixtures("cli_env")  # without the user's settings

QUESTION = "Which files do I copy to install the widget offline?"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    data = pdf_bytes(PAGES, labels={0: "/S /r", 2: "/S /D"}, outline=OUTLINE)
    (root / "guide.pdf").write_bytes(data)
    (root / "scan.pdf").write_bytes(pdf_bytes([None]))  # skipped, never failing the folder
    return root


def test_an_offline_answer_from_a_pdf_names_the_page_it_cites(docs: Path, cli_env: Path) -> None:
    code, answer, err = ask(QUESTION, "--docs", str(docs))
    assert code == 0, err
    assert "Source: guide.pdf:9-12 (p. 1–2)" in answer.splitlines()
    code, out, _ = ask(QUESTION, "--docs", str(docs), "--json")
    data = json.loads(out)
    assert data["citations"][0] == {
        "path": "guide.pdf",
        "start": 9,
        "end": 12,
        "valid": True,
        "read": True,
        "quoted": True,
        "page": "1–2",
    }
    assert "(p. " not in data["answer"]  # the model's own words: the page is the field's
    trace = data["trace"]
    replayed = CliRunner().invoke(app, ["replay", trace, "--print"])
    assert "Source: guide.pdf:9-12 (p. 1–2)" in replayed.stdout.splitlines()
    exported = CliRunner().invoke(app, ["export", trace])
    assert "- guide.pdf:9-12 (p. 1–2) (read in the run)" in exported.stdout.splitlines()
