"""A turn's text, Markdown then plain past a limit, in chunks so a growing text redraws its end."""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markdown import Markdown
from rich.text import Text
from rich.theme import Theme
from textual.containers import Vertical
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from tui.chunks import MARKDOWN_CHARS, Chunk, Chunks

STEP_CHARS = 2_000
"""Markdown drawn per refresh at most (beyond one chunk), so keys are taken in between."""
PLAIN_COST = 8  # plain text costs about an eighth of Markdown to draw
DRAWN_CHARS = 400_000
"""Past this, a text is not drawn at all (a screen of megabytes cannot be read anyway):
the note says how much is left out; copy and export still give the whole text."""

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


class ChunkView(Widget):
    """One chunk, rendered once per width: Textual's Static renders a rich renderable twice
    (its height, then its lines), and Markdown is the costly part of a streamed answer."""

    DEFAULT_CSS = """
    ChunkView { height: auto; }
    """

    def __init__(self, renderable: RenderableType) -> None:
        super().__init__()
        self.renderable = renderable
        self._lines: list[Strip] = []
        self._width = -1

    def update(self, renderable: RenderableType) -> None:
        """Show `renderable` instead."""
        self.renderable = renderable
        self._width = -1
        self.refresh(layout=True)

    def _strips(self, width: int) -> list[Strip]:
        if width != self._width:
            console = self.app.console
            options = self.app.console_options.update_width(max(width, 1)).update(highlight=False)
            lines = console.render_lines(self.renderable, options, style=self.rich_style)
            self._lines, self._width = [Strip(line, width) for line in lines], width
        return self._lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._strips(width))

    def render_line(self, y: int) -> Strip:
        lines = self._strips(self.size.width)
        return lines[y] if y < len(lines) else Strip.blank(self.size.width, self.rich_style)


def plain_note(rest: int, hidden: int = 0) -> Text:
    """The note where a long text turns to plain: how much follows, and why."""
    left_out = (
        f"; the last {hidden:,} are not drawn (ctrl+y copies the whole text)" if hidden else ""
    )
    return Text(
        f"… past {MARKDOWN_CHARS:,} characters the text is shown as plain text, so the screen "
        f"keeps up: {rest:,} more characters{left_out}",
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
    TurnText > .plain-note { color: $text-muted; margin: 1 0; }
    """

    def __init__(self, *, classes: str = "") -> None:
        super().__init__(classes=classes)
        self.text = ""
        self.warn = False
        self._chunks = Chunks()
        self._target: list[Chunk] = []  # the chunks of `text`, shown or still to show
        self._shown: list[Chunk] = []
        self._widgets: list[ChunkView] = []
        self._note: Static | None = None
        self._wanted: tuple[str, bool] = ("", False)
        self._step_pending = False

    def on_mount(self) -> None:
        self._update()

    @property
    def plain(self) -> bool:
        """Whether part of the text is shown as plain text (past the Markdown limit)."""
        return self._chunks.plain_from is not None

    @property
    def settled(self) -> bool:
        """Whether the newest text given is shown whole (False until mounted)."""
        return self._wanted == (self.text, self.warn) and self._shown == self._target

    def show(self, text: str, *, warn: bool = False) -> None:
        """Show `text`; `warn`: struck text is a flagged citation, not a strike."""
        self._wanted = (text, warn)
        if self.is_mounted and self.is_attached:
            self._update()

    def _update(self) -> None:
        text, warn = self._wanted
        if text != self.text or warn != self.warn:
            first = max(len(self._shown) - 1, 0)
            if warn != self.warn or not text.startswith(self.text):
                self._chunks, first = Chunks(), 0
            self.text, self.warn = text, warn
            self._chunks.extend(text)
            first = min(first, len(self._target))
            self._target = self._target[:first] + self._chunks.of(text, first)
            drawn = 0
            for index, chunk in enumerate(self._target):
                drawn += len(chunk.text)
                if drawn >= DRAWN_CHARS:
                    del self._target[index + 1 :]
                    break
        self._step()

    def _step(self) -> None:
        """Bring up to `STEP_CHARS` of Markdown on screen; the rest after the next refresh.

        A text seen whole (a replay, the answer's citations flagged at its end) changes
        every chunk at once: drawn in steps, the screen still takes keys in between.
        """
        self._step_pending = False
        if not (self.is_mounted and self.is_attached):
            return
        target, budget = self._target, STEP_CHARS
        new: list[ChunkView] = []
        for index, chunk in enumerate(target):
            if budget <= 0:
                break
            if index < len(self._widgets):
                if self._shown[index] == chunk:
                    continue
                self._shown[index] = chunk
                self._widgets[index].update(self._renderable(chunk))
            else:
                self._shown.append(chunk)
                new.append(ChunkView(self._renderable(chunk)))
            budget -= len(chunk.text) if chunk.markdown else len(chunk.text) // PLAIN_COST
        if len(target) < len(self._widgets):
            self.remove_children(self._widgets[len(target) :])
            del self._widgets[len(target) :], self._shown[len(target) :]
        if new:
            self._widgets += new
            self.mount_all(new)
        self._show_note()
        if self._shown != target and not self._step_pending:
            self._step_pending = True
            self.call_after_refresh(self._step)

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
        first_plain = next((i for i, c in enumerate(self._shown) if not c.markdown), None)
        if first_plain is None:
            return  # not drawn yet
        drawn = sum(len(chunk.text) for chunk in self._target)
        text = plain_note(len(self.text) - start, len(self.text) - drawn)
        if self._note is None:
            self._note = Static(text, classes="plain-note")
            self.mount(self._note, before=self._widgets[first_plain])
        else:
            self._note.update(text)

    def chunk_texts(self) -> Iterator[Chunk]:
        """The chunks shown, in order."""
        return iter(self._shown)
