"""SIGTERM and SIGHUP end every command wherever it is blocked, with 128 + N and its trace closed.

Each test starts a real `docsagent` process, waits (on state) until it is in the place
named, sends the signal and waits for the process to end. The bound below only guards a
hang; how fast it ends (under a second) is measured in tests/bench/test_bench_signals.py.

The process runs with the signal guard held back (`OWN_ENDING`): the guard ends a process
that has not ended by itself 0.7 s after the signal, and on a loaded machine it would end
one that was about to, without its last line. Here each command must end by itself, at
whatever speed the machine allows; the guard's own ending is tested on its own (the last
test), its time in the bench.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.events import RunFinished
from agent.trace import read_trace
from tests.chatserver import MODEL, ChatServer, Hang
from tui.cli import app

LIMIT_S = 30.0  # only guards a hang: every wait below ends on a state change
DOCSAGENT = str(Path(sys.executable).parent / "docsagent")
OWN_ENDING = [
    sys.executable,
    "-c",
    "import sys; from tui.commands import signals; import tui.cli; sys.argv[0] = 'docsagent'; "
    f"signals.install(grace_s={10 * LIMIT_S}); tui.cli.main()",
]
"""`docsagent`, its signal guard waiting longer than any test: each command ends by itself."""
CODES = {"SIGTERM": 143, "SIGHUP": 129}
LINES = {"SIGTERM": "terminated (SIGTERM)", "SIGHUP": "hung up (SIGHUP)"}

pytestmark = pytest.mark.usefixtures("cli_env")  # without the user's settings


def launch(
    *args: str, env: dict[str, str] | None = None, program: Sequence[str] = OWN_ENDING
) -> subprocess.Popen[bytes]:
    """`docsagent ARGS` with stdout and stderr piped (and not read until it ends); `program`
    is how docsagent is started (`[DOCSAGENT]`: the installed script, its guard as shipped)."""
    # The child inherits an ignored SIGINT (a run started in the background); restore it.
    old_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(
            [*program, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
    finally:
        signal.signal(signal.SIGINT, old_handler)


def wait_until(done: Callable[[], bool], proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + LIMIT_S
    while not done():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"never got there (exit {proc.returncode}): {err[-2000:]!r}")
        time.sleep(0.02)


def stop(proc: subprocess.Popen[bytes], name: str) -> str:
    """Send the signal, wait for the process to end; its exit code must be 128 + N."""
    proc.send_signal(getattr(signal, name))
    try:
        proc.wait(timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"still running {LIMIT_S} s after {name}")
    err = proc.communicate()[1].decode()
    assert proc.returncode == CODES[name], err[-2000:]
    assert "Traceback" not in err
    return err


def ended(path: Path) -> RunFinished:
    trace = read_trace(path)
    assert trace.complete, path
    final = trace.events[-1]
    assert isinstance(final, RunFinished)
    return final


def big_folder(root: Path, files: int = 1500) -> Path:
    """Enough pages that indexing them takes seconds."""
    root.mkdir()
    section = "## Section {j}\n\nword{i} text{j} about things and stuff number {n}.\n\n"
    for i in range(files):
        body = "".join(section.format(i=i, j=j, n=i * j) for j in range(40))
        (root / f"page{i:05d}.md").write_text(f"# Page {i}\n\n{body}")
    return root


def long_answer_script(tmp_path: Path, size: int = 4_000_000) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps([{"content": "word " * (size // 5)}]))
    return f"script:{path}"


def small_docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nSome text.\n")
    return root


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_ask_ends_while_indexing(tmp_path: Path, cache_dir: Path, name: str) -> None:
    docs = big_folder(tmp_path / "big")
    proc = launch("ask", "what is page 7?", "--docs", str(docs))
    wait_until(lambda: cache_dir.is_dir() and any(cache_dir.iterdir()), proc)
    err = stop(proc, name)
    assert err.splitlines()[-1] == f"docsagent: {LINES[name]} while indexing the docs"


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_ask_ends_while_writing_a_long_answer(tmp_path: Path, cli_env: Path, name: str) -> None:
    # Its answer goes to a pipe nobody reads: on the way out it can block flushing the rest,
    # and then the guard ends it (seen with SIGHUP). So the installed docsagent runs, its
    # guard as shipped; the trace was closed before the signal, at any speed.
    model = long_answer_script(tmp_path)
    args = ["ask", "q", "--docs", str(small_docs(tmp_path)), "--model", model]
    proc = launch(*args, program=[DOCSAGENT])

    def answered() -> bool:  # the run is over: ask is writing the answer nobody reads
        files = list(cli_env.glob("*.jsonl")) if cli_env.is_dir() else []
        last = files[0].read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1] if files else b""
        return b'"type": "run_finished"' in last[:100]

    wait_until(answered, proc)
    stop(proc, name)
    (trace,) = cli_env.glob("*.jsonl")
    assert ended(trace).stop_reason == "answered"


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_replay_print_ends_while_writing_a_long_answer(
    tmp_path: Path, cli_env: Path, name: str
) -> None:
    model = long_answer_script(tmp_path)
    trace = tmp_path / "long.jsonl"
    docs = str(small_docs(tmp_path))
    result = CliRunner().invoke(
        app, ["ask", "q", "--docs", docs, "--model", model, "--trace", str(trace)]
    )
    assert result.exit_code == 0, result.stderr
    proc = launch("replay", "--print", str(trace))
    out = proc.stdout
    assert out is not None
    wait_until(lambda: bool(select.select([out], [], [], 0)[0]), proc)
    stop(proc, name)


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_eval_ends_with_64_questions_in_flight_and_closes_their_traces(
    chat_server: ChatServer, tmp_path: Path, cli_env: Path, name: str
) -> None:
    chat_server.push(*[Hang(answer=False, seconds=20)] * 64)  # accepted, never answered
    questions = tmp_path / "questions.jsonl"
    lines = [json.dumps({"id": f"q{n}", "question": f"question {n}?"}) for n in range(64)]
    questions.write_text("\n".join(lines) + "\n")
    proc = launch(
        "eval", str(questions), "--docs", str(small_docs(tmp_path)), "--concurrency", "64",
        "--base-url", chat_server.base_url, "--model", MODEL,
        env={"LLM_API_KEY": "sk-test-signals"},
    )  # fmt: skip
    wait_until(lambda: len(chat_server.requests) >= 64, proc)
    err = stop(proc, name)
    (folder,) = cli_env.iterdir()
    assert err.splitlines()[-1] == f"docsagent: {LINES[name]} (traces so far: {folder})"
    traces = sorted(folder.iterdir())
    assert len(traces) == 64
    assert {ended(path).stop_reason for path in traces} == {"cancelled"}


def test_a_closer_that_blocks_does_not_hold_the_exit() -> None:
    # A session whose model call hangs on a dead endpoint can block its closer: the process
    # must still end, with 128 + N, once the closers have had their short while.
    code = (
        "import threading\n"
        "from tui.commands.signals import _Guard\n"
        "guard = _Guard(0.0)\n"
        "guard.closers.append(threading.Event().wait)\n"
        "guard.end(15)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], timeout=60, check=False)
    assert done.returncode == 143


def test_the_closers_the_guard_runs_know_the_signal() -> None:
    # The main thread never ran docsagent's handler (blocked, or `docsagent mcp`'s own
    # handler took the signal): the trace a closer ends still names the signal.
    code = (
        "from tui.commands import signals\n"
        "guard = signals._guard = signals._Guard(0.0)\n"
        "guard.closers.append(lambda: print(signals.received(), flush=True))\n"
        "guard.end(15)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert (done.returncode, done.stdout) == (143, b"15\n")
