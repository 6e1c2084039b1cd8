"""Reading the small files docsagent keeps its state in (settings, question history).

They are opened as the trace reader opens traces: only a regular file is read, so a FIFO
(which would block the start-up forever) or a device (`/dev/zero`, endless) is refused
at once; O_NONBLOCK and a second check on the open file cover a swap in between. A file
larger than the limit is refused too, unread: these files are never that big.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class StateFileError(Exception):
    """The file cannot be used; the message says why, in a few words."""


def read_state(path: Path, *, limit: int) -> bytes | None:
    """The bytes of `path`, None when there is no such file; StateFileError otherwise."""
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):  # nothing there (yet)
        return None
    except OSError as exc:
        raise StateFileError(exc.strerror or type(exc).__name__) from None
    if not stat.S_ISREG(mode):
        raise StateFileError(_kind(mode))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateFileError(exc.strerror or type(exc).__name__) from None
    with os.fdopen(fd, "rb") as stream:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise StateFileError(_kind(info.st_mode))
        if info.st_size > limit:
            raise StateFileError(f"larger than {_size(limit)}")
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise StateFileError(f"larger than {_size(limit)}")
    return data


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "it is a folder"
    if stat.S_ISFIFO(mode):
        return "it is a FIFO, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "it is a device, not a regular file"
    return "it is not a regular file"


def _size(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit // 1024} KiB"
