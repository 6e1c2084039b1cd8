"""Blocks of pieces as lines at a width: a height index, and the lines of a few pieces.

The layout keeps every piece's height and, per block, where it starts (a prefix sum,
brought up to date from the first block that changed: usually only the last one, as an
answer streams), so a line number finds its block and piece by bisection. The lines
themselves are kept for a bounded number of pieces, the most recently drawn
(`CACHE_LINES`); other pieces keep their height only and are drawn again when they come
back into view. A width change keeps the old heights as estimates and measures again as
pieces are looked at or measured (`measure`, in steps).

What a piece is does not matter here: it draws itself (`tui.transcript.pieces.Piece`),
and equal pieces draw the same lines, so drawn lines are kept by piece. Nothing here
imports Textual: tests read exact text from a rich console of a given width.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Iterator, Sequence

from tui.transcript.pieces import Line, Pen, Piece

CACHE_LINES = 1_000
"""Lines kept drawn (a few screens); the others are drawn again when scrolled back to."""

Mark = tuple[int, int, int, int]


class Layout:
    """Blocks of pieces as lines at `width`: heights for all of them, drawn lines for a few."""

    def __init__(self, pen: Pen, *, cache_lines: int = CACHE_LINES) -> None:
        self.pen = pen
        self.cache_lines = cache_lines
        self.width = 0
        self._pieces: list[tuple[Piece, ...]] = []
        self._heights: list[list[int]] = []  # each piece's, exact where measured at `width`
        self._widths: list[list[int]] = []  # the width each height was measured at
        self._totals: list[int] = []  # each block's height
        self._starts: list[int] = [0]  # _starts[i]: the first line of block i; then the end
        self._valid = 0  # _starts is right up to block _valid
        self._stale: set[int] = set()  # blocks with pieces not measured at `width`
        self._cache: OrderedDict[Piece, list[Line]] = OrderedDict()  # oldest drawn first
        self._cached = 0  # the lines it holds

    # -- blocks -----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._pieces)

    def pieces(self, index: int) -> tuple[Piece, ...]:
        """The pieces of block `index`."""
        return self._pieces[index]

    def put(self, index: int, pieces: Sequence[Piece]) -> None:
        """Show `pieces` as block `index` (`len(self)`: a new block at the end); a piece
        equal to one the block had keeps its height."""
        new = tuple(pieces)
        known: dict[Piece, tuple[int, int]] = {}
        if index < len(self._pieces):
            old = self._pieces[index]
            measured = zip(self._heights[index], self._widths[index], strict=True)
            known = dict(zip(old, measured, strict=True))
            self._forget(set(old).difference(new))
        else:
            self._pieces.append(new)
            self._heights.append([])
            self._widths.append([])
            self._totals.append(0)
            self._starts.append(0)
        heights, widths = [], []
        for piece in new:
            lines = self._cache.get(piece)
            height, width = (
                (len(lines), self.width) if lines is not None else known.get(piece, (1, -1))
            )
            heights.append(height)
            widths.append(width)
        self._pieces[index], self._heights[index], self._widths[index] = new, heights, widths
        self._totals[index] = sum(heights)
        if any(width != self.width for width in widths):
            self._stale.add(index)
        self._valid = min(self._valid, index)

    def cut(self, count: int) -> None:
        """Keep the first `count` blocks only."""
        for pieces in self._pieces[count:]:
            self._forget(pieces)
        for kept in (self._pieces, self._heights, self._widths, self._totals):
            del kept[count:]
        del self._starts[count + 1 :]
        self._stale = {index for index in self._stale if index < count}
        self._valid = min(self._valid, count)

    def _forget(self, pieces: Sequence[Piece] | set[Piece]) -> None:
        for piece in pieces:
            lines = self._cache.pop(piece, None)
            if lines is not None:
                self._cached -= len(lines)

    def set_width(self, width: int) -> None:
        """Lay out at `width`: heights stay as estimates until pieces are measured again."""
        if width == self.width:
            return
        self.width = width
        self._cache.clear()
        self._cached = 0
        self._stale = set(range(len(self._pieces)))

    # -- lines ------------------------------------------------------------------------

    @property
    def height(self) -> int:
        """Lines in all (estimates included for pieces not measured at this width)."""
        return self.start(len(self._pieces))

    def start(self, index: int) -> int:
        """The first line of block `index` (the height, for `len(self)`)."""
        starts, totals = self._starts, self._totals
        for i in range(self._valid, index):
            starts[i + 1] = starts[i] + totals[i]
        self._valid = max(self._valid, index)
        return starts[index]

    def placed(self, index: int) -> Iterator[tuple[Piece, int, int]]:
        """Each piece of block `index` with its lines [start, end)."""
        y = self.start(index)
        for piece, height in zip(self._pieces[index], self._heights[index], strict=True):
            yield piece, y, y + height
            y += height

    def locate(self, y: int) -> tuple[int, int, int] | None:
        """(block, piece, line in the piece) of line `y`, or None past the end."""
        if not 0 <= y < self.height:
            return None
        index = bisect.bisect_right(self._starts, y, 0, len(self._pieces)) - 1
        offset = y - self._starts[index]
        for number, height in enumerate(self._heights[index]):
            if offset < height:
                return index, number, offset
            offset -= height
        return None

    def mark(self, y: int) -> Mark | None:
        """Where line `y` is (block, piece, line in the piece, the piece's height), to find
        the same text again once heights change (`marked`)."""
        found = self.locate(y)
        if found is None:
            return None
        index, number, offset = found
        return index, number, offset, self._heights[index][number]

    def marked(self, mark: Mark) -> int:
        """The line `mark` points at now: its offset in the piece scaled to the new height."""
        index, number, offset, count = mark
        if index >= len(self._pieces):
            return self.height
        heights = self._heights[index]
        number = min(number, len(heights) - 1)
        y = self.start(index) + sum(heights[:number])
        height = heights[number]
        return y + min(offset * height // max(count, 1), max(height - 1, 0))

    def line(self, y: int) -> tuple[Line, Piece | None]:
        """Line `y` with its piece's bar (drawn now if its piece is not kept), and the piece."""
        found = self.locate(y)
        if found is None:
            return [], None
        index, number, offset = found
        piece = self._pieces[index][number]
        lines = self._draw(index, number)
        return [*piece.bar, *(lines[offset] if offset < len(lines) else [])], piece

    def lines(self, start: int, end: int) -> Iterator[Line]:
        """Lines [start, end), for tests and plain-text views."""
        for y in range(start, min(end, self.height)):
            yield self.line(y)[0]

    def prepare(self, top: int, rows: int) -> None:
        """Draw the pieces in lines [top, top + rows) at this width (heights may change)."""
        first = max(min(top, self.height - 1), 0)
        found = self.locate(first)
        if found is None:
            return
        index, number, offset = found
        y = first - offset  # where piece `number` starts
        for block in range(index, len(self._pieces)):
            for at in range(number, len(self._pieces[block])):
                if y >= top + rows:
                    return
                self._draw(block, at)
                y += self._heights[block][at]
            number = 0

    def prepare_end(self, rows: int) -> None:
        """Draw the pieces of the last `rows` lines (following the newest block)."""
        covered = 0
        for block in range(len(self._pieces) - 1, -1, -1):
            for at in range(len(self._pieces[block]) - 1, -1, -1):
                covered += len(self._draw(block, at))
                if covered >= rows:
                    return

    def measure(self, budget: int) -> bool:
        """Measure pieces not measured at this width, newest first, for about `budget`
        characters of Markdown; True once every height is exact."""
        for index in sorted(self._stale, reverse=True):
            pieces, widths = self._pieces[index], self._widths[index]
            for at in range(len(pieces) - 1, -1, -1):
                if widths[at] != self.width:
                    if budget <= 0:
                        return False
                    piece = pieces[at]
                    lines = self._cache.get(piece)
                    height = len(lines) if lines is not None else piece.height(self.pen, self.width)
                    self._settle(index, at, height)
                    budget -= max(piece.cost, 1)
            self._stale.discard(index)
        return True

    @property
    def settled(self) -> bool:
        """Whether every piece has its height at this width."""
        return not self._stale

    @property
    def kept_lines(self) -> int:
        """Lines held drawn now (bounded by `cache_lines`, but for one piece taller than it)."""
        return self._cached

    def _draw(self, index: int, number: int) -> list[Line]:
        """The lines of piece `number` of block `index` at this width, drawn if not kept."""
        piece = self._pieces[index][number]
        lines = self._cache.get(piece)
        if lines is not None:
            self._cache.move_to_end(piece)
        else:
            lines = piece.lines(self.pen, self.width)
            self._cache[piece] = lines
            self._cached += len(lines)
            while self._cached > self.cache_lines and len(self._cache) > 1:
                self._cached -= len(self._cache.popitem(last=False)[1])
        self._settle(index, number, len(lines))
        return lines

    def _settle(self, index: int, number: int, height: int) -> None:
        """Piece `number` of block `index` is `height` lines at this width."""
        heights = self._heights[index]
        if heights[number] != height:
            self._totals[index] += height - heights[number]
            heights[number] = height
            self._valid = min(self._valid, index)
        self._widths[index][number] = self.width
