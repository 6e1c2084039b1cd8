"""`rerun` reads only a docs folder the user chose: --docs, one asked about, or the manual.

Traces are shared and can be edited: one naming `/etc`, a private folder, `/`, `''` or
`../..` must not be rerun there (it read and printed those files). A path too long for
the system, as --docs or in a trace, gives one line (it gave `OSError` tracebacks).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent import default_docs
from tests.agent.test_rerun import record
from tests.folders import docs_folder
from tests.tui.conftest import TIMEOUTS
from tui.cli import app
from tui.commands.options import docs_folders_file
from tui.statefiles.docs_folders import MAX_FOLDERS, remember, used_folders, was_used

pytestmark = pytest.mark.usefixtures("cli_env")


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "advanced").mkdir(parents=True)
    (folder / "advanced" / "timeouts.md").write_text(TIMEOUTS, encoding="utf-8")
    return folder


def naming(trace: Path, folder: str, out: Path) -> Path:
    """A copy of `trace` whose header (and run_started) name `folder` as the docs."""
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    old = lines[0]["docs"]
    edited = [{**d, "docs": folder} if d.get("docs") == old else d for d in lines]
    out.write_text("".join(json.dumps(d) + "\n" for d in edited))
    return out


def rerun(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["rerun", *args])
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("named", ["/etc", "/", "PRIVATE"])
def test_a_trace_naming_a_folder_never_asked_about_is_not_rerun_there(
    docs: Path, tmp_path: Path, named: str
) -> None:
    secrets = {"secrets.md": "# Secrets\n\nThe password is hunter2.\n"}
    private = docs_folder(tmp_path / "private", secrets)
    folder = str(private) if named == "PRIVATE" else named
    trace = naming(record(docs, tmp_path / "traces"), folder, tmp_path / "shared.jsonl")
    code, out, err = rerun(str(trace))
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"docsagent: the trace names the docs folder {folder}, which you have not asked "
        "docsagent about; pass --docs DIR to check against it (or another)"
    ]


@pytest.mark.parametrize(
    ("named", "line"),
    [
        ("", "docsagent: the trace names no docs folder; pass --docs DIR to check against"),
        ("   ", "docsagent: the trace names no docs folder; pass --docs DIR to check against"),
        ("../../", "docsagent: the trace names the docs folder ../../, which is not a full "
                   "path; pass --docs DIR to check against"),
    ],
)  # fmt: skip
def test_a_trace_naming_no_folder_or_a_relative_one_asks_for_docs(
    docs: Path, tmp_path: Path, named: str, line: str
) -> None:
    trace = naming(record(docs, tmp_path / "traces"), named, tmp_path / "shared.jsonl")
    assert rerun(str(trace)) == (2, "", line + "\n")


def test_a_folder_asked_about_with_ask_is_rerun_without_docs(docs: Path, tmp_path: Path) -> None:
    trace = record(docs, tmp_path / "traces")
    assert rerun(str(trace))[0] == 2  # never asked about yet
    result = CliRunner().invoke(app, ["ask", "timeout?", "--docs", str(docs), "--model", "offline"])
    assert result.exit_code == 0, result.stderr
    code, out, _ = rerun(str(trace))
    assert code == 0 and out.splitlines()[-1] == "nothing the answer rests on has changed"


def test_a_link_to_a_folder_asked_about_does_not_open_another(docs: Path, tmp_path: Path) -> None:
    remember(docs_folders_file(), docs)
    link = tmp_path / "link"
    link.symlink_to(docs)
    assert was_used(docs_folders_file(), link)  # the same folder, by its real path
    link.unlink()
    link.symlink_to("/etc")
    assert not was_used(docs_folders_file(), link)


def test_the_manual_is_always_rerun(docs: Path, tmp_path: Path) -> None:
    trace = naming(record(docs, tmp_path / "traces"), str(default_docs()), tmp_path / "m.jsonl")
    code, _, err = rerun(str(trace))
    assert code in (0, 1), err  # checked against the manual (its citations do not hold)


def test_docs_given_is_always_used(docs: Path, tmp_path: Path) -> None:
    trace = naming(record(docs, tmp_path / "traces"), "/etc", tmp_path / "shared.jsonl")
    code, out, _ = rerun(str(trace), "--docs", str(docs))
    assert code == 0 and out.startswith(f"re-ran 3 tool calls against {docs}")


def test_a_10000_character_path_in_a_trace_gives_one_short_line(docs: Path, tmp_path: Path) -> None:
    named = "/" + "a/" * 5000
    trace = naming(record(docs, tmp_path / "traces"), named, tmp_path / "shared.jsonl")
    code, out, err = rerun(str(trace))
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and len(err) < 400
    remember(docs_folders_file(), Path(named))  # even one "asked about" before
    code, out, err = rerun(str(trace))
    assert code == 2 and len(err.splitlines()) == 1 and "File name too long" in err


@pytest.mark.parametrize("command", ["ask", "eval", "rerun"])
def test_a_path_component_over_255_characters_in_docs_gives_one_line(
    docs: Path, tmp_path: Path, command: str
) -> None:
    long = str(tmp_path / ("x" * 300))
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "q?"}\n')
    trace = record(docs, tmp_path / "traces")
    args = {
        "ask": ["ask", "q", "--model", "offline"],
        "eval": ["eval", str(questions), "--model", "offline"],
        "rerun": ["rerun", str(trace)],
    }[command]
    result = CliRunner().invoke(app, [*args, "--docs", long])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"docsagent: cannot open the docs folder {long[:100]}…{long[-100:]}: File name too long"
    ]


def test_the_folders_kept_are_bounded_and_a_damaged_file_is_no_folders(tmp_path: Path) -> None:
    file = tmp_path / "docs-folders"
    for n in range(MAX_FOLDERS + 5):
        remember(file, tmp_path / f"f{n}")
    kept = used_folders(file)
    assert len(kept) == MAX_FOLDERS and kept[-1] == str(tmp_path / f"f{MAX_FOLDERS + 4}")
    file.write_text("[" * 100_000 + "\n" + "9" * 5000 + "\n")
    assert used_folders(file) == []
    file.unlink()
    file.symlink_to("/dev/zero")
    assert used_folders(file) == []
    remember(file, tmp_path)  # a link to a device is left alone
    assert file.is_symlink()
