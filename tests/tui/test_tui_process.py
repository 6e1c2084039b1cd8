"""The TUI as a real process in a pseudo-terminal: what a signal or a closed terminal does.

The process's signal guard is held back (`OWN_ENDING`): the TUI must close the trace and
end by itself, however slow the machine; how fast it does is measured in the bench
(tests/bench/test_bench_signals.py)."""

from __future__ import annotations

import os
import select
import signal
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from agent.events import RunFinished
from agent.trace import read_trace
from tests.chatserver import ChatServer, Hang, chunk
from tests.test_cli_signals import OWN_ENDING

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


class Tui:
    """`docsagent tui -q hello` against `server`, on a pseudo-terminal, its traces in `folder`;
    `program` starts docsagent (by default its signal guard held back: the TUI must end by
    itself)."""

    def __init__(
        self, server: ChatServer, folder: Path, program: Sequence[str] = OWN_ENDING
    ) -> None:
        self.traces = folder / "traces"
        args = [*program, "tui", "-q", "hello", "--base-url", server.base_url, "--model", "m"]
        env = {**os.environ, "LLM_API_KEY": "sk-test", "DOCSAGENT_TRACE_DIR": str(self.traces)}
        env["XDG_STATE_HOME"] = str(folder / "state")  # the question history goes there
        with warnings.catch_warnings():  # Python 3.12+ warns about fork() beside threads;
            warnings.simplefilter("ignore", DeprecationWarning)  # the child only execs
            self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the TUI, with the pseudo-terminal as its terminal
            os.execve(args[0], args, {**env, "TERM": "xterm-256color"})
        self.exited: list[int] = []

    def has_exited(self) -> bool:
        if not self.exited:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.exited.append(os.waitstatus_to_exitcode(status))
        return bool(self.exited)

    def end(self) -> None:
        """Kill the TUI if it is still running; close the terminal."""
        if not self.exited:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        if self.fd >= 0:
            os.close(self.fd)

    def last_event(self) -> object:
        """The last event of the one trace written; it must be complete."""
        (path,) = self.traces.iterdir()
        trace = read_trace(path)
        assert trace.complete
        return trace.events[-1]


@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "terminal closed"])
def test_a_stop_signal_closes_the_trace_of_a_running_question(
    chat_server: ChatServer, tmp_path: Path, how: str
) -> None:
    chat_server.push(Hang([chunk({"role": "assistant", "content": "Thinking"})], seconds=10))
    tui = Tui(chat_server, tmp_path)
    try:
        read_until(tui.fd, lambda: bool(chat_server.requests))  # the question is being answered
        if how == "terminal closed":
            os.close(tui.fd)  # the kernel hangs up on the TUI
            tui.fd = -1
        else:
            os.kill(tui.pid, getattr(signal, how))
        read_until(tui.fd, tui.has_exited)
    finally:
        tui.end()
    assert tui.exited == [143 if how == "SIGTERM" else 129]
    final = tui.last_event()
    assert isinstance(final, RunFinished) and final.stop_reason == "cancelled"


def test_ctrl_q_while_the_endpoint_hangs_closes_the_trace(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.push(Hang(answer=False, seconds=LIMIT_S))  # accepted, never answered
    tui = Tui(chat_server, tmp_path)
    try:
        read_until(tui.fd, lambda: bool(chat_server.requests))  # the request hangs there
        os.write(tui.fd, b"\x11")  # ctrl+q
        read_until(tui.fd, tui.has_exited)
    finally:
        tui.end()
    assert tui.exited == [0]
    final = tui.last_event()
    assert isinstance(final, RunFinished) and final.stop_reason == "cancelled"
