"""Hostile tool arguments: read within limits, answered with an observation, never a crash."""

from __future__ import annotations

import pytest

from agent.compaction import describe
from agent.events import RunFinished, ToolCallFinished
from agent.loop import Agent
from agent.messages import Message
from agent.testing import ScriptedModel, call, reply
from agent.tools.arguments import MAX_ARGUMENT_CHARS, MAX_DEPTH, MAX_DIGITS, parse_arguments
from agent.tools.docs import DocsContext, docs_registry
from agent.tools.schema import ArgumentError

DEEP = "[" * 40_000 + "]" * 40_000  # far past Python's recursion limit, within the size limit
HUGE_NUMBER = "9" * 5000


def test_arguments_within_the_limits_are_read_as_json() -> None:
    assert parse_arguments("") == {}
    assert parse_arguments('  {"path": "a.md", "start": 3}  ') == {"path": "a.md", "start": 3}
    nested = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert parse_arguments(f'{{"x": {nested[1:-1]}}}') == {"x": eval(nested[1:-1])}
    assert parse_arguments(f'{{"n": {"9" * MAX_DIGITS}}}') == {"n": int("9" * MAX_DIGITS)}
    # brackets and digits inside strings are text, not structure
    text = "[" * 1000 + "1" * 1000
    assert parse_arguments(f'{{"keyword": "{text}", "q": "\\"[["}}') == {
        "keyword": text,
        "q": '"[[',
    }


@pytest.mark.parametrize(
    "raw, message",
    [
        (DEEP, f"nested more than {MAX_DEPTH} levels deep"),
        ('{"a": ' + "{" * 40 + "}" * 40 + "}", f"nested more than {MAX_DEPTH} levels deep"),
        (f'{{"start": {HUGE_NUMBER}}}', f"a number with more than {MAX_DIGITS} digits"),
        (f'{{"start": 0.{HUGE_NUMBER}}}', f"a number with more than {MAX_DIGITS} digits"),
        ('{"start": 1e999}', "cannot be read (the number 1e999 is out of range)"),
        ('{"start": NaN}', "cannot be read (NaN is not a JSON number)"),
        ('{"start": -Infinity}', "cannot be read (-Infinity is not a JSON number)"),
        ('{"keyword": "' + "x" * MAX_ARGUMENT_CHARS + '"}', "characters long; at most 100,000"),
        ('{"keyword": ', "not valid JSON (Expecting value at position 11)"),
    ],
)
def test_arguments_beyond_the_limits_are_refused_with_a_reason(raw: str, message: str) -> None:
    with pytest.raises(ArgumentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_arguments(raw)


def test_hostile_arguments_through_the_scripted_model_end_in_an_answer(ctx: DocsContext) -> None:
    model = ScriptedModel(
        [
            reply(
                None,
                call("read_doc", f'{{"path": "guide.md", "start": {HUGE_NUMBER}}}'),
                call("grep_docs", DEEP),
                call("grep_docs", "[" * 100_000 + "]" * 100_000),
                call("grep_docs", '{"keyword": "' + "x" * 200_000 + '"}'),
                call("read_doc", '{"path": "guide.md", "end": 1e999}'),
            ),
            reply("Requests time out after five seconds (guide.md:7)."),
        ]
    )
    events = list(Agent(model, docs_registry(), context=[ctx]).run("timeouts?"))
    final = events[-1]
    assert isinstance(final, RunFinished) and final.stop_reason == "answered"
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.error, e.output.split(";")[0].split(". Call")[0]) for e in finished] == [
        (True, "error: the arguments hold a number with more than 100 digits"),
        (True, "error: the arguments are nested more than 32 levels deep"),
        (True, "error: the arguments are 200,000 characters long"),
        (True, "error: the arguments are 200,015 characters long"),
        (True, "error: the arguments cannot be read (the number 1e999 is out of range)"),
    ]
    assert all(
        e.output.endswith("Call read_doc again with valid arguments.") for e in finished[::4]
    )
    seen: list[Message] = model.requests[1]
    assert [m.content for m in seen if m.role == "tool"] == [e.output for e in finished]


def test_compaction_describes_a_call_whose_arguments_break_the_limits() -> None:
    assert describe(call("grep_docs", "[" * 100_000 + "]" * 100_000)) == "searched for ''"
    assert describe(call("read_doc", f'{{"path": "a.md", "start": {HUGE_NUMBER}}}')) == "read :1-"
