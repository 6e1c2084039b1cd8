"""The docs folder as a sandbox: walk it, name its files safely, read one file inside it.

Every read goes through `read_inside`, which checks at the time of reading, not only at
start-up, that the file is a regular file whose real path lies inside the folder. What
is neither a regular file nor a symlink is refused unopened (opening a device can have
effects); a symlink must lead inside. The file is opened without following a last
symlink and without blocking (a FIFO swapped in cannot hang the read), checked again
with `fstat`, and its path as the kernel holds it for the descriptor must lie inside, so
a folder on the way swapped for a symlink is caught whenever it happens (without /proc,
the real path and inode are compared instead). At most `limit` bytes are read, so
`/dev/zero` or a growing file cannot fill memory.

`walk` is iterative, so a deep folder cannot exhaust the stack, and it reports what it
cannot open instead of failing. `escape_name` makes a file name printable and valid
UTF-8 whatever bytes the file system holds, and tells every two names apart.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass

FileKey = tuple[int, int, int, int, int]
"""What identifies a file's content without reading it: device, inode, size, mtime, ctime."""

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
PROC_FD = "/proc/self/fd"
_CHUNK = 1 << 20
OUTSIDE = "it leads outside the docs folder"
NOT_REGULAR = "it is not a regular file"


class Unreadable(Exception):
    """A file that cannot be read now; `name` is its shown name, the message says why."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(reason)
        self.name = name
        self.reason = reason


@dataclass(frozen=True)
class Walked:
    """What `walk` found: files kept (relative, `/`-separated) and what it could not open."""

    files: list[str]
    skipped: list[Unreadable]


def walk(root: str, keep: Callable[[str], bool]) -> Walked:
    """Every file under `root` whose relative path `keep` accepts, hidden entries left out.

    Symlinked folders are not followed; a symlinked file counts only if its target is a
    regular file inside `root`. Folders that cannot be listed (permission denied, a path
    too long, gone) are skipped and reported.
    """
    files: list[str] = []
    skipped: list[Unreadable] = []
    pending = [""]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(os.path.join(root, folder) if folder else root) as listing:
                entries = list(listing)
        except OSError as exc:
            skipped.append(Unreadable(escape_name(folder + "/"), reason_for(exc)))
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            rel = f"{folder}/{name}" if folder else name
            try:
                if entry.is_symlink():
                    if os.path.isdir(entry.path) or not keep(rel):
                        continue  # a linked folder is not followed
                    if (why := _link_problem(root, entry.path)) is None:
                        files.append(rel)
                    else:
                        skipped.append(Unreadable(escape_name(rel), why))
                elif entry.is_dir(follow_symlinks=False):
                    pending.append(rel)
                elif entry.is_file(follow_symlinks=False):
                    if keep(rel):
                        files.append(rel)
                elif keep(rel):  # a FIFO, a socket or a device named like a doc
                    skipped.append(Unreadable(escape_name(rel), NOT_REGULAR))
            except OSError as exc:
                skipped.append(Unreadable(escape_name(rel), reason_for(exc)))
    return Walked(files, skipped)


def _link_problem(root: str, path: str) -> str | None:
    """Why a symlink named like a doc is not one (None: it leads to a file inside)."""
    real = os.path.realpath(path)
    if not os.path.lexists(real):
        return "it is a broken link"
    if not inside(root, real):
        return OUTSIDE
    return None if os.path.isfile(real) else NOT_REGULAR


def inside(root: str, real: str) -> bool:
    """Whether the real path `real` is `root` or lies under it."""
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def read_inside(
    root: str, path: str, *, name: str, limit: int, descriptors: str = PROC_FD
) -> tuple[bytes, FileKey]:
    """The bytes of the regular file at `path` inside `root`, checked now, and its key.

    Args:
        root: The folder's real path.
        path: The file's path under `root`, as the file system spells it.
        name: The file's shown name, for the error.
        limit: Bytes read at most; a bigger file raises Unreadable.
        descriptors: Where the system shows the path of each open descriptor (Linux's
            /proc/self/fd); where there is no such folder the real path is checked instead.
    """
    try:
        target = _target(root, path, name)
        fd = os.open(target, _OPEN_FLAGS)
    except OSError as exc:
        raise Unreadable(name, reason_for(exc)) from None
    try:
        info = os.fstat(fd)
        _check_opened(root, target, fd, info, name, descriptors)
        if info.st_size > limit:
            raise Unreadable(name, too_big(limit))
        data = _read_at_most(fd, min(info.st_size, limit) + 1, limit + 1)
        if len(data) > limit:
            raise Unreadable(name, too_big(limit))
        return data, key_of(info)
    except OSError as exc:
        raise Unreadable(name, reason_for(exc)) from None
    finally:
        os.close(fd)


def _target(root: str, path: str, name: str) -> str:
    """What to open for `path`: the file itself, or a symlink's target inside `root`.

    Anything but a regular file or a symlink is refused before it is opened (opening a
    device can have effects); a folder on the way is checked once the file is open.
    """
    info = os.lstat(path)
    if stat.S_ISREG(info.st_mode):
        return path
    if not stat.S_ISLNK(info.st_mode):
        raise Unreadable(name, _not_regular(info.st_mode))
    real = os.path.realpath(path)
    if not inside(root, real):
        raise Unreadable(name, OUTSIDE)
    return real


def _check_opened(
    root: str, target: str, fd: int, info: os.stat_result, name: str, descriptors: str
) -> None:
    """Refuse an opened file that is not a regular file inside `root`."""
    if not stat.S_ISREG(info.st_mode):
        raise Unreadable(name, _not_regular(info.st_mode))
    try:  # the path the kernel holds for the descriptor: no race with renames
        opened: str | None = os.readlink(f"{descriptors}/{fd}")
    except OSError:
        opened = None
    if opened is not None:
        if not inside(root, opened.removesuffix(" (deleted)")):
            raise Unreadable(name, OUTSIDE)
        return
    real = os.path.realpath(target)  # without /proc: the real path now, and the same file
    now = os.stat(real)
    if not inside(root, real) or (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
        raise Unreadable(name, OUTSIDE)


def _not_regular(mode: int) -> str:
    return "it is a folder now" if stat.S_ISDIR(mode) else NOT_REGULAR


def _read_at_most(fd: int, first: int, most: int) -> bytes:
    """Up to `most` bytes from `fd`; `first` is the size of the first read (the size hint).

    A regular file's read comes back short only at its end, so one read is the common case.
    """
    data = os.read(fd, min(first, most))
    if len(data) < min(first, most):
        return data
    parts, total = [data], len(data)
    while parts[-1] and total < most:
        parts.append(os.read(fd, min(_CHUNK, most - total)))
        total += len(parts[-1])
    return b"".join(parts)


def key_of(info: os.stat_result) -> FileKey:
    """The key of a file's status: equal keys mean unchanged content, as far as `stat` knows."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def current_key(path: str) -> FileKey | None:
    """The key of the file at `path` now (following links), or None if it cannot be stat'ed."""
    try:
        return key_of(os.stat(path))
    except (OSError, ValueError):
        return None


def too_big(limit: int) -> str:
    """Why a file over the size limit is skipped."""
    whole_mb = limit >= 1 << 20 and not limit % (1 << 20)
    amount = f"{limit >> 20} MB" if whole_mb else f"{limit:,}-byte"
    return f"it is larger than the {amount} limit for one doc"


_REASONS = {
    errno.ENOENT: "it no longer exists",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOTDIR: "a folder on its path is no longer a folder",
    errno.ELOOP: "it is a symbolic link that changed after start-up",
    errno.ENAMETOOLONG: "its path is too long to open",
    errno.ENXIO: NOT_REGULAR,
}


def reason_for(exc: OSError) -> str:
    """A few words on why a file could not be opened or read."""
    if exc.errno in _REASONS:
        return _REASONS[exc.errno]
    return (exc.strerror or type(exc).__name__).lower()


def escape_name(name: str) -> str:
    """`name` made printable and valid UTF-8, and told apart from every other name.

    A byte that is not UTF-8 becomes `\\x80` to `\\xff`, an unprintable character
    `\\x00` to `\\x7f`, `\\uNNNN` or `\\UNNNNNNNN`, and a backslash is doubled; names
    that need none of this come back unchanged.
    """
    if name.isprintable() and "\\" not in name:
        return name
    return "".join("\\\\" if ch == "\\" else _escape_char(ch) for ch in name)


def printable(text: str) -> str:
    """`text` with its unprintable characters escaped as in `escape_name` (backslashes kept)."""
    return text if text.isprintable() else "".join(_escape_char(ch) for ch in text)


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, as os.fsdecode keeps it
        return f"\\x{code - 0xDC00:02x}"
    if ch.isprintable():
        return ch
    if code < 0x80:  # \xNN from 0x80 up is kept for bytes that are not UTF-8
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"
