"""`docsagent follow` started before any session keeps up (`make bench`).

`docsagent follow` runs on a pseudo-terminal over an empty trace folder; then a served
session starts (in this process, as `docsagent mcp` runs it) and makes a call, and a
second session does after the first ends. Measured: the seconds from each call's
return to its tool's name on the follower's screen. Target: each within 1 s, the second
session without restarting follow. Exits 1 when it misses.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent import ServedTools, docs_registry, open_docs  # noqa: E402
from agent.config import Config  # noqa: E402

TARGET_S = 1.0
LIMIT_S = 60.0  # only guards a hang


class Screen:
    """What the follower has drawn so far, read from its pseudo-terminal."""

    def __init__(self, fd: int) -> None:
        self.fd, self.seen = fd, b""

    def wait_for(self, text: str) -> float:
        """Read on until `text` is on screen; the seconds it took."""
        began = time.perf_counter()
        needle = text.encode()
        start = len(self.seen)
        while needle not in self.seen[max(start - len(needle), 0) :]:
            assert time.perf_counter() - began < LIMIT_S, f"{text!r} never showed"
            ready, _, _ = select.select([self.fd], [], [], 0.01)
            if ready:
                self.seen += os.read(self.fd, 65536)
        return time.perf_counter() - began


def main() -> int:
    import pty

    with tempfile.TemporaryDirectory() as scratch:
        traces = Path(scratch) / "traces"
        traces.mkdir()
        script = str(Path(sys.executable).with_name("docsagent"))
        env = {**os.environ, "DOCSAGENT_TRACE_DIR": str(traces), "TERM": "xterm-256color"}
        env["XDG_CONFIG_HOME"] = env["XDG_STATE_HOME"] = scratch
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            pid, fd = pty.fork()
        if pid == 0:
            os.execve(script, [script, "follow"], env)
        try:
            screen = Screen(fd)
            screen.wait_for("waiting for")
            docs = open_docs(Config(docs=ROOT / "data" / "manual", cache_dir=None))
            first = ServedTools(docs_registry(), [docs], trace_dir=traces, docs="manual")
            first.call("search_docs", {"query": "replay a trace"})
            one = screen.wait_for("search_docs")
            first.close("the MCP client closed the session", stop_reason="disconnected")
            second = ServedTools(docs_registry(), [docs], trace_dir=traces, docs="manual")
            second.call("list_docs", {})  # a name the first session's cards do not hold
            two = screen.wait_for("list_docs")
            second.close("done")
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(fd)
    print(
        f"docsagent follow: the first session's call on screen {one:.2f} s after it, the "
        f"second session's {two:.2f} s, no restart (target <= {TARGET_S} s each)"
    )
    return 0 if max(one, two) <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
