"""Reading a model's JSON arguments within limits: size, nesting depth and digits.

A model may send anything as a tool call's arguments: a number with thousands of digits,
lists nested 100,000 deep, megabytes of text. The registry, the `ask` printer and the TUI
read arguments only through `parse_arguments`, so what a model sent can neither crash
nor stall them; the registry turns the error into an observation for the model.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from agent.tools.schema import ArgumentError

MAX_ARGUMENT_CHARS = 100_000
"""Characters of arguments accepted for one tool call."""

MAX_DEPTH = 32
"""Levels of nested lists and objects accepted in arguments."""

MAX_DIGITS = 100
"""Digits accepted in one number of the arguments."""

# One pass, left to right: a quote, a bracket or a run of digits; from a quote, the string's
# end is found by `_STRING_END` (a quote after an even run of backslashes), so it is read
# once. As `"[^"\\]*(?:\\.[^"\\]*)*"` from every quote, an unterminated string of escaped
# quotes (`"\"\"\"...`) was quadratic: 16,000 characters took 20 s.
_TOKEN = re.compile(r'["\[\]{}]|[0-9]+')
_STRING_END = re.compile(r'(?<!\\)(?:\\\\)*"')


def parse_arguments(raw: str) -> Any:
    """The JSON value of `raw` (`{}` when blank).

    Raises ArgumentError, worded for the model, when `raw` is not JSON or is longer,
    deeper or holds longer numbers than the limits above (checked before parsing).
    """
    text = raw.strip() or "{}"
    if len(text) > MAX_ARGUMENT_CHARS:
        raise ArgumentError(
            f"the arguments are {len(text):,} characters long; at most "
            f"{MAX_ARGUMENT_CHARS:,} are accepted: send shorter values"
        )
    _check_shape(text)
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise ArgumentError(
            f"the arguments are not valid JSON ({exc.msg} at position {exc.pos}); "
            "send a JSON object"
        ) from None
    except (ValueError, RecursionError) as exc:
        raise ArgumentError(f"the arguments cannot be read ({exc})") from None


def _check_shape(text: str) -> None:
    """Raise ArgumentError for nesting or numbers past the limits (in strings they do not count)."""
    depth, at = 0, 0
    while (token := _TOKEN.search(text, at)) is not None:
        at, first = token.end(), token.group()[0]
        if first == '"':
            end = _STRING_END.search(text, at)
            if end is None:
                return  # a string that never ends: json.loads says so
            at = end.end()
        elif first in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise ArgumentError(
                    f"the arguments are nested more than {MAX_DEPTH} levels deep; "
                    "send a flat JSON object"
                )
        elif first in "]}":
            depth -= 1
        elif len(token.group()) > MAX_DIGITS:
            raise ArgumentError(
                f"the arguments hold a number with more than {MAX_DIGITS} digits; "
                "send a smaller one"
            )


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is out of range")
    return value
