"""Files written beside a user's files are created, never replaced, and no link is followed:
the helper itself, then `export -o` and `--trace` as a user (or a planted link) meets them."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.newfile import open_new, write_new
from agent.trace import read_trace
from tui.cli import app

pytestmark = pytest.mark.usefixtures("cli_env")  # without the user's settings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_a_taken_name_gets_the_next_free_one_and_the_user_file_is_kept(tmp_path: Path) -> None:
    mine = tmp_path / "report.md"
    mine.write_text("my notes\n")
    victim = tmp_path / "victim.txt"
    victim.write_text("not yours\n")
    (tmp_path / "report-2.md").symlink_to(victim)  # a link planted under the next name
    (tmp_path / "report-3.md").symlink_to(tmp_path / "nowhere")  # and a dangling one
    written = write_new(mine, "# export\n")
    assert written == tmp_path / "report-4.md"
    assert written.read_text() == "# export\n"
    assert mine.read_text() == "my notes\n"
    assert victim.read_text() == "not yours\n"
    assert not (tmp_path / "nowhere").exists()


def test_replace_removes_the_link_itself_never_its_target_nor_a_folder(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("not yours\n")
    link = tmp_path / "out.md"
    link.symlink_to(victim)
    assert write_new(link, "# export\n", replace=True) == link
    assert not link.is_symlink() and link.read_text() == "# export\n"
    assert victim.read_text() == "not yours\n"
    (tmp_path / "folder.md").mkdir()
    with pytest.raises(IsADirectoryError):
        write_new(tmp_path / "folder.md", "x", replace=True)
    with pytest.raises(FileExistsError):
        write_new(victim, "x", rename=False)
    assert victim.read_text() == "not yours\n"


def test_open_new_writes_text_as_utf8(tmp_path: Path) -> None:
    stream, path = open_new(tmp_path / "a.jsonl", errors="backslashreplace")
    with stream:
        stream.write("é \udcff\n")
    assert path.read_bytes() == "é \\udcff\n".encode()


def test_export_force_replaces_a_link_not_what_it_points_to(tmp_path: Path) -> None:
    trace = tmp_path / "run.jsonl"
    trace.write_bytes((FIXTURES / "answered.jsonl").read_bytes())
    victim = tmp_path / "victim.txt"
    victim.write_text("not yours\n")
    out = tmp_path / "run.md"
    out.symlink_to(victim)
    kept = CliRunner().invoke(app, ["export", str(trace), "-o", str(out)])
    assert kept.exit_code == 2 and victim.read_text() == "not yours\n"
    forced = CliRunner().invoke(app, ["export", str(trace), "-o", str(out), "--force"])
    assert forced.exit_code == 0, forced.stderr
    assert forced.stderr == f"docsagent: wrote {out}\n"
    assert not out.is_symlink() and out.read_text().startswith("#")
    assert victim.read_text() == "not yours\n"


def test_a_forced_trace_replaces_a_link_not_its_target(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "replay.md").write_text("# Replay\n\nRun `docsagent replay FILE` to watch it.\n")
    victim = tmp_path / "victim.txt"
    victim.write_text("not yours\n")
    path = tmp_path / "run.jsonl"
    path.symlink_to(victim)
    base = ["ask", "how do I replay?", "--docs", str(docs), "--model", "offline"]
    result = CliRunner().invoke(app, [*base, "--trace", str(path), "--force"])
    assert result.exit_code == 0, result.stderr
    assert victim.read_text() == "not yours\n"
    assert not path.is_symlink() and read_trace(path).complete
