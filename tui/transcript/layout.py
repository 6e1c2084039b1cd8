"""The transcript's lines: entries laid out at a width, drawn only where someone looks.

Each entry is a block of pieces (`tui.transcript.blocks`). The layout keeps every piece's height
and, per block, where it starts (a prefix sum, brought up to date from the first block
that changed: usually only the last one, as an answer streams), so a line number finds
its entry and piece by bisection. The lines themselves are kept for a bounded number of
pieces, the most recently drawn (`CACHE_LINES`); other pieces keep their height only and
are drawn again when they come back into view. A width change keeps the old heights as
estimates and draws again as pieces are looked at or measured (`measure`, in steps).

Nothing here imports Textual: rendering goes through a rich `Console`, so the layout is
tested with exact text from a console of a given width.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Iterator, Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.text import Text

from tui.terminal import visible
from tui.transcript.blocks import TEXT_MARGIN, Block, Piece, block_for, line_renderable
from tui.transcript.entries import Card, Entry, TurnEntry

CACHE_LINES = 1_000
"""Lines kept drawn (a few screens); the others are drawn again when scrolled back to."""

Line = list[Segment]


def _wrap(line: str, width: int) -> list[str] | None:
    """An ASCII line of single spaces cut at spaces to `width`, as rich cuts it; None when
    a word is longer than `width` (rich folds it, with its own rules for the spaces)."""
    parts, start = [], 0
    while len(line) - start > width:
        cut = line.rfind(" ", start, start + width + 1)
        if cut <= start:
            return None
        parts.append(line[start:cut])
        start = cut + 1
    parts.append(line[start:])
    return parts


def _simple_wrap(line: str, width: int) -> list[str] | None:
    if not line.isascii() or "  " in line or "\t" in line or line[:1] == " " or line[-1:] == " ":
        return None
    return _wrap(line, width)


class Layout:
    """Entries as lines at `width`: heights for all of them, drawn lines for a few."""

    def __init__(
        self, console: Console, options: ConsoleOptions, *, cache_lines: int = CACHE_LINES
    ) -> None:
        self.console = console
        self.options = options
        self.cache_lines = cache_lines
        self.width = 0
        self.entries: Sequence[Entry] = ()
        self.blocks: list[Block] = []
        self.expanded: set[str] = set()  # call ids of the cards shown whole
        self._starts: list[int] = [0]  # _starts[i]: the first line of block i; then the end
        self._valid = 0  # _starts is right up to block _valid
        self._stale: set[int] = set()  # blocks with pieces not drawn at `width`
        self._cache: OrderedDict[Piece, int] = OrderedDict()  # drawn pieces, oldest first
        self._cached = 0  # the lines they hold

    # -- entries ----------------------------------------------------------------------

    def update(self, entries: Sequence[Entry]) -> int:
        """Show `entries`; only blocks whose entry changed (by identity) are made again.

        Returns the index of the first block that changed (len(entries) if none did).
        """
        first = len(entries)
        blocks = self.blocks
        for index, entry in enumerate(entries):
            old = blocks[index] if index < len(blocks) else None
            if old is not None and old.entry is entry:
                continue
            first = min(first, index)
            same_kind = old is not None and type(old.entry) is type(entry)
            self._set_block(index, block_for(entry, old if same_kind else None, self.expanded))
        if len(blocks) > len(entries):
            for block in blocks[len(entries) :]:
                self._forget(block.pieces)
            del blocks[len(entries) :]
            self._stale = {i for i in self._stale if i < len(entries)}
            first = min(first, len(entries))
        self.entries = entries
        self._valid = min(self._valid, first)
        del self._starts[len(blocks) + 1 :]
        return first

    def _set_block(self, index: int, block: Block) -> None:
        if index < len(self.blocks):
            kept = set(block.pieces)
            self._forget([p for p in self.blocks[index].pieces if p not in kept])
            self.blocks[index] = block
        else:
            self.blocks.append(block)
            self._starts.append(0)
        if any(piece.width != self.width for piece in block.pieces):
            self._stale.add(index)
        self._valid = min(self._valid, index)

    def _forget(self, pieces: Sequence[Piece]) -> None:
        for piece in pieces:
            if piece.key[0] == "blank":
                continue  # shared by every block
            lines = self._cache.pop(piece, None)
            if lines is not None:
                self._cached -= lines

    def set_width(self, width: int) -> None:
        """Lay out at `width`: heights stay as estimates until pieces are drawn again."""
        if width == self.width:
            return
        self.width = width
        for piece in self._cache:
            piece.lines = None
        self._cache.clear()
        self._cached = 0
        self._stale = set(range(len(self.blocks)))

    # -- cards ------------------------------------------------------------------------

    def toggle(self, call_id: str) -> None:
        """Expand the card of `call_id`, or collapse it."""
        self.expanded ^= {call_id}
        for index, block in enumerate(self.blocks):
            if any(piece.card == call_id for piece in block.pieces):
                self._set_block(index, block_for(block.entry, block, self.expanded))

    def cards(self) -> list[str]:
        """The call ids of every card, top to bottom."""
        return [p.card for block in self.blocks for p in block.pieces if p.card is not None]

    def card(self, call_id: str) -> Card | None:
        """The card of `call_id`, if it is shown."""
        for block in self.blocks:
            if isinstance(block.entry, TurnEntry):
                for card in block.entry.cards:
                    if card.call_id == call_id:
                        return card
        return None

    def card_spans(self) -> list[tuple[str, int, int]]:
        """Every card's call id and lines [start, end), top to bottom."""
        spans = []
        for index, block in enumerate(self.blocks):
            y = self.start(index)
            for piece in block.pieces:
                if piece.card is not None:
                    spans.append((piece.card, y, y + piece.count))
                y += piece.count
        return spans

    def card_span(self, call_id: str) -> tuple[int, int] | None:
        """The lines [start, end) of the card of `call_id`."""
        for index, block in enumerate(self.blocks):
            y = self.start(index)
            for piece in block.pieces:
                if piece.card == call_id:
                    return y, y + piece.count
                y += piece.count
        return None

    # -- lines ------------------------------------------------------------------------

    @property
    def height(self) -> int:
        """Lines in all (estimates included for pieces not drawn at this width)."""
        return self.start(len(self.blocks))

    def start(self, index: int) -> int:
        """The first line of block `index` (the height, for `len(blocks)`)."""
        starts, blocks = self._starts, self.blocks
        for i in range(self._valid, index):
            starts[i + 1] = starts[i] + blocks[i].count
        self._valid = max(self._valid, index)
        return starts[index]

    def locate(self, y: int) -> tuple[int, int, int] | None:
        """(block, piece, line in the piece) of line `y`, or None past the end."""
        if not 0 <= y < self.height:
            return None
        index = bisect.bisect_right(self._starts, y, 0, len(self.blocks)) - 1
        offset = y - self._starts[index]
        for number, piece in enumerate(self.blocks[index].pieces):
            if offset < piece.count:
                return index, number, offset
            offset -= piece.count
        return None

    def mark(self, y: int) -> tuple[int, int, int, int] | None:
        """Where line `y` is (block, piece, line in the piece, the piece's height), to find
        the same text again once heights change (`marked`)."""
        found = self.locate(y)
        if found is None:
            return None
        index, number, offset = found
        return index, number, offset, self.blocks[index].pieces[number].count

    def marked(self, mark: tuple[int, int, int, int]) -> int:
        """The line `mark` points at now: its offset in the piece scaled to the new height."""
        index, number, offset, count = mark
        if index >= len(self.blocks):
            return self.height
        pieces = self.blocks[index].pieces
        number = min(number, len(pieces) - 1)
        y = self.start(index) + sum(piece.count for piece in pieces[:number])
        height = pieces[number].count
        return y + min(offset * height // max(count, 1), max(height - 1, 0))

    def line(self, y: int) -> tuple[Line, str | None]:
        """Line `y` (drawn now if its piece is not kept) and the card it belongs to."""
        found = self.locate(y)
        if found is None:
            return [], None
        index, number, offset = found
        block = self.blocks[index]
        piece = block.pieces[number]
        lines = self._draw(index, piece)
        if piece in self._cache:
            self._cache.move_to_end(piece)
        line = lines[offset] if offset < len(lines) else []
        if piece.key[0] == "chunk" and block.bar:
            line = [*block.bar, *line]
        return line, piece.card

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
        for block_index in range(index, len(self.blocks)):
            pieces = self.blocks[block_index].pieces
            for piece in pieces[number:]:
                if y >= top + rows:
                    return
                self._draw(block_index, piece)
                y += piece.count
            number = 0

    def prepare_end(self, rows: int) -> None:
        """Draw the pieces of the last `rows` lines (following the newest entry)."""
        covered = 0
        for index in range(len(self.blocks) - 1, -1, -1):
            for piece in reversed(self.blocks[index].pieces):
                self._draw(index, piece)
                covered += piece.count
                if covered >= rows:
                    return

    def measure(self, budget: int) -> bool:
        """Draw pieces not drawn at this width, newest first, for about `budget` characters
        of Markdown; True once every height is exact."""
        for index in sorted(self._stale, reverse=True):
            for piece in reversed(self.blocks[index].pieces):
                if piece.width != self.width:
                    if budget <= 0:
                        return False
                    self._draw(index, piece)
                    budget -= max(piece.cost, 1)
            self._stale.discard(index)
        return True

    @property
    def settled(self) -> bool:
        """Whether every piece has its height at this width."""
        return not self._stale

    def _draw(self, index: int, piece: Piece) -> list[Line]:
        """The lines of `piece` at this width, drawn if not kept; its height is updated."""
        if piece.lines is not None and piece.width == self.width:
            return piece.lines
        width = self.width
        bar = sum(segment.cell_length for segment in piece.bar)
        if piece.key[0] == "chunk":
            bar = TEXT_MARGIN  # the block's bar is put before the lines when they are read
        if piece.key[0] == "blank":
            lines: list[Line] = [[*piece.bar, Segment(" " * max(width - bar, 0))]]
        elif piece.key[0] == "chunk" and not piece.key[3]:
            lines = self._plain(visible(piece.text), max(width - bar, 1))
            lines = [[*piece.bar, *line] for line in lines] if piece.bar else lines
        else:
            inner = max(width - bar, 1)
            options = self.options.update_width(inner)
            renderable = line_renderable(piece, inner)
            drawn = self.console.render_lines(renderable, options, style=piece.style)
            if piece.gap and drawn and "".join(s.text for s in drawn[0]).strip():
                drawn.insert(0, [Segment(" " * inner)])  # lists and code bring their own
            lines = [[*piece.bar, *line] for line in drawn] if piece.bar else drawn
        if piece.count != len(lines):
            piece.count = len(lines)
            self._valid = min(self._valid, index)
        piece.lines, piece.width = lines, width
        self._cache[piece] = len(lines)
        self._cached += len(lines)
        while self._cached > self.cache_lines and len(self._cache) > 1:
            oldest, count = self._cache.popitem(last=False)
            oldest.lines = None
            self._cached -= count
        return lines

    def _plain(self, text: str, width: int) -> list[Line]:
        """Plain text wrapped at `width`, as rich wraps it: a line that fits is one segment.

        Hand-written for the lines that fit (most of them): rich wrapped a whole plain chunk
        at about 2.5 ms a kilobyte, most of an instant replay of a 200 KB answer. Lines that
        do not fit, or hold tabs, are wrapped by rich.
        """
        options = self.options.update_width(width)
        lines: list[Line] = []
        for line in text.split("\n"):
            size = width + 1 if "\t" in line else len(line) if line.isascii() else cell_len(line)
            if size <= width:
                lines.append([Segment(line), Segment(" " * (width - size))])
            elif (parts := _simple_wrap(line, width)) is not None:
                lines += ([Segment(part), Segment(" " * (width - len(part)))] for part in parts)
            else:
                rich_line = Text(line)
                rich_line.expand_tabs()  # as rich's wrap of a whole text does
                lines.extend(self.console.render_lines(rich_line, options))
        return lines

    @property
    def kept_lines(self) -> int:
        """Lines held drawn now (bounded by `cache_lines`, but for one piece taller than it)."""
        return self._cached
