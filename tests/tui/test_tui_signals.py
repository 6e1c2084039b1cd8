"""The TUI as a real process ends on SIGTERM and SIGHUP wherever it is: 128 + N, by itself.

Started with state files that would block (a FIFO, a device), while it indexes a big
folder, and while it replays a trace with a long answer. Its signal guard is held back
(`OWN_ENDING`), so a TUI that did not end by itself is not ended for it; the bound only
guards a hang. How fast it ends is measured in tests/bench/test_bench_signals.py.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.test_cli_signals import CODES, OWN_ENDING, big_folder, long_answer_script, small_docs
from tests.tui.test_tui_process import LIMIT_S
from tui.cli import app

pty = pytest.importorskip("pty")


def wait_for(done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + LIMIT_S
    while not done():
        assert time.monotonic() < deadline, "the TUI never got there"


def drawn(output: bytes) -> bool:
    """The app has taken the screen (so docsagent's signal handlers are in place)."""
    return b"\x1b[?1049h" in output


def run_tui(
    args: list[str],
    env: dict[str, str],
    ready: Callable[[bytes], bool],
    name: str,
    program: Sequence[str] = OWN_ENDING,
) -> int:
    """Start `docsagent ARGS` on a pseudo-terminal, wait for `ready(output so far)`, signal;
    the exit code. `program` starts docsagent (by default its guard held back: it must end
    by itself)."""
    argv = [*program, *args]
    with warnings.catch_warnings():  # Python 3.12+ warns about fork() beside threads;
        warnings.simplefilter("ignore", DeprecationWarning)  # the child only execs
        pid, fd = pty.fork()
    if pid == 0:  # the child: become the TUI, with the pseudo-terminal as its terminal
        os.execve(argv[0], argv, {**os.environ, **env, "TERM": "xterm-256color"})
    exited: list[int] = []

    def has_exited() -> bool:
        if not exited:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                exited.append(os.waitstatus_to_exitcode(status))
        return bool(exited)

    output = bytearray()

    def collect() -> bool:
        if select.select([fd], [], [], 0.05)[0]:
            with contextlib.suppress(OSError):
                output.extend(os.read(fd, 65536))
        return True

    def started() -> bool:
        return collect() and (ready(bytes(output)) or has_exited())

    try:
        wait_for(started)
        assert not exited, f"the TUI ended before it was signalled: {exited}"
        os.kill(pid, getattr(signal, name))
        wait_for(lambda: collect() and has_exited())
    finally:
        if not exited:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    with contextlib.suppress(OSError):  # what the TUI wrote last, before it exited
        while select.select([fd], [], [], 0)[0] and (data := os.read(fd, 65536)):
            output.extend(data)
    if drawn(bytes(output)):  # it took the screen: it gave it back, whatever ended it
        assert output.rfind(b"\x1b[?1049l") > output.rfind(b"\x1b[?1049h")
    return exited[0]


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_the_tui_with_state_files_that_would_block_ends_on_a_signal(
    tmp_path: Path, cli_env: Path, name: str, kind: str
) -> None:
    state, config = tmp_path / "state", tmp_path / "config"
    (state / "docsagent").mkdir(parents=True)
    (config / "docsagent").mkdir(parents=True)
    for path in (state / "docsagent" / "history", config / "docsagent" / "settings.json"):
        if kind == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to(kind)
    env = {"XDG_STATE_HOME": str(state), "XDG_CONFIG_HOME": str(config)}
    docs = small_docs(tmp_path)
    code = run_tui(["--docs", str(docs), "--model", "offline"], env, drawn, name)
    assert code == CODES[name]


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_the_tui_ends_on_a_signal_while_indexing(
    tmp_path: Path, cache_dir: Path, name: str
) -> None:
    docs = big_folder(tmp_path / "big")
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "c")}

    def ready(output: bytes) -> bool:
        return cache_dir.is_dir() and any(cache_dir.iterdir())

    code = run_tui(["--docs", str(docs), "--model", "offline"], env, ready, name)
    assert code == CODES[name]


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_replay_ends_on_a_signal_while_showing_a_long_answer(
    tmp_path: Path, cli_env: Path, name: str
) -> None:
    trace = tmp_path / "long.jsonl"
    docs, model = str(small_docs(tmp_path)), long_answer_script(tmp_path, 2_000_000)
    result = CliRunner().invoke(
        app, ["ask", "q", "--docs", docs, "--model", model, "--trace", str(trace)]
    )
    assert result.exit_code == 0, result.stderr
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    code = run_tui(["replay", "--instant", str(trace)], env, drawn, name)
    assert code == CODES[name]
