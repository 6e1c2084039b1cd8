"""The one cache of what was read of each doc: its text, its folded bytes, title and pages.

Every use of a doc after its reading (`Corpus`) goes through an `Entry` here, checked
against the file's status (`FileKey`) once, so a changed file is read again for all of
them at once. Two bounds hold: the folded bytes search keeps (`cache_bytes`, least
recently used doc first out) and the texts kept for the next range a model reads
(`text_chars`, least recently read text first out; its entry keeps the rest).

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

from agent.readers.pages import Pages
from agent.readers.registry import bare
from agent.tools.sandbox import FileKey
from agent.tools.textscan import fold, fold_fully, line_count, lowers_to_ascii


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


def folded(text: str, key: FileKey, file: bytes) -> Doc:
    """The Doc of a doc's text as read."""
    data, full = fold(text)
    return Doc(key, data, full, True, file)


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


@dataclass(frozen=True)
class DocText:
    """A doc's text as read (line breaks as `\\n`) and the key of the file it came from."""

    text: str
    key: FileKey


@dataclass(slots=True)
class Entry:
    """What was read of one version of a doc's file (`key`): each part made on first use."""

    key: FileKey
    file: bytes
    """The file's path on disk, as the system takes it."""
    text: DocText | None = None
    """The text as read; None until read, or once dropped."""
    doc: Doc | None = None
    """What search keeps of it; None until searched."""
    title: str | None = None
    pages: Pages | None = None


class DocCache:
    """Entries by shown path, within `cache_bytes` of folded bytes and `text_chars` of text."""

    def __init__(self, cache_bytes: int, text_chars: int) -> None:
        self.cache_bytes = cache_bytes
        self.text_chars = text_chars
        self.entries: OrderedDict[str, Entry] = OrderedDict()
        """Least recently used first: `move_to_end` on use."""
        self.size = 0
        """Bytes of `Doc.folded` held now."""
        self._texts: OrderedDict[str, int] = OrderedDict()  # entries holding text: its length
        self._chars = 0  # their sum, kept as it changes (summing per insert was quadratic)

    def get(self, rel: str, key: FileKey | None) -> Entry | None:
        """The entry of `rel` while its file's key is `key`; a stale one is dropped."""
        entry = self.entries.get(rel)
        if entry is None:
            return None
        if entry.key != key:
            self.forget(rel)
            return None
        self.entries.move_to_end(rel)
        return entry

    def add(self, rel: str, key: FileKey, file: bytes) -> Entry:
        """A new, empty entry for this version (`key`) of `rel`'s file, replacing any other."""
        if rel in self.entries:
            self.forget(rel)
        entry = self.entries[rel] = Entry(key, file)
        return entry

    def keep_doc(self, rel: str, entry: Entry, doc: Doc) -> None:
        """Set `entry.doc` (`rel`'s), dropping the least recently used entries past
        `cache_bytes`; a doc over the bound on its own is not kept."""
        if self.entries.get(rel) is not entry:
            return  # dropped meanwhile: the caller has the doc in hand
        gone, entry.doc = entry.doc, None
        if gone is not None:
            self.size -= len(gone.folded)
        size = len(doc.folded)
        if size > self.cache_bytes:
            return
        entries = self.entries
        entries.move_to_end(rel)  # never its own victim: another entry holds the bytes over
        while self.size + size > self.cache_bytes:
            self.forget(next(iter(entries)))
        entry.doc = doc
        self.size += size

    def keep_text(self, rel: str, entry: Entry, text: DocText) -> None:
        """Set `entry.text` (`rel`'s), dropping the least recently read texts past
        `text_chars`; a text over the bound on its own is not kept."""
        if self.entries.get(rel) is not entry:
            return  # dropped meanwhile: the caller has the text in hand
        self._drop_text(rel)
        chars = len(text.text)
        if chars > self.text_chars:
            return
        entry.text = text
        self._texts[rel] = chars
        self._chars += chars
        while self._chars > self.text_chars:
            self._drop_text(next(iter(self._texts)))

    def forget(self, rel: str) -> None:
        """Drop the entry kept for `rel`, if any."""
        self._drop_text(rel)
        gone = self.entries.pop(rel, None)
        if gone is not None and gone.doc is not None:
            self.size -= len(gone.doc.folded)

    def _drop_text(self, rel: str) -> None:
        chars = self._texts.pop(rel, None)
        if chars is not None:
            self._chars -= chars
            self.entries[rel].text = None
