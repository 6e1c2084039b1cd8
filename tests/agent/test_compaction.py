from __future__ import annotations

from pathlib import Path

from agent.compaction import Compaction, describe, stub
from agent.events import ContextCompacted, Event, RunFinished
from agent.loop import Agent
from agent.messages import Message
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.tools.docs import DocsContext, docs_registry
from agent.trace import read_trace, trace_header

LONG = "advanced/long.md"


def reads(n: int) -> list[Message]:
    """`n` steps that each read a different 20-line slice of advanced/long.md, then an answer."""
    turns = [
        reply(
            None,
            call("read_doc", {"path": "advanced/long.md", "start": 1 + 10 * k, "end": 20 + 10 * k}),
        )
        for k in range(n)
    ]
    return [*turns, reply("done (advanced/long.md:1-20)")]


def agent_for(
    ctx: DocsContext, turns: list[Message], compaction: Compaction | None
) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(list(turns))
    agent = Agent(model, docs_registry(), context=[ctx], max_steps=40, compaction=compaction)
    return agent, model


def tool_texts(request: list[Message]) -> list[str]:
    return [m.content or "" for m in request if m.role == "tool"]


def test_describe_says_what_each_tool_call_did() -> None:
    assert describe(call("read_doc", {"path": "a.md", "start": 41, "end": 71})) == "read a.md:41-71"
    assert describe(call("read_doc", {"path": "a.md"})) == "read a.md:1-"
    assert describe(call("grep_docs", {"keyword": "proxy", "path": "adv/"})) == (
        "searched for 'proxy' in adv/"
    )
    assert describe(call("search_docs", {"query": "pool  timeout"})) == (
        "searched for 'pool timeout'"
    )
    assert describe(call("list_docs")) == "listed the docs"
    assert describe(call("read_doc", "not json")) == "read :1-"
    assert stub(call("read_doc", {"path": "a.md", "start": 2, "end": 9}), 4) == (
        "[read a.md:2-9 at step 4 — shortened]"
    )


def test_a_long_run_sends_old_observations_as_stubs_and_keeps_the_last_steps_whole(
    ctx: DocsContext,
) -> None:
    agent, model = agent_for(ctx, reads(10), Compaction(after_tokens=600, keep_steps=3))
    events = list(agent.run("What is in long.md?"))
    assert isinstance(events[-1], RunFinished) and events[-1].stop_reason == "answered"
    last = tool_texts(model.requests[-1])
    assert last[:7] == [
        f"[read advanced/long.md:{1 + 10 * k}-{20 + 10 * k} at step {k + 1} — shortened]"
        for k in range(7)
    ]
    assert all(text.startswith("advanced/long.md lines") for text in last[7:])
    assert len(last) == 10
    compacted = [e for e in events if isinstance(e, ContextCompacted)]
    assert compacted, "the run passed the threshold, so something was shortened"
    assert all(e.tokens_saved > 0 and e.stubs for e in compacted)
    # every stub is announced once, in order
    assert [s for e in compacted for s in e.stubs] == last[:7]
    # the trace-side events still carry each observation whole
    assert "line 11" in next(
        e.output for e in events if getattr(e, "name", "") == "read_doc" and hasattr(e, "output")
    )


def test_compaction_off_or_below_the_threshold_changes_nothing(ctx: DocsContext) -> None:
    for compaction in (None, Compaction(after_tokens=1_000_000)):
        agent, model = agent_for(ctx, reads(6), compaction)
        events = list(agent.run("q"))
        assert not [e for e in events if isinstance(e, ContextCompacted)]
        assert not any("shortened" in t for t in tool_texts(model.requests[-1]))


def test_compaction_saves_most_prompt_tokens_on_a_long_run(ctx: DocsContext) -> None:
    def prompt_chars(compaction: Compaction | None) -> int:
        agent, model = agent_for(ctx, reads(30), compaction)
        list(agent.run("q"))
        return sum(len(m.content or "") for request in model.requests for m in request)

    assert prompt_chars(Compaction(after_tokens=2_000)) < 0.5 * prompt_chars(None)


def test_a_follow_up_carries_earlier_answers_and_stubs_not_old_observations(
    ctx: DocsContext, tmp_path: Path
) -> None:
    turns = [*reads(2), reply("second answer")]
    agent, model = agent_for(ctx, turns, Compaction())
    session = Session(agent, trace_dir=tmp_path)
    list(session.ask("first question"))
    events: list[Event] = list(session.ask("and then?"))
    follow_up = model.requests[-1]
    assert [m.content for m in follow_up if m.role in {"user", "assistant"} and m.content] == [
        "first question",
        "done (advanced/long.md:1-20)",
        "and then?",
    ]
    assert tool_texts(follow_up) == [
        "[read advanced/long.md:1-20 at step 1 — shortened]",
        "[read advanced/long.md:11-30 at step 2 — shortened]",
    ]
    compacted = [e for e in events if isinstance(e, ContextCompacted)]
    assert len(compacted) == 1 and compacted[0].step == 0
    # the trace records the compaction and reads it back
    assert session.last_trace is not None
    again = [e for e in read_trace(session.last_trace).events if isinstance(e, ContextCompacted)]
    assert again == compacted
    assert trace_header(agent, "q")["model"] == "scripted"


def test_the_config_switches_compaction_off_and_a_budget_lowers_the_threshold() -> None:
    from agent.config import Config, compaction_for

    assert compaction_for(Config(compact=False)) is None
    assert compaction_for(Config()) == Compaction()
    assert compaction_for(Config(token_budget=4_000)) == Compaction(after_tokens=1_000)


def test_no_compact_on_the_command_line_reaches_the_config() -> None:
    from tui.commands.options import Options, make_config

    assert make_config(Options(no_compact=True), {})[0].compact is False
    assert make_config(Options(), {})[0].compact is True


def test_a_known_context_keeps_fewer_steps_whole_then_cuts_the_last_result() -> None:
    from agent.compaction import estimate
    from agent.messages import system, tool_result, user

    turns: list[Message] = [system("Answer."), user("q")]
    for k in range(3):
        asked = reply(None, call("read_doc", {"path": "a.md", "start": 1 + k}, id=f"c{k}"))
        turns += [asked, tool_result(asked.tool_calls[0], f"result {k}: " + "word " * 1000)]
    policy = Compaction().within(2048, tools=250)
    assert policy.limit == int((2048 - 512 - 250) * 0.75) and policy.after_tokens == policy.limit
    shortened = policy.shorten(turns)
    texts = [m.content or "" for m in shortened.messages if m.role == "tool"]
    assert texts[:2] == [
        "[read a.md:1- at step 1 — shortened]",
        "[read a.md:2- at step 2 — shortened]",
    ]
    assert texts[2].startswith(
        "[read a.md:3- at step 3 — cut to fit the server's context]\nresult 2"
    )
    assert sum(estimate(m) for m in shortened.messages) <= policy.limit
    assert shortened.stubs[-1] == texts[2] and shortened.tool_call_ids == ("c0", "c1", "c2")
    assert Compaction().within(None) == Compaction()  # an unknown context changes nothing


def conversation(
    questions: int, *, steps: int = 4, id_prefix: str = "c", words: int = 300
) -> list[Message]:
    """`questions` finished turns, each `steps` reads with whole results, then an answer."""
    from agent.messages import system, tool_result, user

    turns: list[Message] = [system("Answer.")]
    for q in range(questions):
        turns.append(user(f"question {q}"))
        for k in range(steps):
            arguments = {"path": f"p{q}.md", "start": 1 + k}
            asked = reply(None, call("read_doc", arguments, id=f"{id_prefix}{q}_{k}"))
            turns += [asked, tool_result(asked.tool_calls[0], f"result {q}.{k}: " + "w " * words)]
        turns.append(reply(f"answer {q} é"))
    return turns


def test_a_follow_ups_settled_history_is_shortened_as_from_scratch() -> None:
    from agent.messages import user

    for policy in (Compaction(after_tokens=500), Compaction().within(4096, tools=250)):
        history = policy.shorten(conversation(3), keep_steps=0).messages
        follow_up = [*history, *conversation(1, id_prefix="n", words=1_500)[1:]]
        follow_up.insert(len(history), user("and then?"))
        for end in range(len(history) + 1, len(follow_up) + 1):
            request = follow_up[:end]
            assert policy.shorten(request, settled=len(history)) == policy.shorten(request)


def test_a_message_edited_into_a_new_one_is_measured_anew() -> None:
    import json
    from dataclasses import replace

    from agent.compaction import estimate
    from agent.models.base import estimate_usage

    first = conversation(1)[3]
    assert estimate(first) > 100  # counted (and remembered) before the edit
    edited = replace(first, content="short ü")
    assert estimate(edited) == (len(json.dumps(edited.to_dict(), ensure_ascii=False)) + 3) // 4
    usage = estimate_usage([edited], [], edited)
    assert usage.prompt_tokens == (len(json.dumps(edited.to_dict())) + 3) // 4


def test_the_same_observation_at_another_step_gets_that_steps_stub() -> None:
    from agent.messages import user

    once = conversation(1, steps=2)
    observation = once[-2]  # the second step's result
    policy = Compaction(keep_steps=0)
    assert policy.shorten(once).stubs[-1] == "[read p0.md:2- at step 2 — shortened]"
    # the same call and result answered at step 1 of another conversation
    other = [user("q"), once[-3], observation]
    assert tool_texts(policy.shorten(other).messages) == ["[read p0.md:2- at step 1 — shortened]"]
    assert tool_texts(policy.shorten(once).messages)[-1] == "[read p0.md:2- at step 2 — shortened]"


def test_earlier_turns_are_stubbed_as_from_scratch_as_a_conversation_grows_or_changes() -> None:
    from dataclasses import replace

    from agent.compaction import EarlierTurns

    policy = Compaction()
    for words in (300, 0):  # stubs shorter than the results, and longer
        turns = conversation(4, words=words)
        ends = [i for i, m in enumerate(turns) if m.role == "user"][1:] + [len(turns)]
        earlier = EarlierTurns()
        for end in ends:  # a follow-up after each question
            assert earlier.shorten(turns[:end]) == policy.shorten(turns[:end], keep_steps=0)
        edited = [*turns[:4], replace(turns[4], content="another result"), *turns[5:]]
        for history in (edited, conversation(2, id_prefix="o"), turns[: ends[0]], turns):
            assert earlier.shorten(history) == policy.shorten(history, keep_steps=0)
