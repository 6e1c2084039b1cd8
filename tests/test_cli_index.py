"""`docsagent index PATH...`: the indexes built ahead, with progress and a summary line."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from tui.commands.indexing import IndexBar

ROOT = Path(__file__).resolve().parent.parent


def index(*folders: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import tui.cli; tui.cli.main()", "index", *map(str, folders)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def test_index_builds_then_finds_the_index_up_to_date(tmp_path: Path, cli_env: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nalpha\n\n## B\n\nbeta\n")
    (docs / "b.md").write_text("# C\n\ngamma\n")
    first = index(docs)
    assert first.returncode == 0 and first.stdout == ""
    line = first.stderr.splitlines()[-1]
    assert line.startswith(f"{docs}: 2 docs (0.0 MB), 3 sections: 2 added, 0 changed, 0 removed")
    again = index(docs, tmp_path / "nowhere")
    assert again.returncode == 2
    assert f"{docs}: 2 docs (0.0 MB), 3 sections: already up to date in" in again.stderr
    assert f"docs folder not found: {tmp_path / 'nowhere'}" in again.stderr


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_counts_files_mb_and_seconds() -> None:
    now = [0.0]
    piped = io.StringIO()
    bar = IndexBar(piped, label="docs", size=2_500_000, clock=lambda: now[0])
    bar(1, 10)  # under a second: a small folder writes only its summary
    now[0] = 1.5
    for done in range(2, 11):
        bar(done, 10)
    bar.close()
    lines = piped.getvalue().splitlines()
    assert len(lines) == 9 and lines[-1] == (
        "docs: [████████████████████████] 10 of 10 files · 2.5 MB · 1.5 s"
    )
    assert lines[0] == "docs: [████····················] 2 of 10 files · 2.5 MB · 1.5 s"
    tty = Tty()
    bar = IndexBar(tty, label="d\x1b]0;x\x07", size=0, clock=lambda: now[0])
    bar(1, 4)
    bar.close()
    assert tty.getvalue() == (
        "\rd␛]0;x␇: [██████··················] 1 of 4 files · 0.0 MB · 0.0 s\x1b[K\r\x1b[K"
    )
