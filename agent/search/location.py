"""Which index file a docs folder uses: one SQLite file per docs folder and version of how
docs are read (`current_version`), named from a hash of the folder's real path and that
version, so that two docsagent versions used side by side never rebuild each other's
index (nor has a long run cite the lines of the other's reading); only the
`KEPT_INDEX_FILES` most recently used of a folder's files are kept."""

from __future__ import annotations

import hashlib
import os
import re
import zlib
from contextlib import suppress
from functools import cache
from pathlib import Path

FORMAT_VERSION = 2
"""Bump when the tables, the tokenizer or the way docs are split or read changes."""

READERS = (
    "search/store.py",
    "search/sections.py",
    "tools/corpus.py",
    "tools/textscan.py",
)
"""The modules that decide what an index holds, beside `agent/` and every module of
`agent/readers/`: how docs are read (the corpus reads a doc's text with the readers and
splits it into lines where `readers/lines.py` says a line breaks), split into sections and
stored. A change to any of them rebuilds indexes, even one that forgot to bump
`FORMAT_VERSION`, so that an index never cites lines of an older reading."""


PACKAGE = Path(__file__).resolve().parents[1]


def reader_sources(package: Path = PACKAGE) -> list[str]:
    """The `READERS` and the modules of `readers/`, as paths relative to `package`."""
    with suppress(OSError):
        readers = sorted(f"readers/{p.name}" for p in (package / "readers").glob("*.py"))
        return [*READERS, *readers]
    return list(READERS)


def index_version(package: Path = PACKAGE) -> int:
    """`FORMAT_VERSION` and a checksum of the `reader_sources`, as one positive integer."""
    digest = zlib.crc32(str(FORMAT_VERSION).encode())
    for name in reader_sources(package):
        with suppress(OSError):  # installed without its sources: the format version alone
            digest = zlib.crc32((package / name).read_bytes(), digest)
    return digest & 0x7FFFFFFF or FORMAT_VERSION


@cache
def current_version() -> int:
    """The version an index is stamped with (`index_version` of this docsagent, read once,
    on first use); one made with another is rebuilt."""
    return index_version()


KEPT_INDEX_FILES = 3
"""Index files kept for one docs folder, each of another version: the most recently
used. A release and a checkout used side by side keep theirs; older ones are deleted."""


def index_file(cache_dir: Path, root: Path) -> Path:
    """The index file for the docs folder `root`: its name, a hash of its real path, and
    the `current_version` of how docs are read."""
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = re.sub(r"[^\w.-]+", "-", os.path.basename(real)).strip(".-")[:40] or "docs"
    return cache_dir / f"{name}-{digest}-{current_version():08x}.sqlite"


def keep_recent(path: Path) -> None:
    """Mark the index file `path` used now, and delete the same folder's files of other
    versions past the `KEPT_INDEX_FILES` most recently used (a process that has one open
    goes on reading it). Failures are ignored: the files are only a cache."""
    same = re.compile(re.escape(path.name.rsplit("-", 1)[0]) + r"(-[0-9a-f]{8})?\.sqlite")
    with suppress(OSError):
        os.utime(path)
        others = [p for p in path.parent.iterdir() if p != path and same.fullmatch(p.name)]
        used = {p: _mtime(p) for p in others}
        for old in sorted(others, key=lambda p: -used[p])[KEPT_INDEX_FILES - 1 :]:
            for extra in ("", "-wal", "-shm"):
                with suppress(OSError):
                    Path(f"{old}{extra}").unlink(missing_ok=True)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0  # gone meanwhile: the first to delete
