"""A docs folder's docs read safely, through one path and one cache.

`Corpus._load` is the one place a doc is read: a PDF's text from the search index while
its file is unchanged, else its bytes through the sandbox (`agent.tools.sandbox`),
checked at the time of reading and capped in size, then decoded by its format's reader.
Everything the tools, the index and citations use derives from what it returns, kept in
one `DocCache` entry per doc that is checked against the file's status on every use:
`read_doc`'s text, search's folded bytes, `list_docs`' title and line count, a PDF's pages.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol

from agent.defaults import DEFAULT_DOC_CACHE_BYTES, DEFAULT_MAX_DOC_BYTES
from agent.readers.base import NotText
from agent.readers.lines import normalize_breaks
from agent.readers.pages import Pages, pages_in, shown
from agent.readers.registry import doc_text, heading_style, is_paged
from agent.search.sections import first_heading
from agent.search.store import Kept
from agent.tools.doccache import Doc, DocCache, DocText, Entry, folded, searchable, valid
from agent.tools.folder import DocsFolder
from agent.tools.sandbox import Unreadable, current_key, read_inside
from agent.tools.textscan import fold_fully, lines_at

TITLE_LINES = 40  # a title is a heading among a doc's first lines
TEXT_CHARS = 32 * 1024 * 1024
"""Characters of doc text kept for the next call, the latest docs' in all: a model reads
one doc in several ranges, and a built page can take seconds to turn into text (Node's
6 MB `all.html`, 3.6 s)."""


class KeptTexts(Protocol):
    """Where the texts of costly docs (PDFs) are kept once read: the search index."""

    def kept(self, path: str, mtime_ns: int, size: int) -> Kept | None:
        """The text kept (or why the doc was skipped) for this version of the file, or None."""
        ...


class Corpus(DocsFolder):
    """The docs under `root`: found once, read safely whenever asked for.

    Args:
        root: The docs folder.
        max_doc_bytes: Bytes of one doc read at most; a bigger doc is Unreadable.
        cache_bytes: Bytes of `Doc.folded` kept between uses, least recently used first out.
    """

    def __init__(
        self,
        root: Path | str,
        *,
        max_doc_bytes: int = DEFAULT_MAX_DOC_BYTES,
        cache_bytes: int = DEFAULT_DOC_CACHE_BYTES,
    ) -> None:
        super().__init__(root)
        self.max_doc_bytes = max_doc_bytes
        self.cache_bytes = cache_bytes
        self._unread: dict[str, str] = {}  # docs that could not be read when last tried
        self._cache = DocCache(cache_bytes, TEXT_CHARS)
        self.kept: KeptTexts | None = None
        """The search index over this corpus, once one is made (`DocsContext`): a PDF's
        text is taken from it while the file is unchanged, not read again."""

    def _load(self, rel: str, *, index: bool = True, bare: bool = False) -> Entry:
        """A doc read now: the one place a doc is opened and read. Raises Unreadable,
        naming the doc and why, unless the file is, at this moment, a regular file inside
        the folder and at most `max_doc_bytes` long, and its format's reader finds text.

        Args:
            rel: The doc's shown path.
            index: Whether a PDF's text may be the one the index keeps (the index itself
                reads afresh).
            bare: Whether bytes that are their text as they stand (`doccache.searchable`:
                most docs) are folded for search without being decoded, which halves the
                cost of a big folder's first search; the entry then holds no text.
        """
        self.paths()
        path = self._files.get(rel)
        if path is None:
            raise Unreadable(rel, "it is not a doc in this folder")
        file = os.fsencode(path)
        kept = self._kept(rel, path) if index and self.kept is not None else None
        if kept is not None:
            return Entry(kept.key, file, text=kept)
        try:
            data, key = read_inside(self._real, path, name=rel, limit=self.max_doc_bytes)
            doc = searchable(data, rel, key, path) if bare else None
            if doc is not None:
                entry = Entry(key, file, doc=doc)
            else:
                entry = Entry(key, file, text=DocText(normalize_breaks(doc_text(data, rel)), key))
        except Unreadable as exc:
            self._unread[rel] = exc.reason
            raise
        except NotText as exc:
            self._unread[rel] = str(exc)
            raise Unreadable(rel, str(exc)) from None
        self._unread.pop(rel, None)
        return entry

    def _kept(self, rel: str, path: str) -> DocText | None:
        """A paged doc's text as the index keeps it for its file as it is now, and the
        file's key (None if it keeps none); Unreadable when the index skipped it."""
        if self.kept is None or not is_paged(rel):
            return None
        key = current_key(path)
        found = self.kept.kept(rel, key[3], key[2]) if key is not None else None
        if found is None or key is None:
            return None
        if found.skipped is not None:
            self._unread[rel] = found.skipped
            raise Unreadable(rel, found.skipped)
        self._unread.pop(rel, None)
        return DocText(found.text, key)

    def read(self, rel: str) -> DocText:
        """A doc's text, read now (not from the cache); raises Unreadable as `_load` does.
        A PDF's text is the one the index keeps, while its file is unchanged."""
        read = self._load(rel).text
        assert read is not None  # read without `bare`: decoded
        return read

    def read_lines(self, rel: str) -> list[str]:
        """A doc's lines, read now (for the search index); NotText when it cannot be read."""
        try:
            read = self._load(rel, index=False).text  # never the index's own
            text = read.text if read is not None else ""
        except Unreadable as exc:
            raise NotText(exc.reason) from None
        lines = text.split("\n")
        if lines[-1] == "":  # the break that ends the last line starts no new one
            lines.pop()
        return lines

    def unread(self) -> dict[str, str]:
        """Docs that could not be read when last tried, and why."""
        return dict(self._unread)

    def _entry(self, rel: str) -> Entry | None:
        """The cache's entry for `rel` while its file is unchanged, else None."""
        if rel not in self._cache.entries:
            return None  # (a big folder's first search: no status asked for twice)
        path = self._files.get(rel)
        return self._cache.get(rel, current_key(path)) if path is not None else None

    def _with_text(self, rel: str, entry: Entry | None) -> tuple[Entry, DocText]:
        """`rel`'s entry and its text: `entry`'s (one whose status was checked), else read
        now (`read`) and kept, in `entry` if it is still the cache's for the file read."""
        if entry is not None and entry.text is not None:
            return entry, entry.text
        read = self.read(rel)
        if entry is None or entry.key != read.key or self._cache.entries.get(rel) is not entry:
            entry = self._cache.add(rel, read.key, os.fsencode(self._files[rel]))
        self._cache.keep_text(rel, entry, read)
        return entry, read

    def text(self, rel: str) -> DocText:
        """A doc's text as `read` gives it, kept for the next call while its file is
        unchanged (the most recent docs, `TEXT_CHARS` in all). Raises Unreadable as
        `read` does."""
        return self._with_text(rel, self._entry(rel))[1]

    def lines(self, rel: str, start: int, end: int) -> list[str]:
        """Lines `start` to `end` (1-based, inclusive) of a doc as it reads now: fewer if
        the doc is shorter; raises Unreadable as `read` does."""
        found = lines_at(self.text(rel).text, range(max(start, 1), end + 1))
        return list(found.values())

    def title(self, rel: str) -> str:
        """The doc's first heading, or '': found once while its file is unchanged.

        Raises Unreadable as `read` does."""
        entry = self._cache.entries.get(rel)
        if entry is not None and (entry.title is not None or entry.text is not None):
            entry = self._entry(rel)  # its file's status checked: what it holds is used
            if entry is not None and entry.title is not None:
                return entry.title
        entry, read = self._with_text(rel, entry)  # (a doc that grep folded: read now)
        head = read.text.split("\n", TITLE_LINES)[:TITLE_LINES]
        entry.title = first_heading(head, heading_style(rel))
        return entry.title

    def pages(self, rel: str) -> Pages | None:
        """Where a paged doc's pages start (a PDF's), found once while its file is
        unchanged; None for a doc without pages. Raises Unreadable as `read` does."""
        if not is_paged(rel):
            return None
        entry = self._entry(rel)
        if entry is None or entry.pages is None:
            entry, read = self._with_text(rel, entry)
            entry.pages = pages_in(read.text)
        return entry.pages

    def page_span(self, rel: str, start: int, end: int) -> str | None:
        """The pages lines `start`-`end` of a doc stand on, as shown (`p. iv`, `p. 12–13`);
        None for a doc without pages or one that cannot be read now."""
        try:
            pages = self.pages(rel)
        except Unreadable:
            return None
        span = pages.span(start, end) if pages is not None else None
        return shown(span) if span is not None else None

    def line_count(self, rel: str) -> int:
        """How many lines the doc has."""
        return self.doc(rel).lines

    def doc(self, rel: str, *, full: bool = False) -> Doc:
        """A doc as search sees it: from the cache while the file is unchanged, else read.

        Args:
            rel: The doc's shown path.
            full: Whether every letter must be lower-cased (for a keyword not in ASCII).
        """
        entry = self._entry(rel)
        doc = entry.doc if entry is not None else None
        if doc is not None and (doc.full or not full):
            return doc
        if entry is not None and doc is None and entry.text is not None:
            doc = folded(entry.text.text, entry.key, entry.file)
        elif entry is None or doc is None:
            entry, doc = self._searched(rel, entry)
        if full and not doc.full:
            if not valid(doc):  # bytes that are not UTF-8: search the text they decode to
                entry, read = self._with_text(rel, entry)
                doc = folded(read.text, read.key, entry.file)
            if not doc.full:
                doc = Doc(doc.key, fold_fully(doc.folded), True, True, doc.file)
        self._cache.keep_doc(rel, entry, doc)
        return doc

    def _searched(self, rel: str, entry: Entry | None) -> tuple[Entry, Doc]:
        """A doc read now for search (`_load` with `bare`), its entry and its Doc."""
        read = self._load(rel, bare=True)
        if entry is None or entry.key != read.key:
            entry = self._cache.add(rel, read.key, read.file)
        if read.text is not None:
            self._cache.keep_text(rel, entry, read.text)
        return entry, read.doc or folded(read.text.text if read.text else "", read.key, read.file)

    def docs(self, paths: Iterable[str], *, full: bool = False) -> Iterator[Doc | Unreadable]:
        """Each of `paths` as `doc` gives it, or the Unreadable it raises, in order.

        The same checks as `doc` (every file's status now against its cached key), with
        the lookups inlined: a search runs this for every doc in the folder.
        """
        entries, stat = self._cache.entries, os.stat
        for rel in paths:
            entry = entries.get(rel)
            doc = entry.doc if entry is not None else None
            if doc is not None and (doc.full or not full):
                try:
                    info = stat(doc.file)
                except (OSError, ValueError):
                    info = None
                if info is not None and doc.key == (  # sandbox.key_of, inlined
                    info.st_dev,
                    info.st_ino,
                    info.st_size,
                    info.st_mtime_ns,
                    info.st_ctime_ns,
                ):
                    entries.move_to_end(rel)
                    yield doc
                    continue
            try:
                yield self.doc(rel, full=full)
            except Unreadable as exc:
                yield exc

    @property
    def cached_bytes(self) -> int:
        """Bytes of searchable text held in the cache now (at most `cache_bytes`)."""
        return self._cache.size
