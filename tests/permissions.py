"""File permissions that bind the test as they bind any user, root included.

Root reads a file of mode 000 because of two capabilities, CAP_DAC_OVERRIDE and
CAP_DAC_READ_SEARCH. Linux keeps capabilities per thread, so `binding()` takes them out of
the calling thread's effective set (threads it starts inherit that) and puts them back
after: the test runs on files it made, as an unprivileged user would. Where the system
does not allow it, the test is skipped with the reason, which `-rs` prints in CI's output.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

_VERSION_3 = 0x20080522  # _LINUX_CAPABILITY_VERSION_3: two 32-bit words a set
_DAC = (1 << 1) | (1 << 2)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _set_effective(libc: ctypes.CDLL, mask: int, *, on: bool) -> None:
    """Raise or lower the capabilities of `mask` in this thread's effective set."""
    header = _Header(_VERSION_3, 0)
    data = (_Data * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget failed")
    data[0].effective = data[0].effective | mask if on else data[0].effective & ~mask
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


@contextmanager
def binding(path: Path) -> Iterator[None]:
    """Within the block, this thread reads no file its permissions forbid (`path` is one)."""
    if os.geteuid() != 0:
        yield
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _set_effective(libc, _DAC, on=False)
    except (OSError, AttributeError) as exc:
        pytest.skip(f"root reads files whatever their permissions, and cannot stop: {exc}")
    try:
        try:
            os.close(os.open(path, os.O_RDONLY))
        except PermissionError:
            pass
        else:
            pytest.skip(f"this user reads {path.name} whatever its permissions")
        yield
    finally:
        _set_effective(libc, _DAC, on=True)
