"""The TUI's remembered settings: a small JSON file in the user's config folder.

Only what a person chooses inside the TUI and expects to find again is kept here (the
theme); everything the command-line options cover stays with them. A file that cannot
be read gives the defaults and one line saying why, never an exception.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from agent import write_atomic
from tui.statefiles.statefile import StateFileError, read_state


@dataclass(frozen=True)
class Settings:
    """What the TUI remembers across launches; None means Textual's default."""

    theme: str | None = None


MAX_SETTINGS_BYTES = 2**20
"""A settings file larger than this (1 MiB) is not one docsagent wrote; it is left unread."""


def load_settings(path: Path) -> tuple[Settings, str | None]:
    """The settings in `path` (defaults when there is none) and a notice if it is damaged."""
    try:
        raw = read_state(path, limit=MAX_SETTINGS_BYTES)
        if raw is None:
            return Settings(), None
        text = raw.decode("utf-8")
    except (StateFileError, UnicodeDecodeError) as exc:
        return Settings(), _damaged(path, _reason(exc))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return Settings(), _damaged(path, f"not JSON: {exc.msg} at line {exc.lineno}")
    except RecursionError:
        return Settings(), _damaged(path, "nested too deeply")
    except ValueError as exc:  # a number too long to read, say
        return Settings(), _damaged(path, str(exc)[:100])
    if not isinstance(data, dict):
        return Settings(), _damaged(path, "not a JSON object")
    theme = data.get("theme")
    if theme is not None and not isinstance(theme, str):
        return Settings(), _damaged(path, '"theme" is not a string')
    return Settings(theme=theme), None


def save_settings(path: Path, settings: Settings) -> str | None:
    """Write `settings` to `path` (other keys in the file are kept); a line on failure."""
    try:
        data = json.loads((read_state(path, limit=MAX_SETTINGS_BYTES) or b"{}").decode("utf-8"))
    except StateFileError as exc:  # a FIFO or a device there is left alone
        return f"cannot save the settings to {path}: {exc}"
    except (UnicodeDecodeError, ValueError, RecursionError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    data["theme"] = settings.theme
    try:
        write_atomic(path, json.dumps(data, indent=2) + "\n")  # a crash never leaves half a file
    except OSError as exc:
        return f"cannot save the settings to {path}: {_reason(exc)}"
    return None


def _damaged(path: Path, reason: str) -> str:
    return f"the settings file {path} cannot be used ({reason}); using the defaults"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
