"""A turn's text cut into chunks that render on their own, so a growing text redraws its end only.

Rendering Markdown costs about a millisecond a kilobyte here and Textual's own Markdown
widget far more (a widget per block: 50 KB took tens of seconds to mount and slowed every
layout after it), so a long answer drawn whole at every streamed piece froze the screen.
Cut into chunks, a new piece redraws only the last chunk, whatever the answer's length.

Markdown chunks end at a blank line outside a code fence once they hold `CHUNK_CHARS`
(a chunk with no such line is cut at a line end past `FORCE_CHARS`, a line longer than
that anywhere). Past `MARKDOWN_CHARS` the rest is plain text, in chunks of `PLAIN_CHARS`:
even chunked, Markdown cannot keep up with a fast stream of hundreds of kilobytes, nor
draw them at once (a replay), and plain text costs a fraction of it.

Each character is scanned once while the text grows by appending (`extend`); a text that
changed otherwise is cut again from its start.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CHUNK_CHARS = 1_000
FORCE_CHARS = 4_000
MARKDOWN_CHARS = 20_000
PLAIN_CHARS = 8_000
_FENCES = ("```", "~~~")


@dataclass(frozen=True)
class Chunk:
    """One chunk of the text: its characters, and whether they are shown as Markdown."""

    text: str
    markdown: bool


@dataclass
class Chunks:
    """Where each chunk of a growing text starts, and where plain text begins (if it does)."""

    starts: list[int] = field(default_factory=lambda: [0])
    plain_from: int | None = None
    """The offset past which the text is shown as plain text (None: Markdown to the end)."""
    _scanned: int = 0  # the offset of the first line not scanned yet
    _fence: str = ""  # the marker of the code fence open at `_scanned`, if any

    def extend(self, text: str) -> None:
        """Cut the part of `text` not scanned yet (`text` grew by appending since the last call)."""
        at = self._scanned
        while (end := text.find("\n", at)) >= 0:
            self._line(text[at:end].lstrip(), end + 1)
            at = end + 1
        while len(text) - self.starts[-1] > FORCE_CHARS and len(text) - at > FORCE_CHARS:
            at = max(at, self.starts[-1]) + FORCE_CHARS  # one long line: cut it anyway
            self._cut(at)
        self._scanned = at

    def _line(self, line: str, after: int) -> None:
        """Scan one line (stripped of its indent) that ends just before offset `after`."""
        size = after - self.starts[-1]
        if self.plain_from is not None:
            if size >= PLAIN_CHARS:
                self._cut(after)
            return
        if self._fence:
            if line.startswith(self._fence):
                self._fence = ""
        elif line.startswith(_FENCES):
            self._fence = line[:3]
        elif not line and size >= CHUNK_CHARS:
            self._cut(after)
            return
        if size >= FORCE_CHARS:
            self._fence = ""  # the next chunk starts as prose: its fence, if any, is cut
            self._cut(after)

    def _cut(self, at: int) -> None:
        if at <= self.starts[-1]:
            return
        self.starts.append(at)
        if self.plain_from is None and at >= MARKDOWN_CHARS:
            self.plain_from = at

    def of(self, text: str, first: int = 0) -> list[Chunk]:
        """The chunks of `text` from the `first` on (after `extend(text)`)."""
        bounds = [*self.starts, len(text)]
        return [
            Chunk(text[bounds[i] : bounds[i + 1]], self._markdown(bounds[i]))
            for i in range(first, len(self.starts))
        ]

    def _markdown(self, start: int) -> bool:
        return self.plain_from is None or start < self.plain_from


def chunks(text: str) -> list[Chunk]:
    """`text` cut into chunks at once (a text seen whole)."""
    cut = Chunks()
    cut.extend(text)
    return cut.of(text)
