"""Tests of readers fed hostile input: what they return, not how long they take."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def finishes(read: Callable[[], T]) -> T:
    """What `read` returns.

    The shapes these tests feed once made a reader superlinear; `make bench` times each at
    a size and at twice it (tests/bench/test_bench_hostile.py), so `make test` asserts no
    time and a slow machine cannot fail it.
    """
    return read()
