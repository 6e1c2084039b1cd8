"""`docsagent mcp` benchmarks and the outside check: `make bench`.

- a `search_docs` call over MCP costs at most 1.5 × (the same call in process + the
  protocol floor: the SDK client and a trivial SDK server with one no-op tool, measured
  in the same run), medians of warm calls;
- the official MCP Inspector (npm, CLI mode) lists the tools and calls `search_docs` and
  a hostile `read_doc` against `docsagent mcp`, and `search_docs` in one of two named doc
  sets (skipped, with the reason, without npx).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from agent import ServedTools, docs_registry, open_docs
from agent.config import Config

mcp = pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install '.[mcp]')")
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MANUAL = ROOT / "data" / "manual"
SERVE = "import tui.cli; tui.cli.main()"
QUERIES = [
    "How do I replay a trace?",
    "where are traces saved",
    "offline model",
    "set an API key",
    "timeout for the endpoint",
    "export a run as HTML",
    "keyboard shortcuts",
    "evaluate a question set",
]
ROUNDS = 5  # each query this many times, after one warm-up round
TARGET = 1.5


def in_process(traces: Path) -> float:
    """The median seconds of a warm `search_docs` call in process (traced as the server does)."""
    folder = open_docs(Config(docs=MANUAL, cache_dir=None))
    served = ServedTools(docs_registry(), [folder], trace_dir=traces, docs=str(MANUAL))
    times = []
    for round_ in range(ROUNDS + 1):
        for query in QUERIES:
            began = time.perf_counter()
            assert not served.call("search_docs", {"query": query}).error
            if round_:
                times.append(time.perf_counter() - began)
    served.close("done")
    return statistics.median(times)


async def over_stdio(
    args: list[str], call: Callable[[ClientSession, str], Awaitable[Any]]
) -> float:
    """The median seconds of a warm call through the SDK client to a server subprocess."""
    params = StdioServerParameters(
        command=sys.executable,
        args=args,
        env={"DOCSAGENT_CACHE_DIR": os.environ["DOCSAGENT_CACHE_DIR"]},
        cwd=ROOT,
    )
    times = []
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for round_ in range(ROUNDS + 1):
                for query in QUERIES:
                    began = time.perf_counter()
                    result = await call(session, query)
                    if round_:
                        times.append(time.perf_counter() - began)
                    assert not result.is_error
    return statistics.median(times)


@pytest.mark.asyncio
async def test_a_search_over_mcp_costs_the_call_plus_the_protocol(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    local = in_process(traces)
    floor = await over_stdio(
        [str(Path(__file__).with_name("noop_mcp_server.py"))],
        lambda session, query: session.call_tool("noop", {}),
    )
    served = await over_stdio(
        ["-c", SERVE, "mcp", "--docs", str(MANUAL), "--trace-dir", str(traces)],
        lambda session, query: session.call_tool("search_docs", {"query": query}),
    )
    ratio = served / (local + floor)
    print(
        f"\nsearch_docs over MCP: {served * 1000:.2f} ms a call; in process "
        f"{local * 1000:.2f} ms + protocol floor {floor * 1000:.2f} ms = "
        f"{(local + floor) * 1000:.2f} ms; ratio {ratio:.2f} (target <= {TARGET})"
    )
    assert ratio <= TARGET


def inspector(*args: str) -> dict[str, Any]:
    """What the MCP Inspector's CLI prints for one method against `docsagent mcp`, as JSON."""
    command = [
        "npx", "-y", "@modelcontextprotocol/inspector", "--cli",
        str(Path(sys.executable).with_name("docsagent")), "mcp", "--docs", str(MANUAL),
        *args,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    data: dict[str, Any] = json.loads(done.stdout)
    return data


@pytest.mark.skipif(shutil.which("npx") is None, reason="npx is missing: install node and npm")
@pytest.mark.skipif(
    not Path(sys.executable).with_name("docsagent").exists(),
    reason="the docsagent command is not installed beside this Python",
)
def test_the_mcp_inspector_lists_the_tools_and_calls_search_docs(tmp_path: Path) -> None:
    trace_dir = ["--trace-dir", str(tmp_path / "traces")]
    listed = inspector(*trace_dir, "--method", "tools/list")
    assert [t["name"] for t in listed["tools"]] == docs_registry().names
    found = inspector(
        *trace_dir, "--method", "tools/call", "--tool-name", "search_docs",
        "--tool-arg", "query=How do I replay a trace?",
    )  # fmt: skip
    assert not found["isError"] and "traces-and-replay.md:" in found["content"][0]["text"]
    refused = inspector(
        *trace_dir, "--method", "tools/call", "--tool-name", "read_doc",
        "--tool-arg", "path=../../etc/passwd",
    )  # fmt: skip
    assert refused["isError"] and "outside the docs folder" in refused["content"][0]["text"]
    two_sets = [*trace_dir, "--docs", f"old@0.0.1={MANUAL}"]  # beside the manual's own set
    found = inspector(
        *two_sets, "--method", "tools/call", "--tool-name", "search_docs",
        "--tool-arg", "query=How do I replay a trace?", "--tool-arg", "set=old",
    )  # fmt: skip
    assert not found["isError"] and found["content"][0]["text"].startswith("[set old 0.0.1] ")
    print("\nMCP Inspector (npm, CLI mode): tools/list and tools/call as expected, two sets too")
