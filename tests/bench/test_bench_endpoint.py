"""Endpoint benchmarks: `make bench`. What a run costs on the wire, as ratios from one run.

- connections per run: a 3-step streamed run should use one connection, not one per step;
- request bytes: our first request against a bare loop's (the same messages, with
  minimal hand-written schemas for the same tools) should be at most 1.15x;
- client CPU per request: 240 messages against 4 should be at most 1.2x (the SDK's own
  `create` walked every message on each request: 4.9 ms at 4 messages, 113 ms at 240).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.config import Config, build_agent
from tests.chatserver import Call, ChatServer, Reply

QUESTION = "How do I replay a saved trace?"
BARE_TOOLS: dict[str, dict[str, Any]] = {
    "search_docs": {
        "description": "Search the docs, best sections first.",
        "parameters": {"query": "string", "limit": "integer"},
        "required": ["query"],
    },
    "list_docs": {"description": "List the docs.", "parameters": {}},
    "grep_docs": {
        "description": "Search the docs for a keyword.",
        "parameters": {"keyword": "string", "path": "string"},
        "required": ["keyword"],
    },
    "read_doc": {
        "description": "Read lines of a doc.",
        "parameters": {"path": "string", "start": "integer", "end": "integer"},
        "required": ["path"],
    },
}


def bare_schema(name: str) -> dict[str, Any]:
    """What a bare loop would hand-write: name, one short line, typed parameters."""
    spec = BARE_TOOLS[name]
    properties = {p: {"type": t} for p, t in spec["parameters"].items()}
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if spec.get("required"):
        parameters["required"] = spec["required"]
    return {
        "type": "function",
        "function": {"name": name, "description": spec["description"], "parameters": parameters},
    }


@pytest.fixture
def server() -> Iterator[ChatServer]:
    running = ChatServer().start()
    try:
        yield running
    finally:
        running.stop()


def run_three_steps(server: ChatServer, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "replay.md").write_text("# Replay\n\nRun `docsagent replay FILE` to watch it again.\n")
    server.push(
        Reply(calls=[Call("grep_docs", '{"keyword": "replay"}', id="a")]),
        Reply(calls=[Call("read_doc", '{"path": "replay.md"}', id="b")]),
        Reply(content="Run `docsagent replay FILE` (replay.md:3)."),
    )
    config = Config(docs=docs, model="test-model", base_url=server.base_url, api_key="sk-bench")
    agent = build_agent(config)
    events = list(agent.run(QUESTION))
    assert type(events[-1]).__name__ == "RunFinished" and events[-1].stop_reason == "answered"  # type: ignore[attr-defined]


def test_a_streamed_run_uses_one_connection(server: ChatServer, tmp_path: Path) -> None:
    run_three_steps(server, tmp_path)
    print(
        f"\nconnections: {server.connections} for {len(server.requests)} streamed requests "
        f"(ratio {server.connections / len(server.requests):.2f}; target 1 per run)"
    )
    assert server.connections == 1


def test_request_bytes_against_a_bare_loop(server: ChatServer, tmp_path: Path) -> None:
    import openai

    run_three_steps(server, tmp_path)
    ours = server.requests[0]
    names = [tool["function"]["name"] for tool in ours["tools"]]
    assert sorted(names) == sorted(BARE_TOOLS), "write a bare schema for every tool"
    client = openai.OpenAI(api_key="sk-bench", base_url=server.base_url, max_retries=0)
    server.push(Reply(content="ok"))
    bare_tools = [bare_schema(name) for name in names]
    stream = client.chat.completions.create(
        model=ours["model"],
        messages=ours["messages"],
        tools=bare_tools,  # type: ignore[arg-type]
        tool_choice="auto",  # what servers need to be told (llama-cpp-python)
        max_tokens=ours["max_tokens"],
        stream=True,
        stream_options={"include_usage": True},
    )
    for _ in stream:
        pass
    client.close()
    ours_bytes, bare_bytes = server.request_bytes[0], server.request_bytes[-1]
    schemas = len(json.dumps(ours["tools"], separators=(",", ":")))
    bare_schemas = len(json.dumps(bare_tools, separators=(",", ":")))
    prompt = len(ours["messages"][0]["content"].encode())
    ratio = ours_bytes / bare_bytes
    print(
        f"\nfirst request: {ours_bytes:,} bytes vs a bare loop's {bare_bytes:,}: ratio {ratio:.2f} "
        f"(target <= 1.15); schemas {schemas:,} vs {bare_schemas:,} bytes, "
        f"system prompt {prompt} bytes"
    )
    assert ratio <= 1.15


def conversation(n: int) -> list[Any]:
    """`n` messages: a question, then tool-calling steps with short results."""
    from agent.messages import Message, ToolCall, system, user

    messages: list[Message] = [system("Answer from the docs."), user(QUESTION)]
    step = 0
    while len(messages) < n:
        step += 1
        call = ToolCall(f"call_{step}", "read_doc", json.dumps({"path": f"doc{step}.md"}))
        messages.append(Message("assistant", None, (call,)))
        messages.append(Message("tool", f"doc{step}.md lines 1-3: " + "text " * 30, (), call.id))
    return messages[:n]


def request_cpu(server: ChatServer, sizes: tuple[int, ...], rounds: int = 60) -> list[float]:
    """The client's own CPU seconds for one request with each number of messages: the least
    of `rounds`, taken in turns so a shared machine's changing load falls on each alike."""
    import time

    from agent.models.openai.model import OpenAIModel
    from agent.tools.docs import docs_registry

    tools = docs_registry().schemas()
    models = [
        OpenAIModel("test-model", api_key="sk-bench", base_url=server.base_url, context=4096)
        for _ in sizes
    ]
    conversations = [conversation(n) for n in sizes]
    best = [float("inf")] * len(sizes)
    try:
        for round in range(rounds + 2):
            for index, (model, messages) in enumerate(zip(models, conversations, strict=True)):
                server.push(Reply(content="ok"))
                started = time.thread_time()  # this thread only: the server runs in others
                for _ in model.query(messages, tools):
                    pass
                if round >= 2:  # the first rounds connect and warm up
                    best[index] = min(best[index], time.thread_time() - started)
    finally:
        for model in models:
            model.close()
    return best


def test_request_cpu_does_not_grow_with_the_conversation(server: ChatServer) -> None:
    small, large = request_cpu(server, (4, 240))
    ratio = large / small
    print(
        f"\nclient CPU per request: {small * 1000:.2f} ms at 4 messages, "
        f"{large * 1000:.2f} ms at 240: ratio {ratio:.2f} (target <= 1.2)"
    )
    assert ratio <= 1.2
