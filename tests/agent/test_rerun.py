from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.config import Config, build_agent
from agent.rerun import RerunReport, rerun_trace
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.tools.corpus import Corpus
from agent.trace import read_trace
from tests.tui.conftest import CLIENTS, TIMEOUTS, timeout_script
from tui.cli import app
from tui.commands.options import docs_folders_file
from tui.statefiles.docs_folders import remember

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """The folder the fixture traces were recorded on."""
    folder = tmp_path / "docs"
    (folder / "advanced").mkdir(parents=True)
    (folder / "advanced" / "timeouts.md").write_text(TIMEOUTS, encoding="utf-8")
    (folder / "clients.md").write_text(CLIENTS, encoding="utf-8")
    return folder


def record(docs: Path, folder: Path) -> Path:
    """A run over `docs` as the fixtures were recorded (same script), saved in `folder`."""
    config = Config(docs=docs, model="script:fixture", trace_dir=folder)
    model = ScriptedModel(timeout_script(), name="scripted")
    session = Session(build_agent(config, model=model), trace_dir=folder)
    for _ in session.ask("What is the default timeout?"):
        pass
    assert session.last_trace is not None
    return session.last_trace


@pytest.fixture
def trace(docs: Path) -> Path:
    """The run, recorded before any test edits the docs."""
    return record(docs, docs.parent / "traces")


def report_for(docs: Path, trace: Path) -> RerunReport:
    return rerun_trace(read_trace(trace), Corpus.open(docs))


def test_an_unchanged_folder_holds_and_every_call_is_the_same(docs: Path, trace: Path) -> None:
    report = report_for(docs, trace)
    assert report.calls and all(call.same for call in report.calls)
    assert [(c.label, c.holds) for c in report.citations] == [("advanced/timeouts.md:3", True)]
    assert report.holds


def test_an_edited_cited_line_breaks_the_citation_and_shows_a_diff(docs: Path, trace: Path) -> None:
    page = docs / "advanced" / "timeouts.md"
    page.write_text(page.read_text().replace("5 seconds", "10 seconds"), encoding="utf-8")
    report = report_for(docs, trace)
    assert not report.holds
    (citation,) = report.citations
    assert citation.reason == "line 3 now reads: httpx times out after 10 seconds by default."
    changed = [call for call in report.calls if not call.same]
    assert changed and any(
        "-   3| httpx times out after 5 seconds by default." in call.diff for call in changed
    )


def test_an_edit_elsewhere_changes_calls_but_the_answer_still_holds(
    docs: Path, trace: Path
) -> None:
    page = docs / "advanced" / "timeouts.md"
    page.write_text(page.read_text().replace("Line 20 about", "Line twenty about"), "utf-8")
    report = report_for(docs, trace)
    assert report.holds
    assert not all(call.same for call in report.calls)


def test_a_deleted_file_breaks_the_citation(docs: Path, trace: Path) -> None:
    (docs / "advanced" / "timeouts.md").unlink()
    report = report_for(docs, trace)
    assert [(c.holds, c.reason) for c in report.citations] == [(False, "no such lines now")]
    assert any("no file" in row for call in report.calls for row in call.diff)


def test_rerun_command_exit_codes_and_docs_option(docs: Path, trace: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["rerun", str(trace), "--docs", str(docs)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "nothing the answer rests on has changed"
    (docs / "advanced" / "timeouts.md").write_text("# Timeouts\n\nGone.\n")
    result = CliRunner().invoke(app, ["rerun", str(trace), "--docs", str(docs)])
    assert result.exit_code == 1
    assert "citation advanced/timeouts.md:3 CHANGED: line 3 now reads: Gone." in result.stdout
    missing = CliRunner().invoke(app, ["rerun", str(trace), "--docs", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "docs folder not found" in missing.stderr


def test_rerun_says_how_to_point_at_the_docs_when_the_runs_folder_is_gone(
    trace: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # the trace's docs folder, if relative, is not here
    lines = trace.read_text().splitlines()
    moved = tmp_path / "moved.jsonl"
    moved.write_text("\n".join(line.replace(str(tmp_path), "gone") for line in lines) + "\n")
    result = CliRunner().invoke(app, ["rerun", str(moved)])
    assert result.exit_code == 2
    assert result.stderr.rstrip().endswith("not a full path; pass --docs DIR to check against")
    gone = tmp_path / "gone"
    remember(docs_folders_file(), gone / "docs")  # asked about once, since removed
    moved.write_text("\n".join(line.replace(str(tmp_path), str(gone)) for line in lines) + "\n")
    result = CliRunner().invoke(app, ["rerun", str(moved)])
    assert result.exit_code == 2
    assert result.stderr.rstrip().endswith("pass --docs DIR to check another")


def test_rerun_of_a_run_without_an_answer_does_not_speak_of_one(
    docs: Path, trace: Path, tmp_path: Path
) -> None:
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(trace.read_text().splitlines()[:-1]) + "\n")  # no run_finished
    result = CliRunner().invoke(app, ["rerun", str(cut), "--docs", str(docs)])
    assert result.exit_code == 0, result.output
    last = result.stdout.splitlines()[-1]
    assert last == "the run ended without an answer: only its tool calls were checked"


def test_a_see_also_citation_beside_the_quoted_one_holds_on_unchanged_docs(
    docs: Path, tmp_path: Path
) -> None:
    answer = (
        "According to advanced/timeouts.md:\n\n> httpx times out after 5 seconds by default.\n\n"
        "Source: advanced/timeouts.md:3-3\n\nSee also: advanced/timeouts.md:4-6 (Timeouts)."
    )
    script = [
        reply(None, call("read_doc", {"path": "advanced/timeouts.md", "start": 1, "end": 10})),
        reply(answer),
    ]
    config = Config(docs=docs, model="script:see-also", trace_dir=tmp_path / "traces")
    session = Session(build_agent(config, model=ScriptedModel(script)), trace_dir=tmp_path / "t")
    for _ in session.ask("What is the default timeout?"):
        pass
    assert session.last_trace is not None
    report = report_for(docs, session.last_trace)
    assert [(c.label, c.holds) for c in report.citations] == [
        ("advanced/timeouts.md:3", True),
        ("advanced/timeouts.md:4-6", True),
    ]
    page = docs / "advanced" / "timeouts.md"  # the quoted line moves two lines down
    page.write_text(page.read_text().replace("# Timeouts\n", "# Timeouts\n\nNew.\n"))
    moved = report_for(docs, session.last_trace)
    assert [(c.label, c.holds, c.reason) for c in moved.citations][0][1:] == (
        False,
        "line 3 now reads: New.",
    )


def test_a_run_asked_with_a_relative_docs_folder_reruns_from_anywhere(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(docs.parent)
    config = Config(docs=Path("docs"), model="script:fixture", trace_dir=tmp_path / "traces")
    model = ScriptedModel(timeout_script())
    session = Session(build_agent(config, model=model), trace_dir=tmp_path / "traces")
    for _ in session.ask("What is the default timeout?"):
        pass
    assert session.last_trace is not None
    assert read_trace(session.last_trace).header["docs"] == str(docs)
    remember(docs_folders_file(), Path("docs"))  # as `ask --docs docs` does
    monkeypatch.chdir("/")
    result = CliRunner().invoke(app, ["rerun", str(session.last_trace)])
    assert result.exit_code == 0, result.output
