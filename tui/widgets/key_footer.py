"""The footer, with the help, quit and palette keys kept at its right end at any width."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

PINNED = ("help", "quit")
"""Actions whose keys stay visible however narrow the terminal is, in this order."""


class KeyFooter(Footer):
    """Textual's footer, with the keys of `PINNED` actions and the palette key docked right.

    The other keys are laid out from the left and the ones that do not fit are cut off,
    so at 60 columns a person still sees how to get help and how to quit. (Widgets docked
    to the same edge overlap, so the pinned keys share one docked group.)
    """

    DEFAULT_CSS = """
    KeyFooter #pinned {
        dock: right;
        width: auto;
        height: 1;
        background: $footer-background;
        border-left: vkey $foreground 20%;
    }
    KeyFooter #pinned FooterKey { margin-left: 1; }
    """

    def compose(self) -> ComposeResult:
        pinned: list[FooterKey] = []
        palette: list[FooterKey] = []
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.has_class("-command-palette"):
                widget.remove_class("-command-palette")  # its own docking would overlap ours
                palette.append(widget)
            elif isinstance(widget, FooterKey) and widget.action.removeprefix("app.") in PINNED:
                pinned.append(widget)
            else:
                yield widget
        pinned.sort(key=lambda key: PINNED.index(key.action.removeprefix("app.")))
        if pinned or palette:
            yield HorizontalGroup(*pinned, *palette, id="pinned")
