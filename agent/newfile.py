"""A file written beside a user's files: created, never replaced, no symlink followed.

Traces, exports and the TUI's ctrl+s all write through `open_new`. The name is opened
with O_CREAT | O_EXCL, which fails on anything already there, a symlink too (dangling or
not), so a user's own `report.md`, or a link planted under that name, is left alone: the
next free name (`report-2.md`) is taken instead and the caller names the file written.
`replace=True` (an explicit `--force`) removes the name itself first, never what a link
points to, and never a folder.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import IO

_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)

MAX_NUMBER = 1000
"""The highest number tried for a free name (`report-1000.md`) before giving up."""


def numbered(path: Path, number: int) -> Path:
    """`path` with `-number` before its suffix: `report.md` → `report-2.md`."""
    return path.with_name(f"{path.stem}-{number}{path.suffix}")


def create_new(path: Path, *, replace: bool = False, rename: bool = True) -> tuple[int, Path]:
    """A new file at `path`, opened for writing: its descriptor and the path it has.

    Args:
        path: the name wanted.
        replace: remove what is at `path` first (a file or a link, not a folder).
        rename: when `path` is taken, take the first free `numbered` name instead.

    Raises FileExistsError when the name is taken and neither `replace` nor `rename` is
    given (or no numbered name is free), IsADirectoryError when `replace` meets a folder,
    and the system's OSError when the folder cannot be written.
    """
    path = Path(path)
    if replace:
        _remove(path)
    candidates = [path]
    if rename and not replace:
        candidates += [numbered(path, n) for n in range(2, MAX_NUMBER + 1)]
    for candidate in candidates:
        try:
            return os.open(candidate, _FLAGS, 0o666), candidate
        except FileExistsError:
            continue
    raise FileExistsError(f"{path} already exists")


def open_new(
    path: Path, *, replace: bool = False, rename: bool = True, errors: str = "strict"
) -> tuple[IO[str], Path]:
    """A new file (see `create_new`) opened for writing UTF-8 text, and the path it has;
    `errors`: how characters UTF-8 cannot encode are written (`open`'s `errors`)."""
    fd, created = create_new(path, replace=replace, rename=rename)
    try:
        return os.fdopen(fd, "w", encoding="utf-8", errors=errors), created
    except BaseException:
        os.close(fd)
        raise


def write_new(path: Path, text: str, *, replace: bool = False, rename: bool = True) -> Path:
    """Write `text` to a new file at `path` (see `open_new`); the path written."""
    stream, written = open_new(path, replace=replace, rename=rename)
    with stream:
        stream.write(text)
    return written


def _remove(path: Path) -> None:
    """Remove the name `path` (a file or a link itself); a folder is refused."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(f"{path} is a folder")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
