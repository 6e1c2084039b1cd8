"""`docsagent mcp --http` as a network neighbour would meet it: Host and Origin checked on
every address, refused headers logged inert on the server's terminal, a start that fails
said in one line with no trace left open."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests.test_mcp import ROOT, SERVE, TIMEOUT_S, docs, server_command, text_of, traces

mcp = pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install '.[mcp]')")
from mcp import ClientSession  # noqa: E402

__all__ = ["docs", "traces"]  # fixtures shared with tests/test_mcp.py

INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    b'"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
)


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def listening(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=1).close()
    except OSError:
        return False
    return True


def post(host: str, port: int, headers: dict[str, bytes]) -> int:
    """POST an MCP initialize with these headers (bytes as sent); the status code."""
    lines = [b"POST /mcp HTTP/1.1"]
    lines += [name.encode() + b": " + value for name, value in headers.items()]
    lines += [
        b"Content-Type: application/json",
        b"Accept: application/json, text/event-stream",
        f"Content-Length: {len(INITIALIZE)}".encode(),
        b"Connection: close",
    ]
    with socket.create_connection((host, port), timeout=TIMEOUT_S) as sock:
        sock.sendall(b"\r\n".join(lines) + b"\r\n\r\n" + INITIALIZE)
        reply = b""
        while b"\r\n" not in reply and (data := sock.recv(4096)):
            reply += data
    return int(reply.split()[1])


class PtyServer:
    """`docsagent mcp --http` on a pseudo-terminal: all it prints is kept, bytes as sent."""

    def __init__(self, args: list[str]) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(ROOT)
            os.execv(sys.executable, [sys.executable, *args])
        self.out = b""

    def read_until(self, wanted: bytes) -> None:
        deadline = time.monotonic() + TIMEOUT_S
        while wanted not in self.out:
            assert time.monotonic() < deadline, self.out
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                with contextlib.suppress(OSError):
                    self.out += os.read(self.fd, 65536)

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)
        os.waitpid(self.pid, 0)
        os.close(self.fd)


@contextlib.contextmanager
def pty_server(docs: Path, traces: Path, *extra: str) -> Iterator[PtyServer]:
    server = PtyServer(server_command(docs, traces, *extra))
    try:
        server.read_until(b"trace:")
        yield server
    finally:
        server.stop()


def test_a_refused_host_or_origin_reaches_the_terminal_inert(docs: Path, traces: Path) -> None:
    port = free_port()
    with pty_server(docs, traces, "--http", str(port)) as server:
        # C1 controls are legal bytes in a header (obs-text): CSI 2J, OSC 52 (clipboard), OSC 0
        hostile = b"evil\x9b2J\x9d52;c;b3duZWQ=\x9c\x9d0;owned\x9c.example"
        assert post("127.0.0.1", port, {"Host": hostile}) == 421
        server.read_until(b"Invalid Host header")
        good = f"127.0.0.1:{port}".encode()
        assert post("127.0.0.1", port, {"Host": good, "Origin": b"http://" + hostile}) == 403
        server.read_until(b"Invalid Origin header")
        server.read_until(b".example\r\n")
    printed = server.out.decode("utf-8", "replace")
    assert "\x9b" not in printed and "\x9d" not in printed and "\x1b]" not in printed
    assert (
        "docsagent: warning: Invalid Host header: "
        "evil\\x9b2J\\x9d52;c;b3duZWQ=\\x9c\\x9d0;owned\\x9c.example"
    ) in printed
    assert "docsagent: warning: Invalid Origin header: http://evil\\x9b2J" in printed


def test_every_host_checks_host_and_origin(docs: Path, traces: Path) -> None:
    host = "127.0.0.2"  # a loopback address the SDK does not know: it checked nothing there
    port = free_port(host)
    command = [sys.executable, *server_command(docs, traces, "--http", str(port), "--host", host)]
    with subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    ) as server:
        try:
            deadline = time.monotonic() + TIMEOUT_S
            while not listening(host, port):
                assert time.monotonic() < deadline and server.poll() is None
                time.sleep(0.05)
            evil = b"http://evil.example"
            assert post(host, port, {"Host": b"evil.example"}) == 421
            assert post(host, port, {"Host": b"evil.example", "Origin": evil}) == 421
            mine = f"{host}:{port}".encode()
            assert post(host, port, {"Host": mine, "Origin": evil}) == 403
            assert post(host, port, {"Host": mine}) == 200
            assert post(host, port, {"Host": mine, "Origin": b"http://" + mine}) == 200
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(TIMEOUT_S)


@pytest.mark.asyncio
async def test_allow_origin_lets_that_page_in_and_the_sdk_client_is_served(
    docs: Path, traces: Path
) -> None:
    from mcp.client.streamable_http import streamable_http_client

    port = free_port()
    extra = ["--http", str(port), "--allow-origin", "http://app.example:3000"]
    command = [sys.executable, *server_command(docs, traces, *extra)]
    with subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    ) as server:
        try:
            with anyio.fail_after(TIMEOUT_S):
                while not listening("127.0.0.1", port):
                    await anyio.sleep(0.05)
                mine = {"Host": f"localhost:{port}".encode()}
                page, other = b"http://app.example:3000", b"http://app.example:3001"
                assert post("127.0.0.1", port, {**mine, "Origin": page}) == 200
                assert post("127.0.0.1", port, {**mine, "Origin": other}) == 403
                url = f"http://127.0.0.1:{port}/mcp"
                async with (
                    streamable_http_client(url) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    listed = await session.call_tool("list_docs", {})
            assert "timeouts.md" in text_of(listed)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(TIMEOUT_S)


@pytest.mark.parametrize("case", ["port in use", "unknown host"])
def test_a_start_that_fails_is_one_line_and_leaves_no_trace(
    docs: Path, traces: Path, case: str
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        host = "127.0.0.1" if case == "port in use" else "no-such-host.invalid"
        done = subprocess.run(
            [sys.executable, "-c", SERVE, "mcp", "--docs", str(docs), "--trace-dir", str(traces),
             "--http", str(port), "--host", host],
            capture_output=True, text=True, cwd=ROOT, timeout=TIMEOUT_S,
        )  # fmt: skip
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith(f"docsagent: cannot listen on {host}:{port}: ")
    if case == "port in use":
        assert line.endswith("Address already in use")
    assert not list(traces.glob("*.jsonl"))  # nothing a `follow` could wait on
