"""The offline model through `docsagent ask`: the httpx docs, a decline, the bundled manual."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.trace import read_trace
from tests.cli_support import HTTPX_DOCS, ROOT, ask, needs_httpx
from tui.cli import app

pytestmark = pytest.mark.usefixtures("cli_env")  # without the user's settings


@needs_httpx
def test_offline_model_answers_the_timeouts_question_with_no_key() -> None:
    question = "What timeout types does httpx have?"
    code, answer, err = ask(question, "--docs", str(HTTPX_DOCS))
    assert code == 0
    assert err.splitlines()[0].startswith("docsagent: no API key set")
    for kind in ["connect", "read", "write", "pool"]:
        assert kind in answer.lower()
    code, out, _ = ask(question, "--docs", str(HTTPX_DOCS), "--json")
    data = json.loads(out)
    assert data["stop_reason"] == "answered" and data["declined"] is False
    timeouts = [c for c in data["citations"] if c["path"] == "advanced/timeouts.md"]
    assert timeouts and all(c["valid"] and c["read"] for c in timeouts)
    assert any(c["start"] <= 45 and c["end"] >= 61 for c in timeouts)
    page = (ROOT / "data" / "manual" / "offline-model.md").read_text(encoding="utf-8")
    example = page.split(f'"{question}" on the\nhttpx docs):')[1].split("```")[1]
    cited = [line for line in example.splitlines() if line.startswith(("Source:", "See also:"))]
    assert len(cited) == 2 and all(line in answer.splitlines() for line in cited)


def test_an_offline_decline_says_so_in_json_and_cites_nothing(docs: Path) -> None:
    code, out, _ = ask("How do I bake sourdough bread?", "--docs", str(docs), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["stop_reason"] == "answered"
    assert data["declined"] is True and data["citations"] == []
    assert "don't seem to cover" in data["answer"]


def test_offline_model_on_the_bundled_manual_by_default() -> None:
    # Only a real answer cites the manual's page; "not covered" only repeats the question.
    code, out, err = ask("How do I replay a trace?", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["stop_reason"] == "answered"
    cited = data["citations"][0]
    assert cited["path"] == "traces-and-replay.md" and cited["valid"] and cited["read"]
    page = (ROOT / "data" / "manual" / cited["path"]).read_text().splitlines()
    quoted = "\n".join(page[cited["start"] - 1 : cited["end"]])
    assert "docsagent replay" in quoted and "docsagent replay" in data["answer"]
    assert all(c["read"] for c in data["citations"])


def test_the_samples_work_on_the_bundled_manual() -> None:
    trace = read_trace(ROOT / "data" / "samples" / "offline-replay.jsonl")
    assert trace.complete and trace.header["model"] == "offline"
    sample = ROOT / "data" / "samples" / "script.json"
    code, out, _ = ask("How do I replay a trace?", "--model", f"script:{sample}", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["stop_reason"] == "answered"
    assert data["citations"] and all(c["valid"] for c in data["citations"])


def test_the_example_a_quoted_passage_shows_is_not_a_citation_and_rerun_holds() -> None:
    # The manual's rerun section quotes rerun's output, "citation advanced/timeouts.md:3
    # CHANGED"; the offline model quotes that section: the quote is not the answer citing.
    code, out, err = ask("What does rerun print when a cited file changed?", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert "advanced/timeouts.md:3" in data["answer"]
    cited = [c["path"] for c in data["citations"]]
    assert "advanced/timeouts.md" not in cited and cited
    assert all(c["valid"] and c["read"] for c in data["citations"])
    assert "never read" not in err
    result = CliRunner().invoke(app, ["rerun", data["trace"]])
    assert result.exit_code == 0, result.stdout


def test_the_trace_names_the_docs_folder_without_dot_dot(docs: Path) -> None:
    roundabout = docs / ".." / docs.name
    code, out, _ = ask("How do I replay a run?", "--docs", str(roundabout), "--json")
    assert code == 0
    assert read_trace(Path(json.loads(out)["trace"])).header["docs"] == str(docs)


def test_ask_says_which_docs_the_index_could_not_read(docs: Path) -> None:
    (docs / "scan.md").write_bytes(b"\x89PNG\0\0")
    code, _, err = ask("How do I replay a run?", "--docs", str(docs))
    assert code == 0
    assert "docsagent: skipped scan.md: binary" in err.splitlines()
