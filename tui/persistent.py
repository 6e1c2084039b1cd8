"""Immutable sequences for the view state that grow in O(1) by sharing storage.

The reducer makes a new view state for every event, and most events append an entry
or change the last one (a text delta, a tool result). Copying a tuple of every entry,
or the whole streamed text, per event made long runs quadratic. A `Log` keeps its
items in a list shared with the logs it was derived from: every log sees its own
prefix of that list, which is only ever appended to, never changed, so an older log
(a replay checkpoint, the state before an event) still reads exactly as it did.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class Log(Sequence[T]):
    """An immutable sequence; `append` and `with_last` cost O(1) and leave `self` unchanged.

    The last item is held apart from the shared list, so replacing it copies nothing.
    Items are compared by identity when two logs meet in the shared list, so unchanged
    items keep their identity from one version to the next (the transcript relies on it).
    """

    __slots__ = ("_items", "_count", "_last")
    _last: T  # set whenever `_count` > 0

    def __init__(self, items: Iterable[T] = ()) -> None:
        listed = list(items)
        self._count = len(listed)
        if listed:
            self._last = listed.pop()
        self._items: list[T] = listed  # shared; this log sees its first `_count - 1` items

    @classmethod
    def _of(cls, items: list[T], count: int, last: T) -> Log[T]:
        log = cls.__new__(cls)
        log._items, log._count, log._last = items, count, last
        return log

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...
    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(self._at(i) for i in range(*index.indices(self._count)))
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("Log index out of range")
        return self._at(index)

    def _at(self, index: int) -> T:
        return self._last if index == self._count - 1 else self._items[index]

    def __iter__(self) -> Iterator[T]:
        if self._count:
            items = self._items
            for index in range(self._count - 1):
                yield items[index]
            yield self._last

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (Log, tuple)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Log({list(self)!r})"

    def append(self, item: T) -> Log[T]:
        """A log with `item` after this log's items."""
        if not self._count:
            return self._of([], 1, item)
        return self._of(self._shared(), self._count + 1, item)

    def with_last(self, item: T) -> Log[T]:
        """A log with `item` in place of the last item (or holding just `item`, if empty)."""
        if not self._count:
            return self._of([], 1, item)
        return self._of(self._items, self._count, item)

    def with_item(self, index: int, item: T) -> Log[T]:
        """A log with `item` at `index`: O(1) for the last item, a copy for any other."""
        position = index + self._count if index < 0 else index
        if not 0 <= position < self._count:
            raise IndexError("Log index out of range")
        if position == self._count - 1:
            return self.with_last(item)
        items = list(self)
        items[position] = item
        return type(self)(items)

    def _shared(self) -> list[T]:
        """A list whose first `_count` items are this log's, `_last` included."""
        items, slot, last = self._items, self._count - 1, self._last
        if len(items) == slot:
            items.append(last)
        # Another log may have taken that slot first (a replay going back, then forward
        # again): share it when it holds this very item, else copy this log's items.
        if items[slot] is last:
            return items
        return [*items[:slot], last]


class TextParts:
    """Text that grows by appending pieces in O(1); joined (once) when it is read."""

    __slots__ = ("_parts", "_joined")

    def __init__(self, text: str = "") -> None:
        self._parts: Log[str] = Log((text,) if text else ())
        self._joined: str | None = text

    def __add__(self, piece: str) -> TextParts:
        if not piece:
            return self
        grown = TextParts.__new__(TextParts)
        grown._parts, grown._joined = self._parts.append(piece), None
        return grown

    def __str__(self) -> str:
        if self._joined is None:
            self._joined = "".join(self._parts)
        return self._joined

    def __len__(self) -> int:
        return len(str(self))

    def __bool__(self) -> bool:
        return len(self._parts) > 0  # no empty pieces are kept

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (TextParts, str)):
            return str(self) == str(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))

    def __repr__(self) -> str:
        return repr(str(self))

    @property
    def pieces(self) -> Sequence[str]:
        """The pieces as they were appended."""
        return self._parts
