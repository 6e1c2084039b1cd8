"""The key list of the help screen, read from the screens' own `BINDINGS` so it cannot go stale.

Each binding gives one row: its keys as a person types them, and what it does (the
binding's tooltip, else the first line of its action's docstring, else its footer
word). Rows that do the same thing in a row share one line (`1 / 2 / 3`).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable

from textual.binding import Binding

KEY_NAMES = {
    "enter": "Enter",
    "escape": "Escape",
    "space": "Space",
    "tab": "Tab",
    "home": "Home",
    "end": "End",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "plus": "+",
    "minus": "-",
    "equals_sign": "=",
    "question_mark": "?",
}

KeyRow = tuple[str, str]
"""(keys, what they do)."""


def key_name(key: str) -> str:
    """One key as a person reads it: `ctrl+q`, `Escape`, `F1`, `?`, `→`."""
    *modifiers, last = key.split("+")
    name = KEY_NAMES.get(last) or (last.upper() if last[:1] == "f" and last[1:].isdigit() else last)
    return "+".join([*modifiers, name])


def keys_label(binding: Binding) -> str:
    """The binding's keys: its `key_display`, else each key it is bound to."""
    if binding.key_display:
        return binding.key_display
    return " or ".join(key_name(key.strip()) for key in binding.key.split(","))


def action_help(owner: type, binding: Binding) -> str:
    """What the binding does: its tooltip, its action's docstring, or its footer word."""
    if binding.tooltip:
        return binding.tooltip
    name = binding.action.split("(", 1)[0].rsplit(".", 1)[-1]
    method = getattr(owner, f"action_{name}", None)
    doc = inspect.getdoc(method) if method is not None else None
    if doc:
        return doc.splitlines()[0].rstrip(".")
    return binding.description


def key_rows(owner: type, *, where: str = "") -> list[KeyRow]:
    """The rows for `owner.BINDINGS` (hidden bindings too); `where` follows the keys."""
    bindings = [item for item in getattr(owner, "BINDINGS", ()) if isinstance(item, Binding)]
    return merge_rows(
        (keys_label(binding) + where, action_help(owner, binding)) for binding in bindings
    )


def merge_rows(rows: Iterable[KeyRow]) -> list[KeyRow]:
    """Join neighbouring rows that say the same thing: `1 / 2 / 3`."""
    merged: list[KeyRow] = []
    for keys, text in rows:
        if merged and merged[-1][1] == text:
            merged[-1] = (f"{merged[-1][0]} / {keys}", text)
        else:
            merged.append((keys, text))
    return merged
