"""An endpoint known from an earlier run: `make bench`. Against a server 100 ms away
(every request, GET or POST, waits 100 ms), an `ask` reaches its first chat request within
one round trip of start-up once the endpoint is known (its facts in the cache folder).

Start-up is an `ask` given `--context` (no probe at all): the time from the command's
start to the server's receiving the chat request. A known endpoint's run must come within
100 ms of it; an unknown one (the probes asked at once) is printed beside it (asked one
after another, the three probes cost three round trips). Each time is the least of 5 runs,
the three kinds taken in turn.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.chatserver import ChatServer, Reply
from tui.cli import app

LATENCY_S = 0.1
RUNS = 5


def first_chat_after(server: ChatServer, docs: Path, cache: Path, *extra: str) -> float:
    """Seconds from the start of an `ask` to the server's receiving its chat request."""
    server.first_chat_at = None
    server.push(Reply(content="Replay it (a.md:1)."))
    args = ["ask", "How?", "--docs", str(docs), "--base-url", server.base_url, "--model", "m"]
    began = time.monotonic()
    result = CliRunner().invoke(app, [*args, *extra], env={"DOCSAGENT_CACHE_DIR": str(cache)})
    assert result.exit_code == 0, result.stderr
    assert server.first_chat_at is not None
    return server.first_chat_at - began


def test_a_known_endpoint_costs_no_round_trip_before_the_first_chat_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-bench-0123456789")
    monkeypatch.setenv("DOCSAGENT_TRACE_DIR", str(tmp_path / "traces"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Replay\n\nRun docsagent replay FILE.\n")
    server = ChatServer().start()
    server.latency = LATENCY_S
    server.props = {"default_generation_settings": {"n_ctx": 4096}}
    server.models = {"object": "list", "data": [{"id": "m"}]}
    try:
        cache = tmp_path / "cache"
        first_chat_after(server, docs, cache, "--context", "4096")  # warm: imports, index
        startup, unknown, known = [], [], []
        for _ in range(RUNS):  # interleaved: the machine's load drifts alike for all three
            startup.append(first_chat_after(server, docs, cache, "--context", "4096"))
            (cache / "endpoints.json").unlink(missing_ok=True)
            unknown.append(first_chat_after(server, docs, cache))
            known.append(first_chat_after(server, docs, cache))
    finally:
        server.stop()
    print(
        f"\nfirst chat request after start, server {LATENCY_S * 1000:.0f} ms away: "
        f"start-up (--context) {min(startup) * 1000:.0f} ms, endpoint unknown "
        f"{min(unknown) * 1000:.0f} ms, known {min(known) * 1000:.0f} ms "
        f"(target: known within {LATENCY_S * 1000:.0f} ms of start-up)"
    )
    assert min(known) - min(startup) <= LATENCY_S
