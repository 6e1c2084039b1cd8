"""A turn's text, Markdown then plain past a limit, in chunks so a growing text redraws its end."""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown
from rich.text import Text
from rich.theme import Theme
from textual.containers import Vertical
from textual.widgets import Static

from tui.chunks import MARKDOWN_CHARS, Chunk, Chunks

WARN_STRIKES = Theme({"markdown.s": "bold underline yellow"})
"""Struck text in an answer that cites unread lines is a flagged citation (`mark_unread`)."""


class _Markdown:
    """A chunk's Markdown, its struck text shown as a warning when `warn` (one theme per chunk)."""

    def __init__(self, text: str, *, warn: bool) -> None:
        self.markdown = Markdown(text, hyperlinks=False)
        self.warn = warn

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self.warn:
            yield self.markdown
            return
        with console.use_theme(WARN_STRIKES):
            yield from console.render(self.markdown, options)


def plain_note(rest: int) -> Text:
    """The note where a long text turns to plain: how much follows, and why."""
    return Text(
        f"… past {MARKDOWN_CHARS:,} characters the text is shown as plain text, so the screen "
        f"keeps up: {rest:,} more characters",
        "dim italic",
    )


class TurnText(Vertical):
    """Shows a text that grows (a streamed answer) as chunks: only changed chunks redraw.

    The text is given whole each time (`show`); when it grew by appending, only its new
    part is cut and only the last chunk and new ones are updated. Before the widget is
    mounted (or once it is removed) it only keeps the newest text, shown on mount.
    """

    DEFAULT_CSS = """
    TurnText { height: auto; }
    TurnText > Static { height: auto; }
    TurnText > .plain-note { color: $text-muted; margin: 1 0; }
    """

    def __init__(self, *, classes: str = "") -> None:
        super().__init__(classes=classes)
        self.text = ""
        self.warn = False
        self._chunks = Chunks()
        self._shown: list[Chunk] = []
        self._widgets: list[Static] = []
        self._note: Static | None = None
        self._wanted: tuple[str, bool] = ("", False)

    def on_mount(self) -> None:
        self._update()

    @property
    def plain(self) -> bool:
        """Whether part of the text is shown as plain text (past the Markdown limit)."""
        return self._chunks.plain_from is not None

    def show(self, text: str, *, warn: bool = False) -> None:
        """Show `text`; `warn`: struck text is a flagged citation, not a strike."""
        self._wanted = (text, warn)
        if self.is_mounted and self.is_attached:
            self._update()

    def _update(self) -> None:
        text, warn = self._wanted
        if text == self.text and warn == self.warn:
            return
        first = max(len(self._shown) - 1, 0)
        if warn != self.warn or not text.startswith(self.text):
            self._chunks, first = Chunks(), 0
        self.text, self.warn = text, warn
        self._chunks.extend(text)
        wanted = self._chunks.of(text, first)
        new: list[Static] = []
        for index, chunk in enumerate(wanted, start=first):
            if index < len(self._widgets):
                if self._shown[index] != chunk:
                    self._shown[index] = chunk
                    self._widgets[index].update(self._renderable(chunk))
            else:
                self._shown.append(chunk)
                new.append(Static(self._renderable(chunk)))
        end = first + len(wanted)
        if end < len(self._widgets):
            self.remove_children(self._widgets[end:])
            del self._widgets[end:], self._shown[end:]
        if new:
            self._widgets += new
            self.mount_all(new)
        self._show_note()

    def _renderable(self, chunk: Chunk) -> _Markdown | Text:
        if chunk.markdown:
            return _Markdown(chunk.text, warn=self.warn)
        return Text(chunk.text)

    def _show_note(self) -> None:
        """Say where the plain text starts (before its first chunk)."""
        start = self._chunks.plain_from
        if start is None:
            if self._note is not None:
                self._note.remove()
                self._note = None
            return
        first_plain = next(i for i, c in enumerate(self._shown) if not c.markdown)
        text = plain_note(len(self.text) - start)
        if self._note is None:
            self._note = Static(text, classes="plain-note")
            self.mount(self._note, before=self._widgets[first_plain])
        else:
            self._note.update(text)

    def chunk_texts(self) -> Iterator[Chunk]:
        """The chunks shown, in order."""
        return iter(self._shown)
