from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest

from agent.errors import ModelNotFoundError
from agent.events import (
    Event,
    MessageAppended,
    ModelReplied,
    ModelRequested,
    RunFinished,
    RunStarted,
    ToolCallFinished,
    ToolCallStarted,
    Usage,
)
from agent.loop import Agent
from agent.observation import RunResult
from agent.testing import ScriptedModel, call, reply
from agent.tools.docs import DocsContext, docs_registry
from agent.tools.registry import ToolRegistry


def agent_for(ctx: DocsContext, *turns: object, **options: object) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(list(turns))  # type: ignore[arg-type]
    return Agent(model, docs_registry(), context=[ctx], **options), model  # type: ignore[arg-type]


def observations(events: list[Event]) -> list[tuple[str, bool]]:
    return [(e.output, e.error) for e in events if isinstance(e, ToolCallFinished)]


def test_seed_drill_ends_normally_with_the_right_observations(ctx: DocsContext) -> None:
    agent, model = agent_for(
        ctx,
        reply(None, call("grep_docs", {"keyword": "kubernetes"})),
        reply(None, call("read_doc", {"path": "advanced/long.md", "start": 1, "end": 200})),
        reply(None, call("read_doc", {"path": "advanced/lnog.md"})),
        reply("Lines 1-80 hold the numbers (advanced/long.md:1-80)."),
    )
    events = list(agent.run("What is in long.md?"))
    seen = observations(events)
    assert seen[0] == (
        "no matches for 'kubernetes' in 2 docs; try another keyword or call list_docs",
        False,
    )
    assert seen[1][0].splitlines()[0] == "advanced/long.md lines 1-80 of 200"
    assert "call read_doc with start=81" in seen[1][0]
    assert seen[2] == (
        "error: no file 'advanced/lnog.md' in the docs; call list_docs to see the files",
        True,
    )
    final = events[-1]
    assert isinstance(final, RunFinished)
    assert final.stop_reason == "answered"
    assert final.answer == "Lines 1-80 hold the numbers (advanced/long.md:1-80)."
    assert final.stats.steps == 4 and final.stats.tool_calls == 3
    # the model saw every observation, in a tool message answering its call
    last_request = model.requests[-1]
    assert [m.role for m in last_request] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]


def test_event_sequence_of_one_tool_step(ctx: DocsContext) -> None:
    agent, _ = agent_for(ctx, reply(None, call("list_docs")), reply("done"))
    kinds = [type(e).__name__ for e in agent.run("q")]
    assert kinds == [
        "RunStarted",
        "MessageAppended",  # system
        "MessageAppended",  # user
        "ModelRequested",
        "ModelReplied",
        "MessageAppended",  # assistant with the call
        "ToolCallStarted",
        "ToolCallFinished",
        "MessageAppended",  # tool result
        "ModelRequested",
        "ModelReplied",
        "MessageAppended",  # the answer
        "RunFinished",
    ]


def test_bad_calls_are_observations_and_the_run_goes_on(ctx: DocsContext) -> None:
    agent, _ = agent_for(
        ctx,
        reply(None, call("search_web", {"q": "x"})),
        reply(None, call("read_doc", "{'path': guide.md")),
        reply(None, call("read_doc", {"path": "guide.md", "start": "abc"})),
        reply("ok"),
    )
    events = list(agent.run("q"))
    seen = [text for text, error in observations(events) if error]
    assert seen == [
        "error: there is no tool 'search_web'. Available tools: search_docs, list_docs, "
        "grep_docs, read_doc.",
        "error: the arguments are not valid JSON (Expecting property name enclosed in double "
        "quotes at position 1); send a JSON object. Call read_doc again with valid arguments.",
        "error: argument 'start' must be an integer, got 'abc'. "
        "Call read_doc again with valid arguments.",
    ]
    assert RunResult.collect(events).stop_reason == "answered"


def test_two_calls_in_one_turn_get_two_tool_messages_in_order(ctx: DocsContext) -> None:
    agent, model = agent_for(
        ctx,
        reply(None, call("grep_docs", {"keyword": "timeout"}), call("list_docs")),
        reply("done"),
    )
    list(agent.run("q"))
    sent = model.requests[1]
    assistant = sent[2]
    assert [c.id for c in assistant.tool_calls] == ["call_1_1", "call_1_2"]
    tools = sent[3:]
    assert [(m.role, m.tool_call_id, m.name) for m in tools] == [
        ("tool", "call_1_1", "grep_docs"),
        ("tool", "call_1_2", "list_docs"),
    ]


def test_step_limit_gives_an_honest_no_answer(ctx: DocsContext) -> None:
    greps = [reply(None, call("grep_docs", {"keyword": word})) for word in "abcde"]
    agent, _ = agent_for(ctx, *greps, max_steps=3)
    final = list(agent.run("q"))[-1]
    assert isinstance(final, RunFinished)
    assert (final.stop_reason, final.answer, final.error) == (
        "max_steps",
        None,
        "no answer within 3 steps",
    )
    assert final.stats.steps == 3


def test_long_observations_are_truncated_for_the_model_but_whole_in_events(
    ctx: DocsContext,
) -> None:
    agent, model = agent_for(
        ctx,
        reply(None, call("read_doc", {"path": "advanced/long.md", "end": 80})),
        reply("done"),
        max_observation_chars=200,
    )
    events = list(agent.run("q"))
    whole = observations(events)[0][0]
    seen = model.requests[1][-1].content or ""
    assert len(whole) > 800
    assert seen.endswith(f"\n[... truncated: {len(whole):,} characters in all]")
    assert len(seen) < 260
    assert whole.startswith(seen.split("\n[...")[0])


def test_usage_is_summed_per_step_and_run(ctx: DocsContext) -> None:
    agent, _ = agent_for(ctx, reply(None, call("list_docs")), reply("done"))
    events = list(agent.run("q"))
    replies = [e for e in events if isinstance(e, ModelReplied)]
    assert replies[1].total == replies[0].usage + replies[1].usage
    final = events[-1]
    assert isinstance(final, RunFinished)
    assert final.stats.usage == replies[1].total
    assert final.stats.usage.estimated


def test_terminal_tool_ends_the_run(ctx: DocsContext) -> None:
    model = ScriptedModel([reply(None, call("list_docs")), reply("never asked")])
    agent = Agent(model, docs_registry().with_terminal("list_docs"), context=[ctx])
    final = list(agent.run("q"))[-1]
    assert isinstance(final, RunFinished)
    assert final.stop_reason == "answered"
    assert final.answer == (
        "(2 docs; 2 files skipped: 1 licence (LICENSE.md); 1 of unknown type (1 .png))\n"
        "advanced/long.md  (200 lines)\nguide.md  (8 lines)  Guide"
    )
    assert len(model.requests) == 1


@dataclass
class Verdict:
    answer: str
    confidence: float
    sources: list[str]


def test_typed_output_through_the_final_answer_tool(ctx: DocsContext) -> None:
    model = ScriptedModel(
        [
            reply(
                None, call("final_answer", {"answer": "5 s", "confidence": "high", "sources": []})
            ),
            reply(
                None,
                call(
                    "final_answer",
                    {"answer": "five seconds", "confidence": 0.9, "sources": ["guide.md:7"]},
                ),
            ),
        ]
    )
    agent = Agent(model, ToolRegistry(), context=[ctx], output_type=Verdict)
    tool_names = [t["function"]["name"] for t in agent.tools.schemas()]
    assert tool_names == ["final_answer"]
    events = list(agent.run("How long?"))
    assert observations(events)[0] == (
        "error: argument 'confidence' must be a number, got 'high'. "
        "Call final_answer again with valid arguments.",
        True,
    )
    final = events[-1]
    assert isinstance(final, RunFinished)
    assert final.answer == "five seconds"
    assert final.output == {"answer": "five seconds", "confidence": 0.9, "sources": ["guide.md:7"]}


def test_model_error_ends_the_trace_cleanly_then_raises(ctx: DocsContext) -> None:
    agent, _ = agent_for(ctx, ModelNotFoundError("model 'x' not found at http://h"))
    seen: list[Event] = []
    with pytest.raises(ModelNotFoundError):
        for event in agent.run("q"):
            seen.append(event)
    final = seen[-1]
    assert isinstance(final, RunFinished)
    assert (final.stop_reason, final.error) == ("error", "model 'x' not found at http://h")


def test_cancel_stops_a_waiting_model(ctx: DocsContext) -> None:
    gate = threading.Event()
    model = ScriptedModel([reply("late")], gate=gate)
    agent = Agent(model, docs_registry(), context=[ctx])
    cancel = threading.Event()
    events = agent.run("q", cancel=cancel)
    for event in events:
        if isinstance(event, ModelRequested):
            cancel.set()
    # the run ended by itself, with a cancelled final event
    assert isinstance(event, RunFinished)
    assert event.stop_reason == "cancelled"


def test_history_continues_the_conversation(ctx: DocsContext) -> None:
    agent, model = agent_for(ctx, reply("first"), reply("second"))
    first = RunResult.collect(agent.run("one"))
    events = list(agent.run("two", history=first.messages))
    started = events[0]
    assert isinstance(started, RunStarted) and len(started.history) == 3
    appended = [e.message.content for e in events if isinstance(e, MessageAppended)]
    assert appended == ["two", "second"]  # the system prompt is not sent twice
    assert [m.content for m in model.requests[1]][1:] == ["one", "first", "two"]


def test_tool_events_carry_the_call_id(ctx: DocsContext) -> None:
    agent, _ = agent_for(ctx, reply(None, call("list_docs", id="abc")), reply("x"))
    ids = [
        e.tool_call_id for e in agent.run("q") if isinstance(e, (ToolCallStarted, ToolCallFinished))
    ]
    assert ids == ["abc", "abc"]


def test_cost_is_reported_when_a_price_is_known(ctx: DocsContext) -> None:
    def price(usage: Usage) -> float | None:
        return usage.total_tokens / 1000

    agent, _ = agent_for(ctx, reply(None, call("list_docs")), reply("done"), cost=price)
    events = list(agent.run("q"))
    replies = [e for e in events if isinstance(e, ModelReplied)]
    assert [r.cost_usd for r in replies] == [r.total.total_tokens / 1000 for r in replies]
    final = events[-1]
    assert isinstance(final, RunFinished)
    assert final.stats.cost_usd == final.stats.usage.total_tokens / 1000
    plain, _ = agent_for(ctx, reply("done"))
    last = list(plain.run("q"))[-1]
    assert isinstance(last, RunFinished) and last.stats.cost_usd is None


def test_an_empty_reply_is_no_answer_naming_the_model(ctx: DocsContext) -> None:
    agent, _ = agent_for(ctx, reply("  "))
    final = list(agent.run("q"))[-1]
    assert isinstance(final, RunFinished)
    assert (final.stop_reason, final.answer, final.error) == (
        "empty",
        None,
        f"the model {agent.model.name} sent an empty reply (no text and no tool call)",
    )


def test_a_repeated_call_is_not_run_again_and_says_where_the_result_is(
    ctx: DocsContext,
) -> None:
    agent, model = agent_for(
        ctx,
        reply(None, call("read_doc", {"path": "guide.md", "start": 1, "end": 5})),
        reply(None, call("grep_docs", {"keyword": "timeout"})),
        reply(None, call("read_doc", '{"end": 5, "path": "guide.md",  "start": 1}')),
        reply("Five seconds (guide.md:7)."),
    )
    events = list(agent.run("q"))
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [e.repeat_of for e in finished] == [None, None, 1]
    assert finished[2].output == (
        "repeat: read_doc was already called with these arguments at step 1, and its result "
        "is above; calling it again gives the same result. Instead, read other lines or "
        "another doc, or answer from what you have read."
    )
    assert model.requests[3][-1].content == finished[2].output
    final = events[-1]
    assert isinstance(final, RunFinished) and final.stop_reason == "answered"


def test_the_same_repeat_twice_in_a_row_ends_the_run(ctx: DocsContext) -> None:
    same = reply(None, call("grep_docs", {"keyword": "timeout"}))
    agent, _ = agent_for(ctx, same, same, same, reply("never asked"), max_steps=8)
    events = list(agent.run("q"))
    final = events[-1]
    assert isinstance(final, RunFinished)
    assert (final.stop_reason, final.error) == (
        "repeated",
        "the model repeated the same grep_docs call twice in a row",
    )
    assert final.stats.steps == 3
    repeats = [e.repeat_of for e in events if isinstance(e, ToolCallFinished)]
    assert repeats == [None, 1, 1]


def test_a_repeat_between_other_calls_does_not_end_the_run(ctx: DocsContext) -> None:
    grep = reply(None, call("grep_docs", {"keyword": "timeout"}))
    other = reply(None, call("list_docs"))
    agent, _ = agent_for(ctx, grep, grep, other, grep, reply("ok"), max_steps=8)
    final = list(agent.run("q"))[-1]
    assert isinstance(final, RunFinished) and final.stop_reason == "answered"


def test_repeated_tool_call_ids_are_made_unique_keeping_each_result_paired(
    ctx: DocsContext,
) -> None:
    from tests.chatserver import validate

    agent, model = agent_for(
        ctx,
        reply(None, call("list_docs", id="dup"), call("grep_docs", {"keyword": "x"}, id="dup")),
        reply(None, call("read_doc", {"path": "advanced/long.md"}, id="dup")),
        reply(None, call("grep_docs", {"keyword": "y"}, id="dup_2")),  # reuses a renamed id
        reply("done"),
    )
    events = list(agent.run("q"))
    started = [(e.tool_call_id, e.name) for e in events if isinstance(e, ToolCallStarted)]
    assert started == [
        ("dup", "list_docs"),
        ("dup_2", "grep_docs"),
        ("dup_3", "read_doc"),
        ("dup_2_2", "grep_docs"),
    ]
    finished = [(e.tool_call_id, e.name) for e in events if isinstance(e, ToolCallFinished)]
    assert finished == started
    sent = model.requests[-1]
    assert validate([m.to_wire() for m in sent]) is None
    results = [(m.tool_call_id, m.name) for m in sent if m.role == "tool"]
    assert results == started
    assert isinstance(events[-1], RunFinished) and events[-1].stop_reason == "answered"
