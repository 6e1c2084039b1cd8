"""`--help` starts fast: it loads none of the core, only the defaults and errors its options
name (the `agent` package itself imports its other names on first use)."""

from __future__ import annotations

import subprocess
import sys

import pytest

SHELL = {"agent", "agent.defaults", "agent.errors"}


@pytest.mark.parametrize("args", [["--help"], ["ask", "--help"], ["eval", "--help"]])
def test_help_loads_none_of_the_core(args: list[str]) -> None:
    code = (
        "import sys, tui.cli\n"
        "try:\n    tui.cli.main()\n"
        "except SystemExit:\n    pass\n"
        "print('--- modules', *sys.modules, sep='\\n')"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    help_text, _, listed = done.stdout.partition("--- modules\n")
    modules = set(listed.split())
    assert "Usage:" in help_text
    assert {m for m in modules if m.split(".")[0] == "agent"} == SHELL
    assert {"openai", "textual", "sqlite3"} & {m.split(".")[0] for m in modules} == set()
