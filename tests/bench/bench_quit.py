"""ctrl+q to process exit, the real TUI in a pseudo-terminal (`make bench`; a plain script).

Each state is set up, then ctrl+q is typed and the time until the process has exited is
measured: idle at the start screen, mid-stream, against an endpoint that never answers,
right after a 200 KB answer, and mid-replay of that answer's trace. Target: 0.5 s each,
and every run's trace ends with its final event. Prints each time with its target and
fails when one is missed.
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent import RunFinished, TraceError, read_trace  # noqa: E402
from tests.chatserver import ChatServer, Hang, Reply, chunk  # noqa: E402

TARGET_S = 0.5
LIMIT_S = 300.0  # only guards a hang
DOCSAGENT = str(Path(sys.executable).parent / "docsagent")


class Tui:
    """docsagent in a pseudo-terminal: its output is read and kept as it comes."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(DOCSAGENT, [DOCSAGENT, *args], {**env, "TERM": "xterm-256color"})
        self.out = b""
        self.code: int | None = None

    def pump(self, done: Callable[[], bool]) -> None:
        deadline = time.monotonic() + LIMIT_S
        while not done():
            assert time.monotonic() < deadline, "the TUI never got there"
            ready, _, _ = select.select([self.fd], [], [], 0.01)
            if ready:
                with contextlib.suppress(OSError):  # the TUI has let go of the terminal
                    self.out += os.read(self.fd, 1 << 16)

    def exited(self) -> bool:
        if self.code is None:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.code = os.waitstatus_to_exitcode(status)
        return self.code is not None

    def quit_seconds(self) -> float:
        began = time.perf_counter()
        os.write(self.fd, b"\x11")  # ctrl+q
        self.pump(self.exited)
        took = time.perf_counter() - began
        os.close(self.fd)
        return took


def finished(path: Path) -> bool:
    try:
        trace = read_trace(path)
    except TraceError:
        return False
    return trace.complete and isinstance(trace.events[-1], RunFinished)


def main() -> int:
    failures = []
    server = ChatServer().start()
    answer = ("The answer goes on. " * 10_000)[:199_990] + " LASTWORDS"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            env = {**os.environ, "LLM_API_KEY": "sk-bench", "XDG_STATE_HOME": str(folder)}
            endpoint = ["--base-url", server.base_url, "--model", "m"]

            def run(name: str, responses: list[object], question: bool, ready: bytes) -> Path:
                traces = folder / name
                env["DOCSAGENT_TRACE_DIR"] = str(traces)
                server.push(*responses)  # type: ignore[arg-type]
                args = ["tui", *endpoint, *(["-q", "hello"] if question else [])]
                tui = Tui(args, env)
                tui.pump(lambda: ready in tui.out)
                if name == "after a 200 KB answer":
                    tui.pump(lambda: any(finished(p) for p in traces.glob("*.jsonl")))
                took = tui.quit_seconds()
                closed = all(finished(p) for p in traces.glob("*.jsonl"))
                report(name, took, closed)
                return traces

            def report(name: str, took: float, closed: bool) -> None:
                ok = took <= TARGET_S and closed
                note = "" if closed else ", a trace NOT closed"
                print(
                    f"ctrl+q to exit, {name}: {took:.3f} s (target <= {TARGET_S} s){note} "
                    f"{'ok' if ok else 'MISSED'}"
                )
                if not ok:
                    failures.append(name)

            run("idle", [], False, b"question about the docs")
            thinking = chunk({"role": "assistant", "content": "Thinking about it"})
            run("mid-stream", [Hang([thinking], seconds=30)], True, b"Thinking about it")
            run("endpoint hung", [Hang(answer=False, seconds=30)], True, b"thinking")
            traces = run(
                "after a 200 KB answer", [Reply(content=answer, text_piece=5)], True, b"hello"
            )
            (trace,) = traces.glob("*.jsonl")
            tui = Tui(["replay", str(trace)], env)
            tui.pump(lambda: b"event" in tui.out)
            report("mid-replay", tui.quit_seconds(), True)
    finally:
        server.stop()
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
