"""A file of ours replaced whole: written beside itself, flushed to disk, renamed over.

The state files (settings, question history, docs folders) and the endpoints cache are
rewritten whole each time. The text goes to a new temporary file in the same folder,
created with O_EXCL under a random name (so never through a link planted there, and
readable by this user only), is fsynced, and is renamed over the name with os.replace():
a reader, or a crash, meets the old file or the new one, never half of one. A link at the
name is replaced itself, its target left untouched. On any failure the temporary goes.
Files beside a user's own (traces, exports) are never replaced: see `agent.newfile`.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with a file holding `text` (UTF-8), whole or not at all.

    Missing folders above it are created. Raises the system's OSError (IsADirectoryError
    when `path` is a folder) and UnicodeEncodeError; `path` is then as it was.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())  # on disk before the rename makes it the file
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
