"""An endpoint that sends one `data:` line and never ends it (`make bench`; a plain script).

`docsagent ask` runs against it as a process of its own while its resident memory is read
every 0.05 s. Targets: the memory stays under 200 MB for the 60 s the endpoint sends (the
run is over long before: the stream is cut at its 8 MiB bound), and the run ends with
exit code 1 and one line naming the bound as its last line on stderr. Before the bound,
the process grew about 75 MB a second and ended out of memory.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.chatserver import MODEL, ChatServer, Endless  # noqa: E402

TARGET_MB = 200.0
WATCH_S = 60.0
DOCSAGENT = str(Path(sys.executable).parent / "docsagent")


def rss_mb(pid: int) -> float:
    """The process's resident memory in MB (0 once it has gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        docs = Path(folder) / "docs"
        docs.mkdir()
        (docs / "a.md").write_text("# A\n\nText.\n")
        server = ChatServer().start()
        server.push(Endless(piece="x" * 65536, seconds=WATCH_S, line=True))
        env = {
            **os.environ,
            "DOCSAGENT_TRACE_DIR": str(Path(folder) / "traces"),
            "LLM_API_KEY": "sk-bench",
        }
        args = ["ask", "What is A?", "--docs", str(docs), "--model", MODEL]
        started = time.monotonic()
        child = subprocess.Popen(
            [DOCSAGENT, *args, "--base-url", server.base_url],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        peak = 0.0
        while child.poll() is None and time.monotonic() - started < WATCH_S:
            peak = max(peak, rss_mb(child.pid))
            time.sleep(0.05)
        ended = child.poll() is not None
        if not ended:
            child.kill()
        _, err = child.communicate()
        took = time.monotonic() - started
        server.stop()
    last = err.strip().splitlines()[-1] if err.strip() else ""
    print(
        f"endless line: peak RSS {peak:.0f} MB (target < {TARGET_MB:.0f} MB over {WATCH_S:.0f} s)"
    )
    print(f"endless line: ended after {took:.1f} s with exit {child.returncode}: {last}")
    ok = peak < TARGET_MB and ended and child.returncode == 1 and "8 MiB" in last
    if not ok:
        print("endless line: MISSED the target")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
