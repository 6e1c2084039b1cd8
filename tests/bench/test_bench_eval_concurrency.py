"""eval against a slow endpoint: `make bench`. Throughput as a share of the ideal, one run.

The endpoint answers every request after `DELAY` seconds; each question takes two
requests (a read_doc call, then the answer), so N questions at once can finish at most
N / (2 x DELAY) a second. At `--concurrency 16` eval should reach 0.8 of that: the
questions share one HTTP client, and little else costs time beside the endpoint's. The
endpoint runs in a process of its own, as a real one does: in eval's process its threads
would take turns with eval's for the interpreter's lock. The CPU each side spent a
question is printed beside the rates: eval's is what limits it at 16 (two cores, one
interpreter lock); the endpoint's shows that it is not the bottleneck.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from agent.config import Config
from tests.chatserver import MODEL
from tui.commands.evaluate import evaluate

DELAY = 0.2
STEPS = 2
TARGET = 0.8
ROOT = Path(__file__).resolve().parents[2]
SERVER = f"""
import json, sys, time
from tests.chatserver import Call, ChatServer, Reply

def respond(body):  # a read_doc call first, then the answer once the doc was read
    if body["messages"][-1]["role"] == "tool":
        return Reply(content="Run `docsagent replay FILE` (replay.md:3).")
    return Reply(calls=[Call("read_doc", json.dumps({{"path": "replay.md"}}))])

server = ChatServer(delay={DELAY}, responder=respond).start()
print(server.base_url, flush=True)
sys.stdin.readline()  # eval starts
began = time.process_time()
sys.stdin.read()  # until eval's process closes it
cpu_ms = round((time.process_time() - began) * 1000)
print(len(server.requests), server.connections, cpu_ms, flush=True)
server.stop()
"""


@contextmanager
def endpoint() -> Iterator[tuple[str, IO[str], list[int]]]:
    """A slow endpoint in a process of its own: its base URL, the pipe that tells it eval
    starts (a line), then [requests, connections, its CPU milliseconds since the start]."""
    with subprocess.Popen(
        [sys.executable, "-c", SERVER],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        counts: list[int] = []
        try:
            yield proc.stdout.readline().strip(), proc.stdin, counts
            proc.stdin.close()
            counts.extend(int(n) for n in proc.stdout.readline().split())
        finally:
            if not counts:
                proc.kill()


def throughput(tmp_path: Path, concurrency: int, questions: int) -> tuple[float, int, str]:
    """Questions a second that eval finished at `concurrency`, the connections it used, and
    the CPU eval and the endpoint spent a question."""
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "replay.md").write_text("# Replay\n\nRun `docsagent replay FILE` to watch it again.\n")
    asked = tmp_path / f"questions-{concurrency}.jsonl"
    asked.write_text(
        "".join(
            json.dumps({"id": f"q{n}", "question": "How do I replay a saved run?"}) + "\n"
            for n in range(questions)
        )
    )
    with endpoint() as (base_url, starts, counts):
        config = Config(
            docs=docs,
            model=MODEL,
            base_url=base_url,
            api_key="sk-bench",
            trace_dir=tmp_path / "traces",
            cache_dir=tmp_path / "cache",
        )
        out, err = io.StringIO(), io.StringIO()
        starts.write("\n")
        starts.flush()
        started, cpu = time.perf_counter(), time.process_time()
        code = evaluate(config, asked, concurrency=concurrency, as_json=True, out=out, err=err)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        assert code == 0, err.getvalue()
    requests, connections, server_ms = counts
    assert requests == STEPS * questions
    each = f"eval {cpu * 1000 / questions:.1f} ms, endpoint {server_ms / questions:.1f} ms"
    return questions / seconds, connections, f"CPU a question: {each}"


def test_eval_scales_with_concurrency_until_the_endpoint_is_the_bottleneck(
    tmp_path: Path,
) -> None:
    import openai  # noqa: F401  # imported before the clock starts, as by any earlier question

    report, shares = [], {}
    for concurrency, questions in [(1, 5), (4, 20), (16, 160)]:
        rate, connections, cpu = throughput(tmp_path, concurrency, questions)
        ideal = concurrency / (STEPS * DELAY)
        shares[concurrency] = rate / ideal
        report.append(
            f"--concurrency {concurrency}: {rate:.1f} questions/s of an ideal {ideal:.1f} "
            f"({rate / ideal:.2f}), {connections} connections; {cpu}"
        )
    print(f"\neval against a {DELAY * 1000:.0f} ms endpoint:\n  " + "\n  ".join(report))
    print(f"target: at least {TARGET} of the ideal at --concurrency 16")
    assert shares[16] >= TARGET, f"{shares[16]:.2f} of the ideal at --concurrency 16"
