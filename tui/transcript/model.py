"""The transcript's model: its entries as blocks of pieces on a layout, and the tool cards.

The widget shows what this holds; tests read it without an app, at a rich console's width.
"""

from __future__ import annotations

from collections.abc import Sequence

from tui.transcript.blocks import Block, block_for
from tui.transcript.entries import Card, Entry, TurnEntry
from tui.transcript.layout import CACHE_LINES, Layout
from tui.transcript.pieces import Pen


class TranscriptModel:
    """Entries laid out as lines (`layout`); which tool cards are shown whole."""

    def __init__(self, pen: Pen, *, cache_lines: int = CACHE_LINES) -> None:
        self.layout = Layout(pen, cache_lines=cache_lines)
        self.entries: Sequence[Entry] = ()
        self.blocks: list[Block] = []
        self.expanded: set[str] = set()  # call ids of the cards shown whole

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
            self._put(index, block_for(entry, old if same_kind else None, self.expanded))
        if len(blocks) > len(entries):
            del blocks[len(entries) :]
            self.layout.cut(len(entries))
            first = min(first, len(entries))
        self.entries = entries
        return first

    def _put(self, index: int, block: Block) -> None:
        if index < len(self.blocks):
            self.blocks[index] = block
        else:
            self.blocks.append(block)
        self.layout.put(index, block.pieces)

    # -- cards ------------------------------------------------------------------------

    def toggle(self, call_id: str) -> None:
        """Expand the card of `call_id`, or collapse it."""
        self.expanded ^= {call_id}
        for index, block in enumerate(self.blocks):
            if any(piece.call_id == call_id for piece in block.pieces):
                self._put(index, block_for(block.entry, block, self.expanded))

    def cards(self) -> list[str]:
        """The call ids of every card, top to bottom."""
        return [p.call_id for block in self.blocks for p in block.pieces if p.call_id is not None]

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
        return [
            (piece.call_id, start, end)
            for index in range(len(self.blocks))
            for piece, start, end in self.layout.placed(index)
            if piece.call_id is not None
        ]

    def card_span(self, call_id: str) -> tuple[int, int] | None:
        """The lines [start, end) of the card of `call_id`."""
        for index, block in enumerate(self.blocks):
            if any(piece.call_id == call_id for piece in block.pieces):
                for piece, start, end in self.layout.placed(index):
                    if piece.call_id == call_id:
                        return start, end
        return None
