"""Reading the small files docsagent keeps its state in (settings, question history).

They are opened as the trace reader opens traces (`agent.files`): only a regular file is
read, so a FIFO (which would block the start-up forever) or a device (`/dev/zero`,
endless) is refused at once. A file larger than the limit is refused too, unread: these
files are never that big.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent import NotRegularFile, open_regular


class StateFileError(Exception):
    """The file cannot be used; the message says why, in a few words."""


def read_state(path: Path, *, limit: int) -> bytes | None:
    """The bytes of `path`, None when there is no such file; StateFileError otherwise."""
    try:
        stream = open_regular(path)
    except (FileNotFoundError, NotADirectoryError):  # nothing there (yet)
        return None
    except NotRegularFile as exc:
        raise StateFileError(exc.kind) from None
    except OSError as exc:
        raise StateFileError(exc.strerror or type(exc).__name__) from None
    with stream:
        if os.fstat(stream.fileno()).st_size > limit:
            raise StateFileError(f"larger than {_size(limit)}")
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise StateFileError(f"larger than {_size(limit)}")
    return data


def _size(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit // 1024} KiB"
