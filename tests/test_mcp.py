"""`docsagent mcp` as a real subprocess, talked to with the MCP SDK's own client."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, TextIO

import anyio
import pytest

from agent import (
    RunFinished,
    ServedTools,
    ToolCallFinished,
    ToolCallStarted,
    ToolRegistry,
    Trace,
    docs_registry,
    read_trace,
)

mcp = pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install '.[mcp]')")
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SERVE = "import tui.cli; tui.cli.main()"
TIMEOUT_S = 60  # a bound on a hang, never a wait: every test waits on replies or files


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "timeouts.md").write_text(
        "# Timeouts\n\nThe connect timeout limits the wait for a connection.\n"
        "The read timeout limits each read of the response.\n"
    )
    (folder / "hostile.md").write_text("# Colours\n\nA \x1b]0;owned\x07 title and \x1b[2J clear.\n")
    return folder


@pytest.fixture
def traces(tmp_path: Path) -> Path:
    return tmp_path / "traces"


def server_command(docs: Path, traces: Path, *extra: str) -> list[str]:
    return ["-c", SERVE, "mcp", "--docs", str(docs), "--trace-dir", str(traces), *extra]


@contextlib.contextmanager
def stdio_server(
    docs: Path, traces: Path, env: dict[str, str] | None = None, stderr: int = subprocess.PIPE
) -> Iterator[subprocess.Popen[bytes]]:
    """`docsagent mcp` over stdio as a subprocess, its pipes the test's; killed after."""
    with subprocess.Popen(
        [sys.executable, *server_command(docs, traces)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        cwd=ROOT,
        env=env,
    ) as server:
        try:
            yield server
        finally:
            server.kill()


@contextlib.asynccontextmanager
async def connected(docs: Path, traces: Path, errlog: TextIO) -> AsyncIterator[ClientSession]:
    """A client session with `docsagent mcp` over stdio, initialized."""
    params = StdioServerParameters(
        command=sys.executable,
        args=server_command(docs, traces),
        env={
            "DOCSAGENT_CACHE_DIR": os.environ["DOCSAGENT_CACHE_DIR"],
            "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"],  # the folders served are kept there
        },
        cwd=ROOT,
    )
    with anyio.fail_after(TIMEOUT_S):
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[TextIO]:
    with (tmp_path / "stderr.txt").open("w+") as file:
        yield file


def ending(trace: Trace) -> RunFinished:
    """The trace's last event, which ends a session's trace."""
    last = trace.events[-1]
    assert isinstance(last, RunFinished)
    return last


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content)


def only_trace(traces: Path) -> Path:
    (path,) = traces.glob("*.jsonl")
    return path


@pytest.mark.asyncio
async def test_it_offers_the_registry_tools_with_their_schemas(
    docs: Path, traces: Path, errlog: TextIO
) -> None:
    async with connected(docs, traces, errlog) as session:
        listed = (await session.list_tools()).tools
    registry = docs_registry()
    assert [t.name for t in listed] == registry.names
    for offered in listed:
        own = registry[offered.name].described_parameters()
        assert offered.input_schema.get("required") == own.get("required")
        assert offered.description == registry[offered.name].description
        assert offered.annotations is not None and offered.annotations.read_only_hint
        for name, schema in offered.input_schema["properties"].items():
            assert schema["description"], f"{offered.name}.{name} has no description"
            if name in ("max_tokens", "page"):  # the result's budget, the server's own
                assert schema["type"] == "integer" and schema["minimum"] >= 1
                continue
            model_sees = registry[offered.name].parameters["properties"][name]
            bounds = ("description", "minimum", "maximum")
            assert model_sees == {k: v for k, v in schema.items() if k not in bounds}
    (search,) = (t for t in listed if t.name == "search_docs")
    limit = search.input_schema["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"]) == (1, 10)
    (read_doc,) = (t for t in listed if t.name == "read_doc")
    assert read_doc.input_schema["properties"]["path"]["description"] == (
        "The doc's path, as list_docs or search_docs gives it."
    )


@pytest.mark.asyncio
async def test_each_tool_answers_with_lines_to_cite_and_the_session_is_traced(
    docs: Path, traces: Path, errlog: TextIO
) -> None:
    async with connected(docs, traces, errlog) as session:
        found = await session.call_tool("search_docs", {"query": "read timeout"})
        read = await session.call_tool("read_doc", {"path": "timeouts.md", "start": 3, "end": 4})
        grep = await session.call_tool("grep_docs", {"keyword": "connect"})
        listed = await session.call_tool("list_docs", {})
    assert not any(r.is_error for r in (found, read, grep, listed))
    assert "timeouts.md:" in text_of(found)
    assert text_of(read).splitlines() == [
        "timeouts.md lines 3-4 of 4",
        "   3| The connect timeout limits the wait for a connection.",
        "   4| The read timeout limits each read of the response.",
    ]
    assert text_of(grep) == "timeouts.md:3: The connect timeout limits the wait for a connection."
    assert "timeouts.md  (4 lines)  Timeouts" in text_of(listed)
    trace = read_trace(only_trace(traces))
    calls = [e for e in trace.events if isinstance(e, ToolCallStarted)]
    results = [e for e in trace.events if isinstance(e, ToolCallFinished)]
    assert [c.name for c in calls] == ["search_docs", "read_doc", "grep_docs", "list_docs"]
    assert json.loads(calls[1].arguments) == {"path": "timeouts.md", "start": 3, "end": 4}
    assert [r.output for r in results][1] == text_of(read)
    assert trace.complete and ending(trace).stop_reason == "disconnected"  # the normal end
    assert ending(trace).error == "the MCP client closed the session"
    assert ending(trace).stats.tool_calls == 4
    assert "serving" in Path(errlog.name).read_text()


@pytest.mark.asyncio
async def test_a_pdfs_results_name_their_pages(docs: Path, traces: Path, errlog: TextIO) -> None:
    from tests.agent.test_pdf_docs import OUTLINE, PAGES
    from tests.pdf_support import pdf_bytes

    pdf = pdf_bytes(PAGES, labels={0: "/S /r", 2: "/S /D"}, outline=OUTLINE)
    (docs / "guide.pdf").write_bytes(pdf)
    async with connected(docs, traces, errlog) as session:
        found = await session.call_tool("search_docs", {"query": "wheel files offline"})
        read = await session.call_tool("read_doc", {"path": "guide.pdf", "start": 4, "end": 5})
    assert "1. guide.pdf:9-12 (p. 1–2)  1 Installing > 1.1 Offline" in text_of(found)
    assert text_of(read).splitlines()[0] == "guide.pdf lines 4-5 of 12 (p. ii)"


@pytest.mark.asyncio
async def test_refusals_are_tool_errors_and_the_server_goes_on(
    docs: Path, traces: Path, errlog: TextIO
) -> None:
    async with connected(docs, traces, errlog) as session:
        outside = await session.call_tool("read_doc", {"path": "../../etc/passwd"})
        huge = await session.call_tool("search_docs", {"query": "timeout " * 30_000})
        unknown = await session.call_tool("grep_docs", {"keyword": "x", "bogus": 1})
        missing = await session.call_tool("read_doc", {})
        after = await session.call_tool("grep_docs", {"keyword": "read timeout"})
    assert outside.is_error and "outside the docs folder" in text_of(outside)
    assert "root:" not in text_of(outside)
    assert huge.is_error and "at most 100,000 are accepted" in text_of(huge)
    assert unknown.is_error and "unknown argument bogus" in text_of(unknown)
    assert missing.is_error and "missing required argument 'path'" in text_of(missing)
    assert not after.is_error and "timeouts.md:4:" in text_of(after)
    trace = read_trace(only_trace(traces))
    assert trace.complete
    started = [e for e in trace.events if isinstance(e, ToolCallStarted)]
    assert len(started[1].arguments) < 100_010  # a huge argument is kept short in the trace


@pytest.mark.asyncio
async def test_doc_text_reaches_the_client_without_control_characters(
    docs: Path, traces: Path, errlog: TextIO
) -> None:
    async with connected(docs, traces, errlog) as session:
        read = await session.call_tool("read_doc", {"path": "hostile.md"})
    assert "\x1b" not in text_of(read) and "\x07" not in text_of(read)
    assert "   3| A ␛]0;owned␇ title and ␛[2J clear." in text_of(read)


@pytest.mark.asyncio
async def test_a_client_that_leaves_mid_call_leaves_a_whole_trace(
    docs: Path, traces: Path, errlog: TextIO
) -> None:
    async with connected(docs, traces, errlog) as session, anyio.create_task_group() as group:
        group.start_soon(session.call_tool, "grep_docs", {"keyword": "timeout"})
        while not traces.is_dir() or "tool_start" not in only_trace(traces).read_text():
            await anyio.sleep(0.01)  # polling the trace for the call's first line
        group.cancel_scope.cancel()  # the client goes, its call unanswered
    trace = read_trace(only_trace(traces))
    assert trace.complete
    kinds = [e.kind for e in trace.events]
    assert kinds == ["run_started", "message", "tool_start", "tool_end", "message", "run_finished"]


@pytest.mark.asyncio
async def test_the_trace_names_the_docs_folder_without_dot_dot(
    docs: Path, traces: Path, errlog: TextIO
) -> None:
    async with connected(docs / ".." / docs.name, traces, errlog) as session:
        await session.call_tool("list_docs", {})
    assert read_trace(only_trace(traces)).header["docs"] == str(docs)


@pytest.mark.asyncio
async def test_two_sessions_leave_two_traces_that_replay(
    docs: Path, traces: Path, errlog: TextIO
) -> None:
    for keyword in ("connect", "read"):
        async with connected(docs, traces, errlog) as session:
            await session.call_tool("grep_docs", {"keyword": keyword})
    paths = sorted(traces.glob("*.jsonl"))
    assert len(paths) == 2
    for path, keyword in zip(paths, ("connect", "read"), strict=True):
        trace = read_trace(path)
        assert trace.complete and trace.header["model"] == "mcp client"
        (call,) = (e for e in trace.events if isinstance(e, ToolCallStarted))
        assert json.loads(call.arguments) == {"keyword": keyword}
        printed = subprocess.run(
            [sys.executable, "-c", SERVE, "replay", "--print", str(path)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert printed.returncode == 0, printed.stderr
        assert f'[step 1] grep_docs({{"keyword": "{keyword}"}}) → timeouts.md:' in printed.stderr
        assert "session ended after 1 step · 1 tool call" in printed.stderr
        assert "cancelled" not in printed.stderr


def rpc(id_: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        message["params"] = params
    return (json.dumps(message) + "\n").encode()


INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"},
}


@pytest.mark.parametrize("name, code", [("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_stop_signal_closes_the_trace(docs: Path, traces: Path, name: str, code: int) -> None:
    """stdout holds the protocol only; the signal ends the trace and exits 128 + N."""
    with stdio_server(docs, traces) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(rpc(1, "initialize", INITIALIZE))
        server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        server.stdin.write(rpc(2, "tools/call", {"name": "list_docs", "arguments": {}}))
        server.stdin.flush()
        replies = [json.loads(server.stdout.readline()) for _ in range(2)]
        assert [r["id"] for r in replies] == [1, 2]
        server.send_signal(getattr(signal, name))
        assert server.wait(TIMEOUT_S) == code
        assert server.stdout.read() == b""
        assert server.stderr is not None and f"({name})" in server.stderr.read().decode()
    trace = read_trace(only_trace(traces))
    error = ending(trace).error
    assert trace.complete and error is not None
    assert error.endswith(f"({name})") and ending(trace).stop_reason == "cancelled"


def test_without_the_sdk_it_says_what_to_install(docs: Path, traces: Path) -> None:
    hide = "import sys; sys.modules['mcp'] = None; " + SERVE
    done = subprocess.run(
        [sys.executable, "-c", hide, "mcp", "--docs", str(docs), "--trace-dir", str(traces)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "pip install 'docsagent[mcp]'" in done.stderr


def test_closing_waits_for_a_running_call(traces: Path) -> None:
    """`close` from another thread while a call runs: the call's result is traced first."""
    entered, release = threading.Event(), threading.Event()

    def wait_here() -> str:
        """Wait until released."""
        entered.set()
        release.wait()
        return "done"

    served = ServedTools(ToolRegistry([wait_here]), [], trace_dir=traces, docs="docs")
    caller = threading.Thread(target=served.call, args=("wait_here", {}))
    caller.start()
    entered.wait()
    closer = threading.Thread(target=served.close, args=("the MCP client disconnected",))
    closer.start()
    release.set()
    caller.join()
    closer.join()
    assert served.close("again") is None  # once only
    trace = read_trace(served.path)
    assert [e.kind for e in trace.events] == [
        "run_started",
        "message",
        "tool_start",
        "tool_end",
        "message",
        "run_finished",
    ]


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


@pytest.mark.asyncio
async def test_streamable_http_serves_on_the_loopback(docs: Path, traces: Path) -> None:
    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, *server_command(docs, traces, "--http", str(port))]
    with subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    ) as server:
        assert server.stdout is not None
        try:
            with anyio.fail_after(TIMEOUT_S):
                while not listening(port):  # the server is up when its port takes connections
                    await anyio.sleep(0.05)
                url = f"http://127.0.0.1:{port}/mcp"
                async with (
                    streamable_http_client(url) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    refused = await session.call_tool("read_doc", {"path": "../../etc/passwd"})
            assert refused.is_error and "outside the docs folder" in text_of(refused)
            server.send_signal(signal.SIGTERM)
            assert server.wait(TIMEOUT_S) == 143
            assert server.stdout.read() == b""
        finally:
            server.kill()
    trace = read_trace(only_trace(traces))
    assert trace.complete and ending(trace).error == "terminated (SIGTERM)"
    assert ending(trace).stop_reason == "cancelled"
    assert [e.name for e in trace.events if isinstance(e, ToolCallStarted)] == ["read_doc"]
