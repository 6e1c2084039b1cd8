from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from agent.tools.registry import ToolContext, ToolError, ToolRegistry, make_tool, tool


@dataclass
class Secret(ToolContext):
    token: str


def search(
    ctx: Secret,
    query: str,
    limit: int = 5,
    ratio: float = 0.5,
    exact: bool = False,
    tags: list[str] | None = None,
    mode: Literal["fast", "slow"] = "fast",
    note: str | None = None,
) -> str:
    """Search the index.

    Args:
        query: What to look for.
        limit: How many hits at most.
    """
    return json.dumps([ctx.token, query, limit, ratio, exact, tags, mode, note])


def test_schema_is_derived_from_the_signature() -> None:
    schema = make_tool(search).schema()
    assert schema["function"]["name"] == "search"
    assert schema["function"]["description"] == "Search the index."
    params = schema["function"]["parameters"]
    assert params["properties"] == {
        "query": {"type": "string", "description": "What to look for."},
        "limit": {"type": "integer", "description": "How many hits at most.", "default": 5},
        "ratio": {"type": "number", "default": 0.5},
        "exact": {"type": "boolean", "default": False},
        "tags": {"type": "array", "items": {"type": "string"}},  # None: left out
        "mode": {"enum": ["fast", "slow"], "type": "string", "default": "fast"},
        "note": {"type": "string"},
    }
    assert params["required"] == ["query"]
    assert set(params) == {"type", "properties", "required"}  # nothing the model does not need


def test_a_tool_without_parameters_has_the_smallest_schema() -> None:
    def ping() -> str:
        """Answer pong."""
        return "pong"

    assert make_tool(ping).parameters == {"type": "object", "properties": {}}
    assert ToolRegistry([ping]).call("ping", "{}").output == "pong"


def test_a_required_parameter_that_may_be_null_says_so() -> None:
    def pick(choice: str | None) -> str:
        """Pick."""
        return str(choice)

    params = make_tool(pick).parameters
    assert params["properties"] == {"choice": {"type": ["string", "null"]}}
    assert params["required"] == ["choice"]
    assert ToolRegistry([pick]).call("pick", '{"choice": null}').output == "None"


def test_hidden_context_is_absent_from_schema_and_injected_at_call_time() -> None:
    registry = ToolRegistry([search])
    assert "ctx" not in json.dumps(registry.schemas())
    outcome = registry.call("search", '{"query": "q", "tags": ["a"]}', [Secret("s3cret")])
    assert not outcome.error
    assert json.loads(outcome.output) == ["s3cret", "q", 5, 0.5, False, ["a"], "fast", None]


def test_decorator_options_override_the_docstring() -> None:
    @tool(name="find", description="Find things.", params={"query": "The words."})
    def finder(query: str) -> str:
        """Ignored."""
        return query

    built = make_tool(finder)
    assert built.name == "find"
    assert built.description == "Find things."
    assert built.parameters["properties"]["query"]["description"] == "The words."
    assert finder("x") == "x"  # the function is unchanged


def test_a_brief_schema_keeps_the_descriptions_for_clients_only() -> None:
    built = make_tool(search, brief_schema=True)
    assert built.parameters["properties"]["query"] == {"type": "string"}
    described = built.described_parameters()["properties"]
    assert described["query"] == {"type": "string", "description": "What to look for."}
    assert described["limit"] == {
        "type": "integer",
        "default": 5,
        "description": "How many hits at most.",
    }
    assert described["ratio"] == {"type": "number", "default": 0.5}  # none written
    assert make_tool(search).described_parameters() == make_tool(search).parameters


def test_bad_arguments_become_observations() -> None:
    registry = ToolRegistry([search])
    context = [Secret("t")]
    cases = {
        "{not json": "error: the arguments are not valid JSON",
        "[1]": "error: the arguments must be a JSON object",
        "{}": "error: missing required argument 'query'",
        '{"query": "q", "limit": "abc"}': "error: argument 'limit' must be an integer, got 'abc'",
        '{"query": "q", "mode": "warp"}': "error: argument 'mode' must be one of 'fast', 'slow'",
        '{"query": "q", "bogus": 1}': "error: unknown argument bogus",
        '{"query": 3}': "error: argument 'query' must be a string, got 3",
    }
    for raw, start in cases.items():
        outcome = registry.call("search", raw, context)
        assert outcome.error, raw
        assert outcome.output.startswith(start), outcome.output
        assert outcome.output.endswith("Call search again with valid arguments.")


def test_numeric_strings_are_accepted_for_integers() -> None:
    outcome = ToolRegistry([search]).call("search", '{"query": "q", "limit": "7"}', [Secret("t")])
    assert json.loads(outcome.output)[2] == 7


def test_unknown_tool_lists_the_known_ones() -> None:
    outcome = ToolRegistry([search]).call("serch", "{}")
    assert outcome == outcome.__class__(
        "error: there is no tool 'serch'. Available tools: search.", True
    )


def test_exceptions_inside_tools_become_observations() -> None:
    def broken(x: int) -> str:
        """Divide."""
        return str(1 // x)

    def refusing() -> str:
        """Refuse."""
        raise ToolError("no: try list_docs")

    registry = ToolRegistry([broken, refusing])
    outcome = registry.call("broken", '{"x": 0}')
    assert outcome.error
    assert (
        outcome.output
        == "error: broken failed: ZeroDivisionError: integer division or modulo by zero"
    )
    assert registry.call("refusing", "") == outcome.__class__("no: try list_docs", True)


def test_terminal_marking_is_per_registry() -> None:
    registry = ToolRegistry([search])
    terminal = registry.with_terminal("search")
    assert terminal["search"].terminal
    assert not registry["search"].terminal


def test_schema_edge_types() -> None:
    from agent.tools.schema import json_schema

    assert json_schema(int | str | None) == {
        "anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]
    }
    assert json_schema(Literal["a", "b"] | None) == {
        "enum": ["a", "b", None],
        "type": ["string", "null"],
    }
    assert json_schema(tuple[int, ...]) == {"type": "array", "items": {"type": "integer"}}
    assert json_schema(list) == {"type": "array"}


def test_odd_numbers_from_the_model_are_observations_not_crashes() -> None:
    registry = ToolRegistry([search])
    huge = "9" * 5000
    for raw in ['"--5"', '"²"', '"1e3"', "true", f'"{huge}"', "12345678901234567890"]:
        outcome = registry.call("search", f'{{"query": "q", "limit": {raw}}}', [Secret("t")])
        assert outcome.error, raw
        assert outcome.output.startswith("error: argument 'limit' must be an integer")


def test_an_unreadable_number_in_the_arguments_is_an_observation() -> None:
    outcome = ToolRegistry([search]).call("search", f'{{"query": "q", "limit": {"9" * 5000}}}')
    assert outcome.error
    assert outcome.output == (
        "error: the arguments hold a number with more than 100 digits; send a smaller one. "
        "Call search again with valid arguments."
    )
