"""Where a doc's lines break: `\\n`, `\\r\\n` and `\\r`, as an editor numbers them."""

from __future__ import annotations

import re

_BREAKS = re.compile("\r\n|\r")
BREAK_CHARS = "\r"
"""Line breaks as an editor numbers lines: `\n`, `\r\n` and `\r`; a form feed or U+2028
stays inside its line, so a citation's line numbers are the ones `vim` or `less` shows."""


def normalize_breaks(text: str) -> str:
    """`text` with every line break (`\r\n` or `\r`) turned into `\n`."""
    return _BREAKS.sub("\n", text) if "\r" in text else text
