from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent import export_trace
from agent.errors import TraceError
from agent.events import RunFinished, RunStarted
from agent.loop import Agent
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.tools.docs import DocsContext, docs_registry
from agent.trace import event_to_dict, read_trace


def make_session(ctx: DocsContext, tmp_path: Path, *turns: object) -> Session:
    model = ScriptedModel(list(turns))  # type: ignore[arg-type]
    agent = Agent(model, docs_registry(), context=[ctx], docs="docs")
    return Session(agent, trace_dir=tmp_path / "traces")


def test_a_run_writes_a_complete_trace_that_reads_back_equal(
    ctx: DocsContext, tmp_path: Path
) -> None:
    session = make_session(ctx, tmp_path, reply(None, call("list_docs")), reply("done"))
    events = list(session.ask("what is here?"))
    assert session.last_trace is not None
    lines = session.last_trace.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["type"] == "header"
    assert header["format"] == "docsagent-trace"
    assert header["version"] == 2
    assert header["question"] == "what is here?"
    assert [t["function"]["name"] for t in header["tools"]] == [
        "search_docs",
        "list_docs",
        "grep_docs",
        "read_doc",
    ]
    body = [json.loads(line) for line in lines[1:]]
    assert [b["seq"] for b in body] == list(range(1, len(events) + 1))
    assert all(isinstance(b["t"], float) for b in body)
    trace = read_trace(session.last_trace)
    assert trace.complete
    assert trace.events == events


def test_each_message_is_written_once(ctx: DocsContext, tmp_path: Path) -> None:
    session = make_session(ctx, tmp_path, reply("done"))
    list(session.ask("q"))
    assert session.last_trace is not None
    kinds = [json.loads(line)["type"] for line in session.last_trace.read_text().splitlines()]
    assert kinds.count("message") == 3  # system, user, answer


def test_cut_off_last_line_is_tolerated(ctx: DocsContext, tmp_path: Path) -> None:
    session = make_session(ctx, tmp_path, reply(None, call("list_docs")), reply("done"))
    list(session.ask("q"))
    path = session.last_trace
    assert path is not None
    text = path.read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text[: text.rstrip("\n").rfind("\n") + 20])  # half of the last line
    trace = read_trace(cut)
    assert not trace.complete
    assert len(trace.events) == len(read_trace(path).events) - 1


def test_stopping_early_still_closes_the_trace_as_cancelled(
    ctx: DocsContext, tmp_path: Path
) -> None:
    session = make_session(ctx, tmp_path, reply(None, call("list_docs")), reply("done"))
    events = session.ask("q")
    for event in events:
        if type(event).__name__ == "ToolCallStarted":
            break
    events.close()  # what Ctrl+C in `ask` does
    assert session.last_trace is not None
    trace = read_trace(session.last_trace)
    final = trace.events[-1]
    assert isinstance(final, RunFinished)
    assert (final.stop_reason, final.error) == ("cancelled", "interrupted")
    assert final.stats.steps == 1 and final.stats.tool_calls == 1


def test_follow_up_questions_see_earlier_turns(ctx: DocsContext, tmp_path: Path) -> None:
    session = make_session(ctx, tmp_path, reply("one"), reply("two"), reply("three"))
    list(session.ask("first"))
    list(session.ask("second"))
    model = session.agent.model
    assert isinstance(model, ScriptedModel)
    assert [m.content for m in model.requests[1]][1:] == ["first", "one", "second"]
    session.reset()
    list(session.ask("third"))
    assert [m.content for m in model.requests[2]][1:] == ["third"]


def test_readers_skip_unknown_events_and_refuse_newer_versions(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    header = {"type": "header", "format": "docsagent-trace", "version": 1}
    finished = {
        "seq": 2,
        "t": 0.1,
        **event_to_dict(RunFinished(stop_reason="answered", answer="a", stats=_stats())),
    }
    lines = [header, {"seq": 1, "t": 0.0, "type": "telemetry", "x": 1}, finished]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    trace = read_trace(path)
    assert trace.skipped == 1 and trace.complete
    path.write_text(json.dumps({**header, "version": 3}) + "\n")
    with pytest.raises(TraceError, match="version 3 trace; this docsagent reads version 2"):
        read_trace(path)


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "is a folder, not a trace file"),
        ("hello\n", "is not a docsagent trace"),
        ('{"type": "header", "format": "other"}\n', "is not a docsagent trace"),
    ],
)
def test_unreadable_traces_are_trace_errors(
    tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "t.jsonl"
    if content is None:
        path.mkdir()
    else:
        path.write_text(content)
    with pytest.raises(TraceError, match=message):
        read_trace(path)


def _stats():  # type: ignore[no-untyped-def]
    from agent.events import RunStats

    return RunStats()


class BrokenModel:
    name = "broken"

    def query(self, messages, tools, *, cancel=None):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")
        yield

    def cancel(self) -> None:
        pass


def test_an_unexpected_failure_still_ends_the_trace_as_an_error(
    ctx: DocsContext, tmp_path: Path
) -> None:
    agent = Agent(BrokenModel(), docs_registry(), context=[ctx])
    session = Session(agent, trace_dir=tmp_path)
    with pytest.raises(RuntimeError):
        list(session.ask("q"))
    assert session.last_trace is not None
    final = read_trace(session.last_trace).events[-1]
    assert isinstance(final, RunFinished)
    assert (final.stop_reason, final.error) == ("error", "RuntimeError: boom")


@pytest.mark.parametrize(
    "line",
    [
        "null",
        '{"seq": 1, "t": 0.1, "type": "message", "step": 0, '
        '"message": {"role": "user", "tool_calls": [5]}}',
        '{"seq": 1, "t": "x", "type": "model_request", "step": 1, "n_messages": 2}',
        '{"seq": 1, "t": 0.1, "type": "model_request", "step": "one", "n_messages": 2}',
        '{"seq": 1, "t": 0.1, "type": "model_reply", "step": 1, "usage": {"prompt_tokens": "x"},'
        ' "total": {}, "duration_s": 0.1}',
        '{"seq": 1, "t": 0.1, "type": "model_reply", "step": 1, "usage": {}, "total": null,'
        ' "duration_s": 0.1}',
        '{"seq": 1, "t": 0.1, "type": "run_finished", "stop_reason": "answered", "answer": "a",'
        ' "stats": null}',
        '{"seq": 1, "t": 0.1, "type": "run_finished", "stop_reason": "weird", "answer": "a",'
        ' "stats": {}}',
    ],
)
def test_damaged_lines_are_trace_errors(tmp_path: Path, line: str) -> None:
    path = tmp_path / "t.jsonl"
    header = '{"type": "header", "format": "docsagent-trace", "version": 1}'
    path.write_text(f"{header}\n{line}\n{line}\n")
    with pytest.raises(TraceError, match="line 2 is damaged"):
        read_trace(path)


def test_odd_characters_in_a_question_are_written_and_read_back(
    ctx: DocsContext, tmp_path: Path
) -> None:
    turns = [reply(None, call("grep_docs", {"keyword": "\ud800"})), reply("none")]
    session = make_session(ctx, tmp_path, *turns)
    events = list(session.ask("timeouts \udcff"))
    assert session.last_trace is not None
    trace = read_trace(session.last_trace)
    assert trace.header["question"] == "timeouts \udcff"
    assert trace.events == events and trace.complete


def test_only_answered_exchanges_join_the_conversation(ctx: DocsContext, tmp_path: Path) -> None:
    from agent.errors import BadRequestError

    session = make_session(
        ctx, tmp_path, BadRequestError("too long"), reply(None, call("list_docs")), reply("ok")
    )
    with pytest.raises(BadRequestError):
        list(session.ask("first"))
    list(session.ask("second"))
    model = session.agent.model
    assert isinstance(model, ScriptedModel)
    assert [m.role for m in model.requests[1]] == ["system", "user"]
    assert session.last_finished is not None and session.last_finished.answer == "ok"
    assert [m.content for m in session.history if m.role == "user"] == ["second"]


def test_a_follow_ups_history_is_written_as_every_other_event_is(
    ctx: DocsContext, tmp_path: Path
) -> None:
    turns = [reply(None, call("grep_docs", {"keyword": "é \ud800"})), reply("un café \udcff")]
    session = make_session(ctx, tmp_path, *turns, reply("two"))
    list(session.ask("first ü"))
    events = list(session.ask("second"))
    assert session.last_trace is not None
    lines = session.last_trace.read_text(encoding="utf-8").splitlines()
    started = {"seq": 1, "t": json.loads(lines[1])["t"], **event_to_dict(events[0])}
    written = json.dumps(started, ensure_ascii=False).encode("utf-8", "backslashreplace")
    assert lines[1].encode("utf-8") == written
    assert read_trace(session.last_trace).events == events


def test_a_version_1_served_trace_that_ended_still_reads_and_exports(tmp_path: Path) -> None:
    """Version 1 said `ended` for a client that closed its session; 2 says `disconnected`."""
    path = tmp_path / "old.jsonl"
    header = {"type": "header", "format": "docsagent-trace", "version": 1, "question": "q"}
    header |= {"model": "mcp client", "max_steps": 0, "docs": "/docs"}
    started = RunStarted(question="q", model="mcp client", max_steps=0)
    ended = RunFinished(stop_reason="ended", answer=None, stats=_stats(), error="closed")
    lines = [header] + [
        {"seq": n, "t": 0.0, **event_to_dict(e)} for n, e in ((1, started), (2, ended))
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    trace = read_trace(path)
    assert trace.complete and trace.events[-1].stop_reason == "ended"  # type: ignore[attr-defined]
    assert "session ended after" in export_trace(trace, "markdown")
