"""A guard for tests of readers fed hostile input: they must come back at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")

GUARD = 30.0
"""Seconds a reader may take before its test fails (a linear one takes milliseconds)."""


def finishes(read: Callable[[], T]) -> T:
    """What `read` returns; the test fails if it took more than `GUARD` seconds.

    A reader that never returns is let go after `GUARD`; one stuck in a regex holds the GIL,
    so it is waited for, then failed by the time it took.
    """
    result: list[T] = []
    worker = threading.Thread(target=lambda: result.append(read()), daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(timeout=GUARD)
    took = time.monotonic() - started
    if not result or took > GUARD:
        pytest.fail(f"no result within {GUARD:.0f} seconds ({took:.0f} s): a superlinear reader")
    return result[0]
