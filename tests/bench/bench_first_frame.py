"""Process start to the TUI's first frame, in a pseudo-terminal (`make bench`; a plain script).

`docsagent` (offline model, the bundled manual, fresh state and config folders, its search
index already built by one earlier run) against a bare Textual app with a header, an input
and a footer (`minimal_textual_app.py`), started the same way. The first frame is the
terminal switched to the alternate screen and the question box's placeholder drawn. Both
sides run once first, as a user's first run does, so their compiled modules are cached. Five
runs each, taking turns; the medians' ratio is printed with its target (1.5x) and the
script fails when it is missed.
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

TARGET = 1.5
RUNS = 5
LIMIT_S = 120.0  # only guards a hang
QUIT_S = 10.0
HERE = Path(__file__).resolve().parent
DOCSAGENT = str(Path(sys.executable).parent / "docsagent")
MINIMAL = [sys.executable, str(HERE / "minimal_textual_app.py")]
ALT_SCREEN = b"\x1b[?1049h"
DRAWN = b"Ask a question about the docs"


def first_frame_seconds(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from the fork to the first frame of `argv`, which is then quit."""
    began = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pid, fd = pty.fork()
    if pid == 0:
        os.execve(argv[0], argv, {**env, "TERM": "xterm-256color"})
    out = b""
    deadline = began + LIMIT_S
    while not (ALT_SCREEN in out and DRAWN in out[out.find(ALT_SCREEN) :]):
        assert time.perf_counter() < deadline, f"no first frame from {argv}"
        ready, _, _ = select.select([fd], [], [], 0.01)
        if ready:
            with contextlib.suppress(OSError):
                out += os.read(fd, 1 << 16)
    took = time.perf_counter() - began
    _quit(pid, fd)
    return took


def _quit(pid: int, fd: int) -> None:
    """ctrl+q, then wait for the exit (killing it only if it hangs), reading its output."""
    with contextlib.suppress(OSError):
        os.write(fd, b"\x11")
    deadline = time.perf_counter() + QUIT_S
    while True:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.perf_counter() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            break
        ready, _, _ = select.select([fd], [], [], 0.01)
        if ready:
            with contextlib.suppress(OSError):
                os.read(fd, 1 << 16)
    os.close(fd)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="docsagent-first-frame-") as tmp:
        folder = Path(tmp)
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("LLM_API_KEY", "OPENAI_API_KEY", "OPENAI_MODEL", "DOCSAGENT_DOCS")
            # A user's first run caches the compiled modules; both sides start from that.
            and key != "PYTHONDONTWRITEBYTECODE"
        }
        env.update(
            XDG_STATE_HOME=str(folder / "state"),
            XDG_CONFIG_HOME=str(folder / "config"),
            DOCSAGENT_CACHE_DIR=str(folder / "cache"),
        )
        # Builds the bundled manual's index, so the runs below find it warm.
        subprocess.run(
            [DOCSAGENT, "ask", "how do I replay a trace?"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        first_frame_seconds([DOCSAGENT], env)  # and compiles what each side imports
        first_frame_seconds(MINIMAL, env)
        ours: list[float] = []
        floor: list[float] = []
        for _ in range(RUNS):
            ours.append(first_frame_seconds([DOCSAGENT], env))
            floor.append(first_frame_seconds(MINIMAL, env))
    mine, bare = statistics.median(ours), statistics.median(floor)
    ratio = mine / bare
    ok = ratio <= TARGET
    print(
        f"TUI first frame: docsagent {mine:.3f} s, minimal Textual app {bare:.3f} s "
        f"(medians of {RUNS}): {ratio:.2f}x (target <= {TARGET}x) {'ok' if ok else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
