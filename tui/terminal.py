"""What may reach the terminal: text from outside is data, never control sequences.

Docs, models, servers and file names can hold escape sequences that would retitle the
terminal, write the clipboard, clear the screen or make the terminal type into the shell.
`visible` makes every control character except newline and tab visible; the command's
output (`Terminal`) and the TUI's rendering (`tui.render`) pass outside text through it.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import TextIO

# C0 controls but tab and newline, DEL, C1 controls, and lone surrogates (undecodable
# bytes of a file name, which a strict UTF-8 stream cannot even encode).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␛ for ESC, ␇ for BEL
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0x9F:
        return f"\\x{code:02x}"  # C1 controls have no pictures
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"  # the byte Python kept in a surrogate
    return f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with every control character except newline and tab made visible.

    ESC becomes ␛, BEL ␇, a lone carriage return ␍ (CRLF is a newline), a C1 control
    such as CSI the text `\\x9b`; everything else is unchanged.
    """
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_shown, text.replace("\r\n", "\n"))


# What `json.dumps(ensure_ascii=False)` leaves raw in its strings (it escapes C0 itself).
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\ud800-\udfff]")


def json_line(value: object) -> str:
    """`value` as one line of JSON: letters as written, every control character escaped.

    `ensure_ascii=False` keeps non-ASCII text readable but writes DEL, C1 controls (CSI
    `\\x9b`, OSC `\\x9d`) and lone surrogates raw; they become `\\u` escapes here, which
    any JSON reader turns back into the same characters.
    """
    text = json.dumps(value, ensure_ascii=False)
    return _UNSAFE_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


class Terminal:
    """Where the `docsagent` command writes: every line is made `visible` first.

    `say` writes to stdout (the answer, `--json`), `warn` to stderr (progress, the summary,
    errors). Streams default to `sys.stdout` and `sys.stderr` at construction.
    """

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr

    def say(self, text: str, *, end: str = "\n") -> None:
        """One line (or several) on stdout."""
        self.out.write(visible(text) + end)
        self.out.flush()

    def warn(self, text: str) -> None:
        """One line (or several) on stderr."""
        self.err.write(visible(text) + "\n")
        self.err.flush()

    def columns(self) -> int | None:
        """How wide stderr's terminal is ($COLUMNS first, as `shutil` does); None when piped."""
        return columns(self.err)

    def rewrite(self, text: str) -> None:
        """Replace the line stderr's cursor is on with `text`, leaving the cursor on it."""
        self.err.write("\r" + visible(text) + "\x1b[K")
        self.err.flush()

    def erase(self) -> None:
        """Clear the line stderr's cursor is on (after `rewrite`)."""
        self.err.write("\r\x1b[K")
        self.err.flush()

    def answer(self, markdown: str) -> None:
        """The answer on stdout: rendered Markdown on a terminal, plain text when piped."""
        text = visible(markdown)
        if self.out.isatty():
            from rich.console import Console
            from rich.markdown import Markdown

            # Rich adds only its own styling; the text itself is already safe.
            Console(file=self.out).print(Markdown(text))
        else:
            self.say(text.rstrip("\n"))


def columns(stream: TextIO) -> int | None:
    """The width of the terminal `stream` writes to, or None when it is not a terminal."""
    if not stream.isatty():
        return None
    given = os.environ.get("COLUMNS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, ValueError):  # a stream that says it is a terminal but has no descriptor
        return 80
