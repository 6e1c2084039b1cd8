"""What each entry of the transcript looks like: a block of pieces (`tui.transcript.pieces`).

A one-line entry is a blank line and its line; a turn is a blank line, its label, the
chunks of its text, its notes and its tool cards. A growing answer changes only its
last chunk, so the block keeps the piece of every other chunk (and the layout the lines
drawn for it). Nothing here draws: pieces draw themselves when the layout asks.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tui.transcript.chunks import Chunks
from tui.transcript.entries import Entry, SystemEntry, TurnEntry
from tui.transcript.pieces import (
    ANSWER_BAR,
    PARTIAL_BAR,
    AnswerNotes,
    Bar,
    Blank,
    EntryLine,
    Label,
    MarkdownChunk,
    Piece,
    PlainChunk,
    PlainNote,
    ToolCard,
)

DRAWN_CHARS = 400_000
"""Past this, a text is not drawn at all (a screen of megabytes cannot be read anyway):
the note says how much is left out; copy and export still give the whole text."""

TextPiece = MarkdownChunk | PlainChunk


@dataclass(eq=False)
class Block:
    """The pieces of one entry, and for a turn the cut of its text so far."""

    entry: Entry
    pieces: tuple[Piece, ...]
    text: str = ""
    chunks: Chunks = field(default_factory=Chunks)
    cut: dict[tuple[int, int], TextPiece] = field(default_factory=dict)
    """The piece of each chunk of the text drawn, by its [start, end) in the text."""


def block_for(entry: Entry, old: Block | None, expanded: set[str]) -> Block:
    """The block showing `entry`, reusing what it can of `old` (the entry's earlier version)."""
    if isinstance(entry, TurnEntry):
        return _turn_block(entry, old, expanded)
    line = EntryLine(entry)
    return Block(entry, (line,) if isinstance(entry, SystemEntry) else (Blank(), line))


def _turn_block(entry: TurnEntry, old: Block | None, expanded: set[str]) -> Block:
    # The text is cut as it streamed; flagged citations are marked chunk by chunk when a
    # chunk is drawn (marking a long answer whole took a third of a second at its end).
    text = entry.text
    grew = old is not None and text.startswith(old.text)
    chunks = old.chunks if old is not None and grew else Chunks()
    chunks.extend(text)
    reuse = old.cut if old is not None and grew else {}
    bar = ANSWER_BAR if entry.answer else PARTIAL_BAR if entry.partial else ()
    pieces: list[Piece] = [Blank(), Label(entry.step, entry.streaming, bar)]
    cut = _text_pieces(entry, chunks, reuse, bar, pieces)
    if entry.unread or entry.outcome != "answered" or entry.pages:
        pieces.append(AnswerNotes(entry.unread, entry.outcome, entry.pages, bar))
    pieces += (ToolCard(card, card.call_id in expanded, bar) for card in entry.cards)
    return Block(entry, tuple(pieces), text, chunks, cut)


def _text_pieces(
    entry: TurnEntry,
    chunks: Chunks,
    reuse: dict[tuple[int, int], TextPiece],
    bar: Bar,
    pieces: list[Piece],
) -> dict[tuple[int, int], TextPiece]:
    """Append the pieces of the turn's text to `pieces`: the chunks that did not change are
    the pieces of `reuse`; returns the pieces of the chunks by their place in the text."""
    text, unread = entry.text, entry.unread
    bounds = [*chunks.starts, len(text)]
    cut: dict[tuple[int, int], TextPiece] = {}
    drawn = 0
    for start, end in zip(bounds, bounds[1:], strict=False):
        if drawn >= DRAWN_CHARS or end <= start:
            break
        markdown = chunks.plain_from is None or start < chunks.plain_from
        if not markdown and start == chunks.plain_from:
            hidden = max(len(text) - _drawn_end(bounds), 0)
            note = PlainNote(len(text) - start, hidden, bar)
            pieces += [Blank(bar), note, Blank(bar)]
        # Only the flagged citations a chunk may hold make it draw differently.
        flags = tuple(label for label in unread if label.split(":", 1)[0] in text[start:end])
        piece = reuse.get((start, end))
        if piece is None or _changed(piece, markdown=markdown, flags=flags):
            piece = _text_piece(text, start, end, markdown=markdown, flags=flags)
        if piece.bar != bar:
            piece = replace(piece, bar=bar)  # equal to the one it replaces: drawn the same
        pieces.append(piece)
        cut[start, end] = piece
        drawn += end - start
    return cut


def _changed(piece: TextPiece, *, markdown: bool, flags: tuple[str, ...]) -> bool:
    if isinstance(piece, MarkdownChunk):
        return not markdown or piece.flags != flags
    return markdown


def _text_piece(
    text: str, start: int, end: int, *, markdown: bool, flags: tuple[str, ...]
) -> TextPiece:
    if not markdown:
        return PlainChunk(text[start:end])
    gap = start > 0 and _after_blank_line(text, start)
    return MarkdownChunk(text[start:end], flags, gap)


def _after_blank_line(text: str, start: int) -> bool:
    """Whether `text` has a blank line just before `start` (where chunks are cut): Markdown
    drawn whole puts an empty line between the blocks on either side, a chunk drawn alone
    does not."""
    before = text.rfind("\n", 0, start - 1)
    return text[start - 1] == "\n" and not text[before + 1 : start - 1].strip()


def _drawn_end(bounds: list[int]) -> int:
    """Where the drawn part of a text ends: after the chunk that reaches `DRAWN_CHARS`."""
    for end in bounds[1:]:
        if end >= DRAWN_CHARS:
            return end
    return bounds[-1]
