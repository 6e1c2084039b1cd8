"""A long conversation costs the agent no more per question (`make bench`).

The session of `bench_session.py` without the TUI: questions of 10 tool calls
(`search_docs` and `read_doc`, two a step) and a ~6 KB answer, through `Session.ask`,
with the default compaction. Then the agent alone (`Agent.run`, no trace) answers one
more such question after 2 and after 29 earlier questions, 15 times each, in turns;
before each, as in a session, it has answered one after the history a question shorter.
The least CPU time of each is compared. Target: after 29 ≤ 1.1× after 2 (the kept
history is sent with every request, so only what changed may cost more).
"""

from __future__ import annotations

import time
from pathlib import Path

from agent import Config, build_agent
from agent.config import default_docs
from agent.loop import Agent
from agent.messages import Message
from agent.session import Session
from agent.testing import ScriptedModel
from tests.bench.bench_session import CALLS_PER_QUESTION, CALLS_PER_STEP, script

EARLIER = 29
REPEATS = 15
RATIO_TARGET = 1.1
TURNS = CALLS_PER_QUESTION // CALLS_PER_STEP + 1  # a question's scripted turns


def answer(agent: Agent, history: list[Message], turns: list[Message]) -> float:
    """The CPU time (s) the agent takes to answer one question after `history`."""
    agent.model = ScriptedModel(turns, stream=True)
    began = time.process_time()
    events = list(agent.run("one more question?", history=history))
    spent = time.process_time() - began
    assert getattr(events[-1], "stop_reason", None) == "answered"
    return spent


def test_a_long_conversation_costs_the_agent_no_more_per_question(tmp_path: Path) -> None:
    config = Config(docs=default_docs(), model="script:bench", trace_dir=tmp_path)
    turns = script()
    session = Session(build_agent(config, model=ScriptedModel(turns)), trace_dir=tmp_path)
    histories: list[list[Message]] = []
    for number in range(EARLIER + 1):
        histories.append(session.history)
        if number < EARLIER:
            list(session.ask(f"question {number + 1}: how do I use part {number + 1}?"))
            assert session.ending().stop_reason == "answered"
    last = turns[EARLIER * TURNS : (EARLIER + 1) * TURNS]
    best = {2: float("inf"), EARLIER: float("inf")}
    for _ in range(REPEATS):
        for earlier in best:
            agent = build_agent(config, model=ScriptedModel(last))
            answer(agent, histories[earlier - 1], last)
            best[earlier] = min(best[earlier], answer(agent, histories[earlier], last))
    short, long = best[2], best[EARLIER]
    ratio = long / short
    print(
        f"\nlong session: agent CPU per question after {EARLIER} / after 2 earlier questions: "
        f"{long * 1000:.1f} / {short * 1000:.1f} ms = {ratio:.2f}x (target <= {RATIO_TARGET}x)"
    )
    assert ratio <= RATIO_TARGET
