"""Endpoint benchmarks: `make bench`. What a run costs on the wire, as ratios from one run.

- connections per run: a 3-step streamed run should use one connection, not one per step;
- request bytes: the whole 3-step run's requests against a bare loop's doing the same
  steps with its own minimal prompt and minimal hand-written schemas for the same tools
  (the tool results are the same text on both sides) should be at most 1.15x;
- client CPU per request: 240 messages against 4 should be at most 1.2x (the SDK's own
  `create` walked every message on each request: 4.9 ms at 4 messages, 113 ms at 240).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.config import Config, build_agent, default_docs
from agent.defaults import DEFAULT_MAX_REPLY_TOKENS
from agent.search import DocsIndex
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
from tests.chatserver import Call, ChatServer, Reply

QUESTION = "How do I replay a saved trace?"
BARE_PROMPT = "Answer from the docs, citing path:start-end."
"""A bare loop's own prompt: what a hand-written loop would start from."""
STEPS = [
    Reply(calls=[Call("search_docs", '{"query": "replay a saved trace"}', id="a")]),
    Reply(calls=[Call("read_doc", '{"path": "traces-and-replay.md", "end": 20}', id="b")]),
    Reply(content="Run `docsagent replay FILE` (traces-and-replay.md:9-13)."),
]
"""A run as a model makes one: a search, a read of what it found, the answer, on the
bundled manual (so the tool results are the size real ones are)."""
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
    server.push(*STEPS)
    config = Config(
        docs=default_docs(),
        model="test-model",
        base_url=server.base_url,
        api_key="sk-bench",
        cache_dir=tmp_path / "cache",
    )
    agent = build_agent(config)
    events = list(agent.run(QUESTION))
    assert type(events[-1]).__name__ == "RunFinished" and events[-1].stop_reason == "answered"  # type: ignore[attr-defined]


def run_bare_loop(server: ChatServer, tmp_path: Path, names: list[str]) -> None:
    """The same three steps as a hand-written loop: the SDK, a short prompt, bare schemas,
    and the same tools run for the same results."""
    import openai

    corpus = Corpus.open(default_docs())
    context = [DocsContext(corpus, DocsIndex(corpus, cache_dir=tmp_path / "cache"))]
    registry = docs_registry()
    client = openai.OpenAI(api_key="sk-bench", base_url=server.base_url, max_retries=0)
    server.push(*STEPS)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": BARE_PROMPT},
        {"role": "user", "content": QUESTION},
    ]
    for _ in STEPS:
        stream = client.chat.completions.create(  # type: ignore[call-overload]
            model="test-model",
            messages=messages,  # type: ignore[arg-type]
            tools=[bare_schema(name) for name in names],  # type: ignore[misc]
            tool_choice="auto",  # what servers need to be told (llama-cpp-python)
            max_tokens=DEFAULT_MAX_REPLY_TOKENS,  # a reply's cap, as docsagent sends it
            stream=True,
            stream_options={"include_usage": True},
        )
        text, calls = "", {}  # type: ignore[var-annotated]
        for chunk in stream:
            for choice in chunk.choices:
                text += choice.delta.content or ""
                for part in choice.delta.tool_calls or []:
                    call = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
                    call["id"] += part.id or ""
                    if part.function is not None:
                        call["name"] += part.function.name or ""
                        call["arguments"] += part.function.arguments or ""
        if not calls:
            break
        messages.append(
            {
                "role": "assistant",
                "content": text or None,
                "tool_calls": [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": c["arguments"]},
                    }
                    for c in calls.values()
                ],
            }
        )
        for c in calls.values():
            output = registry.call(c["name"], c["arguments"], context).output
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": output})
    client.close()


def test_a_streamed_run_uses_one_connection(server: ChatServer, tmp_path: Path) -> None:
    run_three_steps(server, tmp_path)
    chat = len(server.chat_connections)
    print(
        f"\nconnections: {chat} for {len(server.requests)} streamed requests "
        f"(ratio {chat / len(server.requests):.2f}; target 1 per run; "
        f"{server.connections} with the probes, asked at once before the first)"
    )
    assert chat == 1


def test_request_bytes_against_a_bare_loop(server: ChatServer, tmp_path: Path) -> None:
    run_three_steps(server, tmp_path)
    ours = server.requests[: len(STEPS)]
    ours_bytes = sum(server.request_bytes[: len(STEPS)])
    names = [tool["function"]["name"] for tool in ours[0]["tools"]]
    assert sorted(names) == sorted(BARE_TOOLS), "write a bare schema for every tool"
    run_bare_loop(server, tmp_path, names)
    bare = server.requests[len(STEPS) :]
    bare_bytes = sum(server.request_bytes[len(STEPS) :])
    assert len(bare) == len(ours), "the bare loop takes the same steps"
    assert [m["content"] for m in bare[-1]["messages"] if m["role"] == "tool"] == [
        m["content"] for m in ours[-1]["messages"] if m["role"] == "tool"
    ], "the same tool results on both sides"
    schemas = len(json.dumps(ours[0]["tools"], separators=(",", ":")))
    bare_schemas = len(json.dumps(bare[0]["tools"], separators=(",", ":")))
    prompt = len(ours[0]["messages"][0]["content"].encode())
    ratio = ours_bytes / bare_bytes
    print(
        f"\nrequest bytes of a {len(STEPS)}-step run: {ours_bytes:,} vs a bare loop's "
        f"{bare_bytes:,}: ratio {ratio:.3f} (target <= 1.15); per request: schemas {schemas:,} "
        f"vs {bare_schemas:,} bytes, system prompt {prompt} vs {len(BARE_PROMPT)} bytes"
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
