"""The TUI as a real process in a pseudo-terminal: what a signal or a closed terminal does."""

from __future__ import annotations

import os
import select
import signal
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.events import RunFinished
from agent.trace import read_trace
from tests.chatserver import ChatServer, Hang, chunk

pty = pytest.importorskip("pty")
LIMIT_S = 20.0  # only guards a hang: every wait below ends on a state change


def read_until(fd: int, done: Callable[[], bool]) -> None:
    """Keep the terminal's output flowing (if it is still open) until `done()` holds."""
    deadline = time.monotonic() + LIMIT_S
    while not done():
        assert time.monotonic() < deadline, "the TUI never got there"
        ready, _, _ = select.select([fd] if fd >= 0 else [], [], [], 0.05)
        if ready:
            try:
                os.read(fd, 65536)
            except OSError:  # the TUI has let go of the terminal
                fd = -1


@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "terminal closed"])
def test_a_stop_signal_closes_the_trace_of_a_running_question(
    chat_server: ChatServer, tmp_path: Path, how: str
) -> None:
    chat_server.push(Hang([chunk({"role": "assistant", "content": "Thinking"})], seconds=10))
    traces = tmp_path / "traces"
    script = Path(sys.executable).parent / "docsagent"
    args = [str(script), "tui", "-q", "hello", "--base-url", chat_server.base_url, "--model", "m"]
    env = {**os.environ, "LLM_API_KEY": "sk-test", "DOCSAGENT_TRACE_DIR": str(traces)}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")  # the question history goes there
    with warnings.catch_warnings():  # Python 3.12+ warns about fork() beside threads;
        warnings.simplefilter("ignore", DeprecationWarning)  # the child only execs
        pid, fd = pty.fork()
    if pid == 0:  # the child: become the TUI, with the pseudo-terminal as its terminal
        os.execve(args[0], args, {**env, "TERM": "xterm-256color"})
    exited: list[int] = []

    def has_exited() -> bool:
        if not exited:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                exited.append(os.waitstatus_to_exitcode(status))
        return bool(exited)

    try:
        read_until(fd, lambda: bool(chat_server.requests))  # the question is being answered
        if how == "terminal closed":
            os.close(fd)  # the kernel hangs up on the TUI
            fd = -1
        else:
            os.kill(pid, getattr(signal, how))
        read_until(fd, has_exited)
    finally:
        if not exited:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        if fd >= 0:
            os.close(fd)
    assert exited == [143 if how == "SIGTERM" else 129]
    (path,) = traces.iterdir()
    trace = read_trace(path)
    assert trace.complete
    final = trace.events[-1]
    assert isinstance(final, RunFinished) and final.stop_reason == "cancelled"
