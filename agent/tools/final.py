"""Typed final output: a built-in `final_answer` tool validated into a dataclass."""

from __future__ import annotations

import dataclasses
import json
import typing
from typing import Any

from agent.tools.registry import Tool, ToolRegistry
from agent.tools.schema import build_dataclass, dataclass_schema

FINAL_TOOL = "final_answer"


class FinalAnswer:
    """The final-answer tool for one output type (a dataclass)."""

    def __init__(self, output_type: type) -> None:
        if not (dataclasses.is_dataclass(output_type) and isinstance(output_type, type)):
            raise TypeError("output_type must be a dataclass")
        self.output_type = output_type

    def tool(self) -> Tool:
        """The terminal tool whose arguments are the output type's fields."""
        output_type = self.output_type

        def final_answer(**fields: Any) -> Any:
            return build_dataclass(output_type, fields)

        schema = dataclass_schema(output_type)
        schema["additionalProperties"] = False
        return Tool(
            name=FINAL_TOOL,
            description="Give the final answer; this ends the run.",
            fn=final_answer,
            parameters=schema,
            types=typing.get_type_hints(output_type),
            terminal=True,
        )

    def extend(self, tools: ToolRegistry) -> ToolRegistry:
        """A registry with the final-answer tool added."""
        extended = ToolRegistry(tools[name] for name in tools.names)
        extended.register(self.tool())
        return extended

    def as_dict(self, value: Any) -> dict[str, Any]:
        """The output value as a JSON-ready dict."""
        return dataclasses.asdict(value)

    def answer(self, value: Any) -> str:
        """The answer text: the `answer` field if the type has one, else the JSON."""
        data = self.as_dict(value)
        if isinstance(data.get("answer"), str):
            return str(data["answer"])
        return json.dumps(data)
