"""What every reader shares: the `Reader` Protocol, how a doc marks its headings, NotText."""

from __future__ import annotations

from typing import Literal, Protocol

Style = Literal["markdown", "rst", "text"]
"""How a reader's text marks its headings: Markdown `#` lines, rST underlines, plain text."""


class NotText(ValueError):
    """A doc whose bytes cannot be read as text; the message says why, in a few words."""


class Reader(Protocol):
    """A reader module: one format's bytes (unzipped, if the file was gzipped) as text.

    Line breaks in the text may be `\\n`, `\\r\\n` or `\\r`; every line of it is a line
    that `read_doc`, search and citations count. Raise NotText when the bytes hold none.
    """

    def read(self, data: bytes) -> str:
        """The doc's text."""
        ...


class Verbatim(Protocol):
    """A reader module whose text is, for many docs, their bytes decoded as they stand."""

    def verbatim(self, data: bytes) -> bool:
        """Whether `read(data)` is `data` decoded as UTF-8, unchanged (given no BOM, no
        `\\r` and no binary data: the registry checks those)."""
        ...
