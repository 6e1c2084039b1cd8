"""The trace reader on hostile input: devices, FIFOs, huge or deep lines, cut characters,
and any JSON value in any field (property-based): a Trace of well-typed events or one
TraceError, never another exception, a hang or unbounded memory."""

from __future__ import annotations

import contextlib
import json
import math
import os
import threading
import types
import typing
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.errors import TraceError
from agent.events import Event, RunFinished
from agent.loop import Agent
from agent.messages import Message, ToolCall
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.tools.docs import DocsContext, docs_registry
from agent.trace import MAX_LINE_BYTES, Trace, read_trace
from agent.traces import recent_traces

needs_posix = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev")


@pytest.fixture
def lines(ctx: DocsContext, tmp_path: Path) -> list[str]:
    """The lines of a real run's trace, with text in several scripts (multi-byte UTF-8)."""
    model = ScriptedModel(
        [
            reply("Je cherche… 日本 🙂", call("grep_docs", {"keyword": "délai"})),
            reply(None, call("read_doc", {"path": "guide.md", "start": 5, "end": 8})),
            reply("Réponse : cinq secondes (guide.md:7). ✓"),
        ],
        stream=True,
    )
    session = Session(Agent(model, docs_registry(), context=[ctx]), trace_dir=tmp_path / "t")
    list(session.ask("Quel est le délai ?"))
    assert session.last_trace is not None
    return session.last_trace.read_text(encoding="utf-8").splitlines()


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def finishes(action: Callable[[], object], limit_s: float = 10.0) -> BaseException | None:
    """Run `action` in a thread; fail if it hangs; return what it raised."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            action()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(limit_s)
    assert not thread.is_alive(), "the reader hung"
    return raised[0] if raised else None


@needs_posix
def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "trace.jsonl"
    os.mkfifo(fifo)
    raised = finishes(lambda: read_trace(fifo))
    assert isinstance(raised, TraceError)
    assert str(raised) == f"{fifo} is not a regular file, so not a trace"


@needs_posix
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_devices_are_refused_before_reading(tmp_path: Path, device: str) -> None:
    if not Path(device).exists():
        pytest.skip(f"no {device}")
    link = tmp_path / "trace.jsonl"
    link.symlink_to(device)
    for path in (Path(device), link):
        with pytest.raises(TraceError, match="is not a regular file, so not a trace"):
            read_trace(path)


def test_a_line_longer_than_the_cap_is_an_error_not_a_memory_error(
    tmp_path: Path, lines: list[str]
) -> None:
    zeros = tmp_path / "zeros.jsonl"
    with zeros.open("wb") as file:
        file.truncate(MAX_LINE_BYTES + 2)  # a sparse file of NUL bytes, no newline
    with pytest.raises(TraceError, match="line 1 is longer than 32 MiB, so not a docsagent trace"):
        read_trace(zeros)
    padded = write(tmp_path / "padded.jsonl", lines[:3])
    with padded.open("ab") as file:
        file.truncate(padded.stat().st_size + MAX_LINE_BYTES + 2)
    with pytest.raises(TraceError, match="line 4 is longer than 32 MiB"):
        read_trace(padded)


def test_deeply_nested_lines_are_damaged_lines(tmp_path: Path, lines: list[str]) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    path = write(tmp_path / "t.jsonl", [*lines[:3], deep, *lines[3:]])
    with pytest.raises(TraceError, match=r"line 4 is damaged \(nested too deeply\)"):
        read_trace(path)
    write(path, [*lines[:-1], deep])  # a whole last line: written so, not cut off
    with pytest.raises(TraceError, match=f"line {len(lines)} is damaged"):
        read_trace(path)
    path.write_text("\n".join([*lines[:-1], deep]))  # no newline: cut off while written
    trace = read_trace(path)
    assert trace.damaged_tail and not trace.complete
    write(path, [deep])
    with pytest.raises(TraceError, match="is not a docsagent trace"):
        read_trace(path)


OVERFLOW = "<1e999>"  # written as the JSON number 1e999, which Python reads as infinity


@pytest.mark.parametrize(
    "kind, key, value, why",
    [
        (
            "message",
            "message",
            {"role": "user", "content": ["not", "text"]},
            "content must be text",
        ),
        ("message", "message", {"role": "user", "content": {"a": 1}}, "content must be text"),
        ("message", "message", {"role": "robot", "content": "hi"}, "role must be system"),
        ("model_reply", "duration_s", float("nan"), "NaN is not allowed: numbers must be finite"),
        ("model_reply", "duration_s", float("inf"), "Infinity is not allowed"),
        ("tool_end", "duration_s", float("-inf"), "-Infinity is not allowed"),
        ("tool_end", "duration_s", OVERFLOW, "ToolCallFinished.duration_s must be a finite number"),
        ("tool_end", "output", 42, "ToolCallFinished.output must be text"),
        ("tool_end", "error", "yes", "ToolCallFinished.error must be true or false"),
        ("run_finished", "stats", {"elapsed_s": OVERFLOW}, "RunStats.elapsed_s must be a finite"),
        (
            "run_finished",
            "stats",
            {"usage": {"prompt_tokens": "3"}},
            "Usage.prompt_tokens must be a",
        ),
        ("tool_start", "step", 10**40, "step must be a whole number below 2\\*\\*63"),
        ("text_delta", "text", None, "TextDelta.text must be text"),
        ("model_request", "t", OVERFLOW, "t must be a finite number"),
        ("model_request", "t", float("nan"), "NaN is not allowed"),
        ("model_request", "t", "soon", "t must be a number"),
    ],
)
def test_a_field_of_the_wrong_type_is_one_clear_error(
    tmp_path: Path, lines: list[str], kind: str, key: str, value: Any, why: str
) -> None:
    events = [json.loads(line) for line in lines]
    index = next(i for i, e in enumerate(events) if e.get("type") == kind)
    events[index][key] = value
    text = [json.dumps(e).replace(f'"{OVERFLOW}"', "1e999") for e in events]
    path = write(tmp_path / "t.jsonl", text)
    with pytest.raises(TraceError, match=f"line {index + 1} is damaged .*{why}"):
        read_trace(path)


def test_a_trace_cut_anywhere_reads_to_its_last_whole_line(
    tmp_path: Path, lines: list[str]
) -> None:
    whole = ("\n".join(lines) + "\n").encode("utf-8")
    full = read_trace(write(tmp_path / "full.jsonl", lines))
    header_end = whole.index(b"\n") + 1
    ends = [i for i, byte in enumerate(whole) if byte == ord("\n")]
    sizes = {end + d for end in ends for d in (-1, 0, 1, 2)}  # around every line end
    sizes |= {i for i, byte in enumerate(whole) if byte >= 0x80}  # inside every character
    sizes |= set(range(header_end, len(whole), 97))
    cuts_in_characters = 0
    cut = tmp_path / "cut.jsonl"
    for size in sorted(s for s in sizes if header_end <= s <= len(whole)):
        cut.write_bytes(whole[:size])
        trace = read_trace(cut)
        at_line_end = b"\n" in whole[size - 1 : size + 1]  # a line cut before its newline is whole
        whole_lines = whole[: size + 1].count(b"\n") - 1
        assert trace.events == full.events[:whole_lines]
        assert trace.damaged_tail is not at_line_end
        assert trace.complete is (size >= len(whole) - 1)
        try:
            whole[:size].decode("utf-8")
        except UnicodeDecodeError:
            cuts_in_characters += 1
    assert cuts_in_characters > 10  # the cut fell inside é, 日, 本, 🙂, ✓ and …


def test_recent_traces_list_hostile_files_without_hanging(tmp_path: Path, lines: list[str]) -> None:
    write(tmp_path / "good.jsonl", lines)
    (tmp_path / "deep.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n")
    (tmp_path / "dangling.jsonl").symlink_to(tmp_path / "gone")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.jsonl")
        (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    found: list[Any] = []
    assert finishes(lambda: found.extend(recent_traces(tmp_path))) is None
    outcomes = {t.path.name: (t.question, t.outcome) for t in found}
    assert outcomes.pop("good.jsonl") == ("Quel est le délai ?", "answered")
    assert set(outcomes.values()) == {("?", "not a trace")}


# -- every field, any JSON value ---------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a decoded JSON value (keys and list indices), the value itself first."""
    found = [prefix]
    if isinstance(value, (dict, list)):
        for key, item in value.items() if isinstance(value, dict) else enumerate(value):
            found += paths(item, (*prefix, key))
    return found


def well_typed(value: Any, hint: Any) -> bool:
    """Whether `value` fits the annotation `hint` (finite numbers, text, nested dataclasses)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(well_typed(value, a) for a in args)
    if hint is type(None):
        return value is None
    if origin is typing.Literal:
        return value in args
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, float) and math.isfinite(value)
    if hint is str:
        return isinstance(value, str)
    if origin is tuple:
        return isinstance(value, tuple) and all(well_typed(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict)
    if is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        return isinstance(value, hint) and all(  # type: ignore[arg-type]
            well_typed(getattr(value, f.name), hints[f.name]) for f in fields(hint)
        )
    raise AssertionError(f"no check for {hint}")


def check_trace(trace: Trace) -> None:
    assert len(trace.events) == len(trace.times)
    assert all(isinstance(t, float) and math.isfinite(t) for t in trace.times)
    for event in trace.events:
        assert isinstance(event, Event) and well_typed(event, type(event)), event
    for key in ("question", "model", "docs"):
        assert isinstance(trace.header.get(key, ""), str)


def test_the_type_check_of_this_test_knows_messages_and_calls() -> None:
    assert well_typed(Message("tool", "x", (ToolCall("1", "n", "{}"),)), Message)
    assert not well_typed(Message("tool", 3), Message)  # type: ignore[arg-type]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_json_in_any_field_gives_a_typed_trace_or_a_trace_error(
    tmp_path: Path, lines: list[str], data: st.DataObject
) -> None:
    decoded = [json.loads(line) for line in lines]
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        index = data.draw(st.integers(0, len(decoded) - 1), label="line")
        where = data.draw(st.sampled_from(paths(decoded[index])), label="field")
        value = data.draw(JSON_VALUES, label="value")
        if not where:
            decoded[index] = value
            continue
        parent = decoded[index]
        for key in where[:-1]:
            parent = parent[key]
        if data.draw(st.booleans(), label="delete") and isinstance(parent, dict):
            del parent[where[-1]]
        else:
            parent[where[-1]] = value
    path = write(tmp_path / "mutated.jsonl", [json.dumps(d) for d in decoded])
    try:
        trace = read_trace(path)
    except TraceError as exc:
        assert "\n" not in str(exc)
        return
    check_trace(trace)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(garbage=st.binary(max_size=64), at=st.integers(1, 30))
def test_any_bytes_in_a_line_give_a_typed_trace_or_a_trace_error(
    tmp_path: Path, lines: list[str], garbage: bytes, at: int
) -> None:
    encoded = [line.encode("utf-8") for line in lines]
    encoded.insert(min(at, len(encoded)), garbage.replace(b"\n", b" "))
    path = tmp_path / "garbage.jsonl"
    path.write_bytes(b"\n".join(encoded) + b"\n")
    with contextlib.suppress(TraceError):
        check_trace(read_trace(path))


def test_the_real_trace_is_typed(tmp_path: Path, lines: list[str]) -> None:
    trace = read_trace(write(tmp_path / "t.jsonl", lines))
    check_trace(trace)
    assert isinstance(trace.events[-1], RunFinished) and not trace.damaged_tail
