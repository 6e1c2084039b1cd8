"""What search keeps of each doc: its text folded to bytes, in a cache bounded in bytes.

A doc's bytes that are its text as they stand (`registry.bare`: most docs) are folded
without being decoded (`searchable`), and whether they are valid UTF-8 is left unchecked
until a keyword needs it. Measured on a first search of 10,000 docs (101 MB), half of
them not ASCII: decoding those to check them cost about a tenth of the search, and the
answer cannot change what an ASCII keyword finds (see `Doc.checked`).
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass, field

from agent.readers.registry import bare
from agent.tools.sandbox import FileKey
from agent.tools.textscan import fold_fully, line_count, lowers_to_ascii


@dataclass(slots=True)
class Doc:
    """What search keeps of a doc: its text lower-cased as UTF-8, and its file.

    `folded` has every letter lower-cased when `full` is set, else only the ASCII ones
    (enough for an ASCII keyword; see `textscan.fold`). When `checked` is not set,
    `folded` is the file's bytes lower-cased, not yet known to be valid UTF-8: a
    keyword in ASCII finds in them exactly the lines it finds in the decoded text (a
    byte that is not UTF-8 becomes U+FFFD, which holds no ASCII byte and no line break,
    and never swallows the ASCII bytes after it), so only a keyword beyond ASCII needs
    the check (`Corpus.doc` with `full`). The line count is counted on first use.
    """

    key: FileKey
    folded: bytes
    full: bool
    checked: bool
    file: bytes
    """The file's path on disk, as the system takes it: its status is checked on every use."""
    counted: int = field(default=-1, repr=False, compare=False)

    @property
    def lines(self) -> int:
        """How many lines the doc has (counted once)."""
        if self.counted < 0:
            self.counted = line_count(self.folded)
        return self.counted


def searchable(data: bytes, name: str, key: FileKey, file: str) -> Doc | None:
    """The Doc of a doc's bytes as read, folded as they stand; None when they must be
    decoded first (`registry.bare` says no, or they hold letters that lower to ASCII
    and are not valid UTF-8)."""
    if not bare(data, name):
        return None
    path = os.fsencode(file)
    if data.isascii():
        return Doc(key, data.lower(), True, True, path)
    if not lowers_to_ascii(data):
        return Doc(key, data.lower(), False, False, path)
    try:
        data.decode("utf-8")  # strict: fold_fully would let encoded surrogates through
    except UnicodeDecodeError:
        return None
    return Doc(key, fold_fully(data.lower()), True, True, path)


def valid(doc: Doc) -> bool:
    """Whether a doc's folded bytes are valid UTF-8 (lower-casing ASCII bytes keeps that)."""
    if doc.checked:
        return True
    try:
        doc.folded.decode("utf-8")
    except UnicodeDecodeError:
        return False
    doc.checked = True
    return True


class DocCache:
    """Docs by shown path, least recently used first out past `cache_bytes` of `folded`."""

    def __init__(self, cache_bytes: int) -> None:
        self.cache_bytes = cache_bytes
        self.docs: OrderedDict[str, Doc] = OrderedDict()
        self.size = 0
        """Bytes of `folded` held now."""

    def remember(self, rel: str, doc: Doc) -> None:
        """Keep `doc` for `rel`, dropping the least recently used past the bound."""
        self.forget(rel)
        size = len(doc.folded)
        if size > self.cache_bytes:
            return
        docs = self.docs
        while docs and self.size + size > self.cache_bytes:
            self.forget(next(iter(docs)))
        docs[rel] = doc
        self.size += size

    def forget(self, rel: str) -> None:
        """Drop the doc kept for `rel`, if any."""
        gone = self.docs.pop(rel, None)
        if gone is not None:
            self.size -= len(gone.folded)
