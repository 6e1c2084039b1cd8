"""`docsagent mcp --config CLIENT`: what a user pastes into a coding agent starts the server,
with no help from the shell's PATH (clients start servers with an environment of their own)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.folders import docs_folder
from tui.mcp.client_config import absolute_spec, executable, snippet

mcp = pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install '.[mcp]')")
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(sys.executable).with_name("docsagent")
TIMEOUT_S = 60  # a bound on a hang, never a wait
MINIMAL_PATH = "/usr/bin:/bin"  # what a client started from a desktop session may give


def config(client: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import tui.cli; tui.cli.main()", "mcp", "--config", client, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
    )


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    page = "# Timeouts\n\nThe read timeout limits each read.\n"
    return docs_folder(tmp_path / "docs", {"timeouts.md": page})


async def search_with(command: str, args: list[str], home: Path) -> str:
    """`search_docs` through the SDK's client on a server started as a client would start it."""
    params = StdioServerParameters(
        command=command, args=args, env={"PATH": MINIMAL_PATH, "HOME": str(home)}, cwd=home
    )
    with anyio.fail_after(TIMEOUT_S):
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("search_docs", {"query": "read timeout"})
    assert not result.is_error
    return "".join(getattr(block, "text", "") for block in result.content)


@pytest.mark.skipif(not SCRIPT.exists(), reason="the docsagent script is not beside this Python")
@pytest.mark.asyncio
async def test_the_printed_desktop_json_starts_a_server_without_the_venv_on_path(
    docs: Path, tmp_path: Path
) -> None:
    done = config("claude-desktop", "--docs", "../docs", cwd=docs)
    assert done.returncode == 0, done.stderr
    assert "claude_desktop_config.json" in done.stderr
    server = json.loads(done.stdout)["mcpServers"]["docs"]
    assert server["command"] == str(SCRIPT)  # the script itself, not `docsagent` from PATH
    assert server["args"] == ["mcp", "--docs", str(docs)]  # made absolute
    home = tmp_path / "home"
    home.mkdir()
    assert "timeouts.md:" in await search_with(server["command"], server["args"], home)


@pytest.mark.skipif(not SCRIPT.exists(), reason="the docsagent script is not beside this Python")
@pytest.mark.asyncio
async def test_the_printed_claude_code_line_runs_the_server(docs: Path, tmp_path: Path) -> None:
    done = config("claude-code", "--docs", str(docs), "--trace-dir", str(tmp_path / "t"))
    assert done.returncode == 0, done.stderr
    words = shlex.split(done.stdout)
    assert words[:5] == ["claude", "mcp", "add", "docs", "--"]
    command, *args = words[5:]
    assert args == ["mcp", "--docs", str(docs), "--trace-dir", str(tmp_path / "t")]
    assert "timeouts.md:" in await search_with(command, args, tmp_path)
    assert len(list((tmp_path / "t").glob("*.jsonl"))) == 1


def test_vscode_and_cursor_get_their_own_keys(docs: Path) -> None:
    vscode = json.loads(config("vscode", "--docs", str(docs)).stdout)
    assert vscode["servers"]["docs"]["type"] == "stdio"
    cursor = json.loads(config("cursor", "--docs", str(docs)).stdout)
    assert cursor["mcpServers"]["docs"]["args"] == ["mcp", "--docs", str(docs)]


def test_an_unknown_client_or_a_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    unknown = config("emacs")
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert "use claude-code, claude-desktop, cursor, vscode" in unknown.stderr
    missing = config("cursor", "--docs", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and missing.stdout == ""
    assert f"no docs folder at {tmp_path / 'nowhere'}" in missing.stderr


def test_the_command_is_the_running_script_or_the_one_beside_python(tmp_path: Path) -> None:
    script = tmp_path / "bin" / "docsagent"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    assert executable(str(script), python="/nowhere/python") == [str(script)]
    python = str(tmp_path / "bin" / "python")
    assert executable("-c", python=python) == [str(script)]
    lone = str(tmp_path / "python")
    assert executable("-c", python=lone) == [lone, "-m", "tui.cli"]


def test_named_sets_keep_their_names_when_made_absolute(tmp_path: Path) -> None:
    assert absolute_spec("httpx@0.27=docs") == f"httpx@0.27={Path.cwd() / 'docs'}"
    assert absolute_spec("./a=b") == str(Path.cwd() / "a=b")  # a path holding '='
    quoted: Any = shlex.split(snippet("claude-code", ["/a b/docsagent", "mcp"]))
    assert quoted[-2:] == ["/a b/docsagent", "mcp"]
