"""The tool registry: JSON schemas from typed signatures, argument checks, hidden context.

A tool is a plain typed function. Its docstring's first paragraph is the description the
model sees; a Google-style ``Args:`` section (or ``params=`` on the decorator) describes
the parameters. A parameter annotated with a `ToolContext` subclass is filled in by the
runtime and never appears in the schema.

Schemas are sent with every request, so they say only what the model needs: no empty
`required`, no `additionalProperties` (unknown arguments are refused with an
observation anyway), and an optional `X | None = None` parameter is just an `X` the
model may leave out. A tool registered with `brief_schema=True` keeps its parameters'
descriptions out of that schema too; `Tool.described_parameters` has them, for clients
that show them once (MCP's tool list) rather than pay for them on every request.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.tools.arguments import parse_arguments
from agent.tools.schema import ArgumentError, check_value, json_schema

ToolFunction = Callable[..., Any]


class ToolContext:
    """Base of hidden context objects injected into tools by type."""


class ToolError(Exception):
    """Raised by a tool for an expected failure; the message is the observation."""


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call produced: the observation text and whether it is an error."""

    output: str
    error: bool = False
    value: Any = None


@dataclass(frozen=True)
class Tool:
    """A registered tool: the function, its schema and how to call it."""

    name: str
    description: str
    fn: ToolFunction
    parameters: dict[str, Any]
    types: dict[str, Any]
    context_params: dict[str, type[ToolContext]] = field(default_factory=dict)
    terminal: bool = False
    param_docs: dict[str, str] = field(default_factory=dict)
    """Each parameter's description (`Args:` or `params=`), in `parameters` or not."""

    def described_parameters(self) -> dict[str, Any]:
        """`parameters` with every parameter's description, also for a `brief_schema` tool."""
        properties = {
            name: {**prop, "description": self.param_docs[name]}
            if name in self.param_docs
            else prop
            for name, prop in self.parameters["properties"].items()
        }
        return {**self.parameters, "properties": properties}

    def schema(self) -> dict[str, Any]:
        """The tool as the chat-completions API wants it."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def tool(
    fn: ToolFunction | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    params: Mapping[str, str] | None = None,
    terminal: bool = False,
    brief_schema: bool = False,
) -> Any:
    """Mark a function as a tool; the function itself is returned unchanged.

    `brief_schema`: the schema sent to the model leaves the parameters' descriptions out.
    """

    def mark(f: ToolFunction) -> ToolFunction:
        f.__docsagent_tool__ = {  # type: ignore[attr-defined]
            "name": name,
            "description": description,
            "params": dict(params or {}),
            "terminal": terminal,
            "brief_schema": brief_schema,
        }
        return f

    return mark(fn) if fn is not None else mark


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The description (text before any section) and the `Args:` entries of a docstring."""
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    description: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    for line in lines:
        stripped = line.strip()
        if stripped.endswith(":") and stripped[:-1] in {"Args", "Arguments", "Returns", "Raises"}:
            section = stripped[:-1]
            continue
        if section is None:
            description.append(line)
        elif section in {"Args", "Arguments"} and stripped:
            head, sep, rest = stripped.partition(":")
            key = head.split("(")[0].strip()
            if (
                sep
                and key.isidentifier()
                and line.startswith((" ", "\t"))
                and not (current and line.startswith("        "))
            ):
                current = key
                args[current] = rest.strip()
            elif current:
                args[current] = f"{args[current]} {stripped}".strip()
    return " ".join(" ".join(description).split()), args


def make_tool(fn: ToolFunction, **overrides: Any) -> Tool:
    """Build a `Tool` from a typed function (and any `@tool` options on it)."""
    options = {**getattr(fn, "__docsagent_tool__", {}), **overrides}
    doc_description, doc_args = _parse_docstring(fn.__doc__ or "")
    params_doc = {**doc_args, **(options.get("params") or {})}
    brief = bool(options.get("brief_schema"))
    hints = typing.get_type_hints(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    param_types: dict[str, Any] = {}
    context_params: dict[str, type[ToolContext]] = {}
    for pname, param in inspect.signature(fn).parameters.items():
        annotation = hints.get(pname, str)
        if isinstance(annotation, type) and issubclass(annotation, ToolContext):
            context_params[pname] = annotation
            continue
        prop = json_schema(_leave_out_none(annotation, param.default))
        if pname in params_doc and not brief:
            prop["description"] = params_doc[pname]
        if param.default is inspect.Parameter.empty:
            required.append(pname)
        elif param.default is not None:
            prop["default"] = param.default
        properties[pname] = prop
        param_types[pname] = annotation
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    return Tool(
        name=options.get("name") or fn.__name__,
        description=options.get("description") or doc_description,
        fn=fn,
        parameters=parameters,
        types=param_types,
        context_params=context_params,
        terminal=bool(options.get("terminal")),
        param_docs={p: d for p, d in params_doc.items() if p in properties},
    )


def _leave_out_none(annotation: Any, default: Any) -> Any:
    """`X` for a parameter `X | None = None`: leaving it out is how the model says None."""
    if default is not None or typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return annotation
    members = [a for a in typing.get_args(annotation) if a is not type(None)]
    return members[0] if len(members) == 1 else annotation


class ToolRegistry:
    """Tools by name; checks the model's arguments and calls the tool with its context."""

    def __init__(self, tools: Iterable[ToolFunction | Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for item in tools:
            self.register(item)

    def register(self, fn: ToolFunction | Tool, **overrides: Any) -> Tool:
        """Add a function (or a built `Tool`); returns the `Tool`."""
        built = fn if isinstance(fn, Tool) else make_tool(fn, **overrides)
        self._tools[built.name] = built
        return built

    def tool(self, fn: ToolFunction | None = None, **options: Any) -> Any:
        """Decorator form of `register`; returns the function unchanged."""

        def add(f: ToolFunction) -> ToolFunction:
            self.register(f, **options)
            return f

        return add(fn) if fn is not None else add

    def with_terminal(self, *names: str) -> ToolRegistry:
        """A copy in which the named tools end the run (for one agent only)."""
        missing = [n for n in names if n not in self._tools]
        if missing:
            raise KeyError(f"no tool named {', '.join(missing)}")
        return ToolRegistry(
            dataclasses.replace(t, terminal=t.terminal or t.name in names)
            for t in self._tools.values()
        )

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        """Every tool's schema, in registration order."""
        return [t.schema() for t in self._tools.values()]

    def call(self, name: str, arguments: str, context: Sequence[ToolContext] = ()) -> ToolOutcome:
        """Check the arguments, run the tool; every failure comes back as an observation."""
        found = self._tools.get(name)
        if found is None:
            known = ", ".join(self._tools) or "none"
            return ToolOutcome(f"error: there is no tool '{name}'. Available tools: {known}.", True)
        try:
            kwargs = self._arguments(found, arguments)
        except ArgumentError as exc:
            return ToolOutcome(f"error: {exc}. Call {name} again with valid arguments.", True)
        for pname, ctype in found.context_params.items():
            value = next((c for c in context if isinstance(c, ctype)), None)
            if value is None:
                return ToolOutcome(f"error: {name} is not available in this run.", True)
            kwargs[pname] = value
        try:
            result = found.fn(**kwargs)
        except ToolError as exc:
            return ToolOutcome(str(exc), True)
        except ArgumentError as exc:
            return ToolOutcome(f"error: {exc}. Call {name} again with valid arguments.", True)
        except Exception as exc:  # a tool bug is still an observation, never a crash
            return ToolOutcome(f"error: {name} failed: {type(exc).__name__}: {exc}", True)
        text = result if isinstance(result, str) else json.dumps(result, default=str)
        return ToolOutcome(text, False, result)

    def _arguments(self, found: Tool, arguments: str) -> dict[str, Any]:
        data = parse_arguments(arguments)
        if not isinstance(data, dict):
            raise ArgumentError("the arguments must be a JSON object")
        unknown = sorted(set(data) - set(found.types))
        if unknown:
            expected = ", ".join(found.types) or "no arguments"
            raise ArgumentError(f"unknown argument {', '.join(unknown)} (expected: {expected})")
        missing = [p for p in found.parameters.get("required", ()) if p not in data]
        if missing:
            raise ArgumentError(f"missing required argument {', '.join(repr(m) for m in missing)}")
        return {key: check_value(key, value, found.types[key]) for key, value in data.items()}
