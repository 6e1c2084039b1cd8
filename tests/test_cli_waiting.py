"""`ask`'s status line while it waits: on a terminal's stderr only, rewritten in place,
erased before any other output; nothing at all when stderr is piped."""

from __future__ import annotations

import io
import os
import re
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agent.events import (
    ModelReplied,
    ModelRequested,
    RunStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    Usage,
)
from tests.chatserver import ChatServer, Hang, chunk
from tests.hostile_support import finishes
from tui.commands.waiting import WaitingLine
from tui.terminal import Terminal

KEY = "sk-test-waiting-0123456789"
STATUS = re.compile(
    rb"\r(waiting for test-model \xc2\xb7 step 1 of 8 \xc2\xb7 [0-9.]+ s[^\r\x1b]*)\x1b\[K"
)


class Screen(io.StringIO):
    """A terminal's stderr."""

    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def started(model: str = "m") -> RunStarted:
    return RunStarted(question="q", model=model, max_steps=8)


def test_the_line_says_what_is_awaited_the_step_the_time_and_the_tokens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    err, clock = Screen(), Clock()
    line = WaitingLine(Terminal(io.StringIO(), err), clock=clock)
    line.observe(started("gpt-x"))
    line.tick()
    assert err.getvalue() == ""  # nothing awaited yet
    line.observe(ModelRequested(step=1, n_messages=2))
    clock.now += 1.25
    line.tick()
    assert err.getvalue() == "\rwaiting for gpt-x · step 1 of 8 · 1.2 s · 0 tokens so far\x1b[K"
    line.observe(TextDelta(step=1, text="x" * 40))
    assert line.text() == "gpt-x is replying · step 1 of 8 · 1.2 s · ≈10 tokens so far"
    total = Usage(prompt_tokens=1000, completion_tokens=234)
    line.observe(ModelReplied(step=1, usage=total, total=total, duration_s=1.0))
    assert line.text() is None
    line.observe(ToolCallStarted(step=1, tool_call_id="c", name="grep_docs", arguments="{}"))
    assert line.text() == "running grep_docs · step 1 of 8 · 1.2 s · 1,234 tokens so far"
    with line.writing():
        assert err.getvalue().endswith("\x1b[K\r\x1b[K")  # erased before the caller writes
    line.observe(
        ToolCallFinished(step=1, tool_call_id="c", name="grep_docs", output="", error=False,
                         duration_s=0.0)
    )  # fmt: skip
    before = err.getvalue()
    line.tick()
    with line.writing():
        pass
    assert err.getvalue() == before  # nothing shown, so nothing to erase


def test_a_long_stream_is_counted_not_copied() -> None:
    # 16 / 32 / 48 MB in 8 KB deltas kept `ask` busy 10 / 37 / 350 s after the run ended.
    line = WaitingLine(Terminal(io.StringIO(), Screen()), clock=Clock())
    line.observe(started("m"))
    line.observe(ModelRequested(step=1, n_messages=2))
    delta = TextDelta(step=1, text="x" * 8192)

    def stream() -> str | None:
        for _ in range(8192):  # 64 MB
            line.observe(delta)
        return line.text()

    assert finishes(stream) == "m is replying · step 1 of 8 · 0.0 s · ≈16,777,216 tokens so far"


def test_the_line_fits_the_terminal_and_shows_outside_text_visibly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "30")
    err = Screen()
    line = WaitingLine(Terminal(io.StringIO(), err), clock=Clock())
    line.observe(started("evil\x1b]0;T\x07"))
    line.observe(ModelRequested(step=1, n_messages=2))
    line.tick()
    assert err.getvalue() == "\rwaiting for evil␛]0;T␇ ·…\x1b[K"  # cut at a word's end
    monkeypatch.setenv("COLUMNS", "12")
    line.tick()
    assert err.getvalue().endswith("\x1b[K\rwaiting…\x1b[K")  # within 11 cells, whole words


def test_nothing_is_written_when_stderr_is_not_a_terminal() -> None:
    err = io.StringIO()
    with WaitingLine(Terminal(io.StringIO(), err), every=0.001) as line:
        line.observe(started())
        line.observe(ModelRequested(step=1, n_messages=2))
        line.tick()
        with line.writing():
            pass
    assert err.getvalue() == "" and not line.live


def spawn(
    server: ChatServer, docs: Path, tmp_path: Path, *, stderr: int, **extra: str
) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(LLM_API_KEY=KEY, DOCSAGENT_TRACE_DIR=str(tmp_path / "traces"), TERM="xterm")
    command = [sys.executable, "-c", "from tui.cli import main; main()", "ask", "how?"]
    # The child inherits an ignored SIGINT (a run started in the background); restore it.
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(
            [*command, "--docs", str(docs), "--base-url", server.base_url, "--model", "test-model",
             *[item for pair in extra.items() for item in pair]],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, env=env,
        )  # fmt: skip
    finally:
        signal.signal(signal.SIGINT, old)


def screen(data: bytes) -> list[str]:
    """What a terminal shows for `data`: a carriage return and erase-line rub out the line."""
    shown = []
    for line in data.decode().replace("\r\n", "\n").split("\n"):
        shown.append(re.split("\r\x1b\\[K|\r", line.replace("\x1b[K", ""))[-1])
    return shown


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_on_a_terminal_the_line_is_rewritten_while_waiting_then_erased(
    chat_server: ChatServer, docs: Path, tmp_path: Path
) -> None:
    import fcntl
    import pty
    import struct
    import termios

    main, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    chat_server.push(Hang(seconds=10, answer=False))  # a stalled endpoint: not a byte back
    process = spawn(chat_server, docs, tmp_path, stderr=follower, **{"--timeout": "30"})
    os.close(follower)
    data = b""
    while len({m.group(1) for m in STATUS.finditer(data)}) < 2:  # two different readings
        ready, _, _ = select.select([main], [], [], 10)
        assert ready, f"no status line within 10 s: {data!r}"
        data += os.read(main, 4096)
    process.send_signal(signal.SIGINT)
    while True:
        try:
            more = os.read(main, 4096)
        except OSError:  # the terminal closed: the command is done
            break
        if not more:
            break
        data += more
    os.close(main)
    assert process.wait(timeout=20) == 130
    assert process.stdout is not None
    with process.stdout:
        assert process.stdout.read() == b""
    assert all(len(m.group(1).decode()) < 80 for m in STATUS.finditer(data))
    assert b"\n" not in data[: data.index(b"\x1b[K")]  # rewritten in place, not appended
    lines = [line for line in screen(data) if line]
    assert not any("waiting for" in line for line in lines)  # erased before the summary
    assert lines[0].startswith("cancelled after 1 step · 0 tool calls")
    assert lines[-1] == "docsagent: interrupted"


def test_through_a_pipe_there_is_no_status_line(
    chat_server: ChatServer, docs: Path, tmp_path: Path
) -> None:
    chat_server.push(Hang([chunk({"role": "assistant", "content": "Hel"})], seconds=10))
    process = spawn(chat_server, docs, tmp_path, stderr=subprocess.PIPE, **{"--timeout": "0.6"})
    out, err = process.communicate(timeout=20)
    assert process.returncode == 1 and out == b""
    assert b"\r" not in err and b"\x1b" not in err and b"waiting" not in err
    assert err.decode().splitlines()[-1].endswith("stopped streaming for 0.6 s mid-reply")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_on_one_terminal_lines_fit_and_a_blank_line_sets_the_answer_apart(
    docs: Path, tmp_path: Path
) -> None:
    import fcntl
    import pty
    import struct
    import termios

    (docs / "replay.md").write_text(
        "# Replay\n\n" + "Run `docsagent replay FILE` to watch a saved run again, " * 4 + "\n"
    )
    main, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 60, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(DOCSAGENT_TRACE_DIR=str(tmp_path / "traces"), TERM="xterm")
    process = subprocess.Popen(
        [sys.executable, "-c", "from tui.cli import main; main()", "ask", "how do I replay?",
         "--docs", str(docs), "--model", "offline"],
        stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env=env,
    )  # fmt: skip
    os.close(follower)
    data = b""
    while True:
        try:
            more = os.read(main, 65536)
        except OSError:
            break
        if not more:
            break
        data += more
    os.close(main)
    assert process.wait(timeout=20) == 0
    lines = screen(re.sub(rb"\x1b\[[0-9;]*m", b"", data))
    assert all(len(line) <= 60 for line in lines if not line.startswith("trace: ")), lines
    (end,) = [i for i, line in enumerate(lines) if line.startswith("trace: ")]
    assert any(line.startswith("answered after 3 steps") for line in lines[end - 3 : end])
    assert lines[end + 1] == "" and lines[end + 2].startswith("According to replay.md")
