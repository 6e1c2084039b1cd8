"""How a `docsagent mcp` session over stdio ends when it does not end well (a stop signal
while a call runs, a client that dies mid-call: each leaves a closed trace, as a real
subprocess shows), and what its trace is good for afterwards (`rerun` without --docs)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TextIO

import pytest

from agent import RunFinished, ToolCallStarted, read_trace
from tests.test_mcp import (
    INITIALIZE,
    ROOT,
    SERVE,
    TIMEOUT_S,
    connected,
    docs,
    errlog,
    rpc,
    stdio_server,
    traces,
)

pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install '.[mcp]')")

__all__ = ["docs", "errlog", "traces"]  # fixtures shared with tests/test_mcp.py


@pytest.fixture(scope="module")
def many_docs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """10,000 small docs (a first list_docs takes about 1.5 s: longer than the signal
    guard's 0.9 s), and the environment whose index cache they share across tests."""
    root = tmp_path_factory.mktemp("many")
    folder = root / "docs"
    folder.mkdir()
    for n in range(10_000):
        (folder / f"doc{n}.md").write_text(f"# Doc {n}\n\n" + "alpha beta gamma delta\n" * 20)
    return folder, {**os.environ, "DOCSAGENT_CACHE_DIR": str(root / "cache")}


def wait_for(path_glob: tuple[Path, str], text: str) -> Path:
    """The trace once it holds `text` (polling the file: the server's own state)."""
    folder, pattern = path_glob
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        found = list(folder.glob(pattern)) if folder.is_dir() else []
        if found and text in found[0].read_text(errors="replace"):
            return found[0]
        assert time.monotonic() < deadline, f"never saw {text!r}"
        time.sleep(0.01)


def started(server: subprocess.Popen[bytes]) -> None:
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(rpc(1, "initialize", INITIALIZE))
    server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    server.stdin.flush()
    assert json.loads(server.stdout.readline())["id"] == 1


@pytest.mark.parametrize("name, code", [("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_stop_signal_while_a_call_runs_closes_the_trace(
    many_docs: tuple[Path, dict[str, str]], traces: Path, name: str, code: int
) -> None:
    docs, env = many_docs
    with stdio_server(docs, traces, env) as server:
        assert server.stdin is not None and server.stderr is not None
        started(server)
        server.stdin.write(rpc(2, "tools/call", {"name": "list_docs", "arguments": {}}))
        server.stdin.flush()
        wait_for((traces, "*.jsonl"), '"tool_start"')
        server.send_signal(getattr(signal, name))
        assert server.wait(TIMEOUT_S) == code
        assert "Traceback" not in server.stderr.read().decode()
    (path,) = traces.glob("*.jsonl")
    trace = read_trace(path)
    assert trace.complete and not trace.damaged_tail
    last = trace.events[-1]
    assert isinstance(last, RunFinished) and last.stop_reason == "cancelled"
    assert last.error is not None and last.error.endswith(f"({name})")


def test_a_client_that_dies_mid_call_leaves_a_closed_trace_and_one_line(
    many_docs: tuple[Path, dict[str, str]], traces: Path
) -> None:
    docs, env = many_docs
    with stdio_server(docs, traces, env) as server:
        assert server.stdin is not None and server.stdout is not None
        assert server.stderr is not None
        started(server)
        server.stdout.close()  # the client is gone: its reply has nowhere to go
        call = {"name": "grep_docs", "arguments": {"keyword": "alpha"}}
        server.stdin.write(rpc(2, "tools/call", call))
        server.stdin.flush()
        wait_for((traces, "*.jsonl"), '"tool_end"')
        server.stdin.close()
        assert server.wait(TIMEOUT_S) == 1
        err = server.stderr.read().decode()
    assert "Traceback" not in err and "Exception ignored" not in err
    assert err.splitlines()[-1].startswith(
        "docsagent: the MCP session ended: the MCP client went away (broken pipe); trace: "
    )
    (path,) = traces.glob("*.jsonl")
    trace = read_trace(path)
    last = trace.events[-1]
    assert trace.complete and isinstance(last, RunFinished)
    assert last.error == "the MCP client went away (broken pipe)"
    assert last.stop_reason == "disconnected"  # the client's death ends it as its leaving does


@pytest.mark.asyncio
async def test_rerun_of_a_served_session_needs_no_docs_option(
    docs: Path, traces: Path, errlog: TextIO
) -> None:
    async with connected(docs, traces, errlog) as session:
        await session.call_tool("grep_docs", {"keyword": "timeout"})
    (path,) = traces.glob("*.jsonl")
    rerun = subprocess.run(
        [sys.executable, "-c", SERVE, "rerun", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )  # the same user (XDG_STATE_HOME) as the server's
    assert rerun.returncode == 0, rerun.stderr
    assert rerun.stdout.splitlines()[:2] == [
        f"re-ran 1 tool calls against {docs}",
        '[step 1] grep_docs({"keyword": "timeout"}) same',
    ]


@pytest.mark.asyncio
async def test_a_client_s_tool_name_of_megabytes_is_cut_in_the_trace(
    docs: Path, traces: Path, errlog: TextIO
) -> None:
    async with connected(docs, traces, errlog) as session:
        result = await session.call_tool("x" * 2_000_000, {})
        assert result.is_error
        listed = await session.call_tool("list_docs", {})
        assert not listed.is_error
    (path,) = traces.glob("*.jsonl")
    assert path.stat().st_size < 50_000
    names = [e.name for e in read_trace(path).events if isinstance(e, ToolCallStarted)]
    assert names == ["x" * 64 + "… (2,000,000 characters)", "list_docs"]
