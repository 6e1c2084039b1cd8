"""Opening a file only when it is a regular file: traces, question sets, state files.

A FIFO would block the reader forever and a device (`/dev/zero`) never ends, so anything
that is not a regular file is refused before it is opened; O_NONBLOCK and a second check
on the open file cover a swap in between. Each caller words the refusal in its own terms.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(Exception):
    """The path is there but is not a regular file (a folder, a FIFO, a device, ...)."""

    def __init__(self, file: Path, mode: int) -> None:
        super().__init__(f"{file}: {self.describe(mode)}")
        self.file, self.mode = file, mode

    @property
    def folder(self) -> bool:
        """Whether it is a folder."""
        return stat.S_ISDIR(self.mode)

    @property
    def kind(self) -> str:
        """What it is, in a few words ("it is a FIFO, not a regular file")."""
        return self.describe(self.mode)

    @staticmethod
    def describe(mode: int) -> str:
        if stat.S_ISDIR(mode):
            return "it is a folder"
        if stat.S_ISFIFO(mode):
            return "it is a FIFO, not a regular file"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            return "it is a device, not a regular file"
        return "it is not a regular file"


def open_regular(file: Path) -> IO[bytes]:
    """`file` opened for reading in binary; NotRegularFile when it is not a regular file,
    and the system's OSError (FileNotFoundError, PermissionError, ...) when it cannot be
    opened."""
    mode = file.stat().st_mode
    if not stat.S_ISREG(mode):
        raise NotRegularFile(file, mode)
    fd = os.open(file, _FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(file, mode)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
