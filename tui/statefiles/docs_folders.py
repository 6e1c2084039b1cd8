"""The docs folders this user has asked docsagent about: what `rerun` reads without --docs.

A trace names the folder its run read, and traces are shared: one from elsewhere, or one
edited, can name any folder (`/etc`, a private notes folder, `/`, `../..`). So `rerun`
reads the folder a trace names only when this user has used it with `ask`, `eval` or the
TUI (or it is the bundled manual); otherwise it asks for --docs. The folders are kept in
a small state file, one JSON string a line, newest last; a file that cannot be read
counts as no folders (rerun then asks for --docs), never as an error.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from agent import write_atomic
from tui.statefiles.statefile import StateFileError, read_state

MAX_FOLDERS = 200
MAX_BYTES = 2**20


def _key(folder: Path) -> str | None:
    """The folder's real, absolute path, as it is kept; None when it cannot be resolved."""
    try:
        return os.path.realpath(folder.expanduser())
    except (OSError, ValueError):
        return None


def used_folders(file: Path) -> list[str]:
    """The folders kept in `file`, oldest first (none if it cannot be read)."""
    try:
        data = read_state(file, limit=MAX_BYTES)
    except StateFileError:
        return []
    folders: list[str] = []
    for line in (data or b"").decode("utf-8", errors="replace").splitlines():
        try:
            folder = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(folder, str) and folder.startswith("/"):
            folders.append(folder)
    return folders


def was_used(file: Path, folder: Path) -> bool:
    """Whether this user has asked docsagent about `folder` (after resolving links)."""
    key = _key(folder)
    return key is not None and key in used_folders(file)


def remember(file: Path, folder: Path) -> None:
    """Keep `folder` as one this user chose; a failure to save is silent (rerun asks)."""
    key = _key(folder)
    if key is None:
        return
    folders = [f for f in used_folders(file) if f != key] + [key]
    text = "".join(json.dumps(f, ensure_ascii=False) + "\n" for f in folders[-MAX_FOLDERS:])
    with contextlib.suppress(OSError, StateFileError):
        if read_state(file, limit=MAX_BYTES) is None and os.path.lexists(file):
            return  # a dangling link: left alone
        write_atomic(file, text)
