"""A damaged search index: telling damage from other failures, and getting out of its way.

The index checks itself when it opens (`store.connect_file`); a query that still fails
on damage (tables dropped while it is in use) deletes the file and runs again on a
rebuilt index (`recovering`). A file at the index's path that is not docsagent's is moved
aside unread (`set_aside`), never written to; a lock held by another process is named.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from agent.search import store


class Recoverable(Protocol):
    def _recover(self, exc: BaseException) -> None: ...


F = TypeVar("F", bound=Callable[..., Any])


def recovering(method: F) -> F:
    """A query that fails on a damaged index deletes it and runs again on a rebuilt one."""

    @functools.wraps(method)
    def recovering(self: Recoverable, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:
            if not is_damage(exc):
                raise
            self._recover(exc)
            return method(self, *args, **kwargs)

    return cast(F, recovering)


def reason(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return str(exc)


def busy(exc: BaseException) -> bool:
    """Whether `exc` says another process holds the index (not that it is damaged)."""
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)


def is_damage(exc: BaseException) -> bool:
    """Whether a query's failure says the index is damaged (not a bad query or a lock)."""
    if isinstance(exc, json.JSONDecodeError):
        return True
    if not isinstance(exc, sqlite3.DatabaseError) or busy(exc):
        return False
    if not isinstance(exc, sqlite3.OperationalError):
        return True  # SQLITE_CORRUPT, SQLITE_NOTADB
    text = str(exc)
    return any(sign in text for sign in DAMAGE_SIGNS)


DAMAGE_SIGNS = ("no such table", "no such column", "malformed", "corrupt", "vtable constructor")
"""What SQLite says when an index's tables are damaged or gone."""


def unkept(location: Path, exc: BaseException) -> str:
    """The notice when the index cannot be kept in its file."""
    if busy(exc):
        return (
            f"another process is updating the search index {location} (waited "
            f"{store.BUSY_TIMEOUT_S:g} s); indexing in memory for this run"
        )
    return (
        f"cannot keep the search index in {location.parent} ({reason(exc)}); "
        "indexing in memory for this run"
    )


def set_aside(path: Path) -> Path:
    """Move what is at `path` (a link, another application's file) out of the way, unread."""
    aside = path.with_name(f"{path.name}.not-docsagent-{time.time_ns()}")
    os.rename(path, aside)  # a link is moved itself, never the file it points to
    return aside


def remove(path: Path) -> None:
    for extra in ("", "-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)
