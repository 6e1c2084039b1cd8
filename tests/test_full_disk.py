"""A full disk under the traces: a run ends with one line, an MCP session goes on answering
without its trace (said once), and what was written stays a readable trace. The disk is a
real one: a 64 KiB tmpfs (the tests skip where mounting one is not allowed)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest
from typer.testing import CliRunner

from agent import read_trace
from tests.folders import docs_folder
from tests.test_mcp import connected, docs, errlog, text_of
from tui.cli import app

__all__ = ["docs", "errlog"]  # fixtures shared with tests/test_mcp.py


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("mounting a small tmpfs is not allowed here")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_run_whose_trace_fills_the_disk_ends_with_one_line(
    small_disk: Path, tmp_path: Path, cli_env: Path
) -> None:
    docs = docs_folder(tmp_path / "docs", {"a.md": "# A\n\nText.\n"})
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"content": "word " * 40_000}]))  # 200 KB: past the disk
    trace = small_disk / "run.jsonl"
    result = CliRunner().invoke(
        app,
        ["ask", "What is A?", "--docs", str(docs), "--model", f"script:{script}",
         "--trace", str(trace)],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"docsagent: cannot write the trace {trace}: No space left on device"
    )
    loaded = read_trace(trace)  # cut back to its last whole line
    assert not loaded.damaged_tail and loaded.events


@pytest.mark.asyncio
async def test_an_mcp_session_goes_on_without_its_trace_and_says_so_once(
    docs: Path, small_disk: Path, errlog: TextIO
) -> None:
    (docs / "long.md").write_text("# Long\n\n" + ("a long line of text to read " * 20 + "\n") * 400)
    answered = 0
    async with connected(docs, small_disk, errlog) as session:
        for _ in range(40):  # each result is traced whole: about 10 KB a call
            result = await session.call_tool("read_doc", {"path": "long.md", "end": 80})
            assert not result.is_error and "a long line of text" in text_of(result)
            answered += 1
    assert answered == 40
    errlog.seek(0)
    err = errlog.read()
    assert "Traceback" not in err
    warnings = [line for line in err.splitlines() if "cannot write the trace" in line]
    assert len(warnings) == 1
    assert warnings[0].endswith("No space left on device; calls go on without a trace")
    (path,) = small_disk.glob("*.jsonl")
    assert not read_trace(path).damaged_tail  # cut back to its last whole line
