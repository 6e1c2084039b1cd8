"""Python type annotations to JSON Schema, and checking a model's values against them.

Written by hand on purpose: a pydantic version with the same schemas, the same strictness
and the same messages came out as long (more glue around pydantic's error locations than
it saved) and added pydantic's import to every offline start.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import re
import types
import typing
from typing import Any, Literal, Union


class ArgumentError(ValueError):
    """A value the model sent does not fit the tool's signature."""


_SIMPLE: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _is_union(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    return origin is Union or origin is types.UnionType


def json_schema(annotation: Any) -> dict[str, Any]:
    """The JSON Schema for an annotation: str, int, float, bool, list, Literal, X | None."""
    if annotation in _SIMPLE:
        return {"type": _SIMPLE[annotation]}
    if annotation is type(None):
        return {"type": "null"}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Literal:
        values = list(args)
        kinds = {_SIMPLE.get(type(v), "string") for v in values}
        schema: dict[str, Any] = {"enum": values}
        if len(kinds) == 1:
            schema["type"] = kinds.pop()
        return schema
    if _is_sequence(annotation):
        item = _item_type(annotation)
        return {"type": "array"} if item is Any else {"type": "array", "items": json_schema(item)}
    if _is_union(annotation):
        members = [a for a in args if a is not type(None)]
        if len(members) == 1:
            inner = json_schema(members[0])
            if "enum" in inner:
                inner = {**inner, "enum": [*inner["enum"], None]}
            if "type" in inner and isinstance(inner["type"], str):
                return {**inner, "type": [inner["type"], "null"]}
            return {"anyOf": [inner, {"type": "null"}]}
        return {"anyOf": [json_schema(m) for m in args]}
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        return dataclass_schema(annotation)
    raise TypeError(f"unsupported parameter type for a tool: {annotation!r}")


def _is_sequence(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    return origin in (list, tuple, collections.abc.Sequence) or annotation in (list, tuple)


def _item_type(annotation: Any) -> Any:
    """The element type of list[X], tuple[X, ...] or Sequence[X] (Any when bare)."""
    args = typing.get_args(annotation)
    if (
        typing.get_origin(annotation) is tuple
        and args
        and not (len(args) == 2 and args[1] is Ellipsis)
    ):
        raise TypeError(f"fixed-length tuples are not supported for tools; use list: {annotation}")
    return args[0] if args else Any


def dataclass_schema(cls: type) -> dict[str, Any]:
    """An object schema for a dataclass's fields."""
    hints = typing.get_type_hints(cls)
    properties = {}
    required = []
    for f in dataclasses.fields(cls):
        properties[f.name] = json_schema(hints[f.name])
        no_default = f.default is dataclasses.MISSING
        if no_default and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    return {"type": "object", "properties": properties, "required": required}


def _describe(annotation: Any) -> str:
    schema = json_schema(annotation)
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    kind = schema.get("type", "value")
    names = {"integer": "an integer", "number": "a number", "string": "a string"}
    names |= {"boolean": "true or false", "array": "a list", "object": "an object"}
    if isinstance(kind, list):
        return " or ".join(names.get(k, str(k)) for k in kind if k != "null") + " (or null)"
    return names.get(str(kind), str(kind))


def check_value(name: str, value: Any, annotation: Any) -> Any:
    """Return `value` converted to `annotation`, or raise `ArgumentError` saying what is wrong."""
    if annotation is Any:
        return value
    wrong = ArgumentError(f"argument '{name}' must be {_describe(annotation)}, got {_show(value)}")
    if _is_union(annotation):
        args = typing.get_args(annotation)
        if value is None and type(None) in args:
            return None
        for member in args:
            if member is type(None):
                continue
            try:
                return check_value(name, value, member)
            except ArgumentError:
                continue
        raise wrong
    origin = typing.get_origin(annotation)
    if origin is Literal:
        if value in typing.get_args(annotation):
            return value
        raise wrong
    if annotation is bool:
        if isinstance(value, bool):
            return value
        raise wrong
    if annotation is int:
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**18:
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and re.fullmatch(r"\s*-?[0-9]{1,18}\s*", value):
            return int(value)
        raise wrong
    if annotation is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise wrong
    if annotation is str:
        if isinstance(value, str):
            return value
        raise wrong
    if _is_sequence(annotation):
        if not isinstance(value, list):
            raise wrong
        item = _item_type(annotation)
        return [check_value(f"{name}[{i}]", v, item) for i, v in enumerate(value)]
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        if not isinstance(value, dict):
            raise wrong
        return build_dataclass(annotation, value, prefix=f"{name}.")
    return value


def build_dataclass(cls: type, data: dict[str, Any], *, prefix: str = "") -> Any:
    """Validate `data` against a dataclass's fields and build it."""
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ArgumentError(f"unknown field {', '.join(prefix + u for u in unknown)}")
    schema = dataclass_schema(cls)
    missing = [prefix + f for f in schema["required"] if f not in data]
    if missing:
        raise ArgumentError(f"missing required argument {', '.join(missing)}")
    values = {k: check_value(prefix + k, v, hints[k]) for k, v in data.items()}
    return cls(**values)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
