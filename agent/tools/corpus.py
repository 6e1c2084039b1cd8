"""A docs folder: which files count as docs, reading them safely, and what search keeps.

`Corpus.read` is the one place a doc is opened and read: through the sandbox
(`agent.tools.sandbox`), checked at the time of reading and capped in size. Everything
else derives from the text it returns: `read_doc`'s pages, and the `Doc` that search and
`list_docs` use (the text case-folded, its line count and title), kept in a cache that
is bounded in bytes and checked against the file's status on every use.
"""

from __future__ import annotations

import os
import stat
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agent.defaults import DEFAULT_DOC_CACHE_BYTES, DEFAULT_MAX_DOC_BYTES
from agent.errors import ConfigError
from agent.readers.base import NotText
from agent.readers.lines import normalize_breaks
from agent.readers.names import BUILD_MARKS, not_a_doc
from agent.readers.pages import Pages, pages_in, shown
from agent.readers.registry import DESCRIPTION, doc_text, heading_style, is_paged
from agent.search.sections import first_heading
from agent.search.store import Kept
from agent.tools.doccache import Doc, DocCache, searchable, valid
from agent.tools.sandbox import (
    FileKey,
    Unreadable,
    current_key,
    escape_name,
    inside,
    printable,
    read_inside,
    walk,
)
from agent.tools.textscan import fold, fold_fully, lines_at

NOT_DOCS = frozenset({"license", "licence", "copying", "notice"})
TITLE_LINES = 40  # a title is a heading among a doc's first lines
RECENT_CHARS = 32 * 1024 * 1024
"""Characters of doc text `Corpus.text` keeps for the next call, the latest docs' in all."""


class OutsideDocs(ValueError):
    """A path that does not lead to a doc inside the folder."""


@dataclass(frozen=True)
class DocText:
    """A doc's text as read (line breaks as `\\n`) and the key of the file it came from."""

    text: str
    key: FileKey


class KeptTexts(Protocol):
    """Where the texts of costly docs (PDFs) are kept once read: the search index."""

    def kept(self, path: str, mtime_ns: int, size: int) -> Kept | None:
        """The text kept (or why the doc was skipped) for this version of the file, or None."""
        ...


class Corpus:
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
        self._real = os.path.realpath(root)
        self.root = Path(self._real)
        self.max_doc_bytes = max_doc_bytes
        self.cache_bytes = cache_bytes
        self._paths: list[str] | None = None
        self._path_set: frozenset[str] = frozenset()
        self._files: dict[str, str] = {}  # shown name -> the file's path on disk
        self._skipped: list[Unreadable] = []
        self._passed_over: dict[str, str] = {}  # not docs, by name: never opened
        self._builds: dict[str, bool] = {}  # folder -> whether a builder wrote it
        self._unread: dict[str, str] = {}  # docs that could not be read when last tried
        self._cache = DocCache(cache_bytes)
        self._recent: OrderedDict[str, DocText] = OrderedDict()  # texts last read, by doc
        self._recent_chars = 0  # characters of text in `_recent`, kept as it changes
        self._titles: dict[str, tuple[FileKey, str]] = {}  # each doc's title, by its file's key
        self._pages: dict[str, tuple[FileKey, Pages]] = {}  # each PDF's page starts, by key
        self.kept: KeptTexts | None = None
        """The search index over this corpus, once one is made (`DocsContext`): a PDF's
        text is taken from it while the file is unchanged, not read again."""

    @classmethod
    def open(cls, root: Path | str, **options: int) -> Corpus:
        """A corpus over `root`; raises ConfigError if it is missing or holds no docs."""
        path = Path(root).expanduser()
        shown = _shown(str(path))
        try:
            mode = path.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            raise ConfigError(f"docs folder not found: {shown}") from None
        except (OSError, ValueError) as exc:  # a name too long, a NUL byte, no permission
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise ConfigError(f"cannot open the docs folder {shown}: {reason}") from None
        if not stat.S_ISDIR(mode):
            raise ConfigError(f"not a folder of docs: {shown}", fields=("docs",))
        corpus = cls(path, **options)
        if not corpus.paths():
            unlisted = next((s for s in corpus.skipped if s.name == "/"), None)
            if unlisted is not None:
                raise ConfigError(f"cannot open the docs folder {path}: {unlisted.reason}")
            raise ConfigError(f"no docs in {path}: expected {DESCRIPTION}")
        return corpus

    def paths(self) -> list[str]:
        """Every doc's shown path relative to the root, with `/`, sorted (found once)."""
        if self._paths is None:
            found = walk(self._real, self._is_doc)
            inside = os.path.join(self._real, "")  # the root and a separator: + rel is a path
            shown = {escape_name(rel): inside + rel for rel in found.files}
            self._files = shown
            self._skipped = found.skipped
            self._paths = sorted(shown)
            self._path_set = frozenset(self._paths)
        return self._paths

    @property
    def skipped(self) -> list[Unreadable]:
        """The folders and files the scan for docs could not open."""
        self.paths()
        return self._skipped

    def _is_doc(self, rel: str) -> bool:
        """Whether the file at `rel` is a doc by its name; if not, remember why."""
        name = rel.rsplit("/", 1)[-1]
        reason = (
            "licence" if name.split(".")[0].lower() in NOT_DOCS else not_a_doc(rel, self._built)
        )
        if reason is not None:
            self._passed_over[escape_name(rel)] = reason
        return reason is None

    def _built(self, folder: str) -> bool:
        """Whether a folder of the docs is a docs builder's output (`BUILD_MARKS`)."""
        if folder not in self._builds:
            place = os.path.join(self._real, folder)
            self._builds[folder] = any(os.path.exists(os.path.join(place, m)) for m in BUILD_MARKS)
        return self._builds[folder]

    def resolve(self, path: str) -> str:
        """The shown relative path of a doc, or OutsideDocs saying why not."""
        cleaned = path.strip()
        self.paths()
        if cleaned in self._path_set:
            return cleaned
        shown = printable(path)
        cleaned = cleaned.replace("\\", "/")
        if cleaned.startswith("/") or (len(cleaned) > 1 and cleaned[1] == ":"):
            raise OutsideDocs(f"'{shown}' is an absolute path; paths are relative to the docs")
        if "\x00" in cleaned:
            raise OutsideDocs(f"no file '{shown}' in the docs")
        real = os.path.realpath(os.path.join(self._real, cleaned))
        if not inside(self._real, real):
            raise OutsideDocs(f"'{shown}' is outside the docs folder")
        if not os.path.isfile(real):
            raise OutsideDocs(f"no file '{shown}' in the docs")
        rel = escape_name(os.path.relpath(real, self._real).replace(os.sep, "/"))
        if rel not in self._path_set:
            raise OutsideDocs(f"'{shown}' is not a doc (docs are {DESCRIPTION})")
        return rel

    def read(self, rel: str) -> DocText:
        """A doc's text, read now: the one place a doc is opened and read.

        The file must be, at this moment, a regular file inside the folder and at most
        `max_doc_bytes` long; otherwise this raises Unreadable, naming the doc and why.
        A PDF's text is the one the index keeps, while its file is unchanged.
        """
        kept = self._kept(rel)
        return kept if kept is not None else self._decoded(rel, *self._read_bytes(rel))

    def _kept(self, rel: str) -> DocText | None:
        """A paged doc's text as the index keeps it for its file as it is now (None if
        it keeps none); Unreadable, with the reason, when the index skipped it."""
        if self.kept is None or not is_paged(rel):
            return None
        self.paths()
        path = self._files.get(rel)
        key = current_key(path) if path is not None else None
        found = self.kept.kept(rel, key[3], key[2]) if key is not None else None
        if found is None or key is None:
            return None
        if found.skipped is not None:
            self._unread[rel] = found.skipped
            raise Unreadable(rel, found.skipped)
        self._unread.pop(rel, None)
        return DocText(found.text, key)

    def _decoded(self, rel: str, data: bytes, key: FileKey) -> DocText:
        """The text of a doc's bytes as read; raises Unreadable if they hold none."""
        try:
            text = doc_text(data, rel)
        except NotText as exc:
            self._unread[rel] = str(exc)
            raise Unreadable(rel, str(exc)) from None
        self._unread.pop(rel, None)
        return DocText(normalize_breaks(text), key)

    def _read_bytes(self, rel: str) -> tuple[bytes, FileKey]:
        """A doc's bytes, read now through the sandbox, and its key; raises Unreadable."""
        self.paths()
        path = self._files.get(rel)
        if path is None:
            raise Unreadable(rel, "it is not a doc in this folder")
        try:
            return read_inside(self._real, path, name=rel, limit=self.max_doc_bytes)
        except Unreadable as exc:
            self._unread[rel] = exc.reason
            raise

    def read_lines(self, rel: str) -> list[str]:
        """A doc's lines, read now (for the search index); NotText when it cannot be read."""
        try:
            text = self._decoded(rel, *self._read_bytes(rel)).text  # never the index's own
        except Unreadable as exc:
            raise NotText(exc.reason) from None
        lines = text.split("\n")
        if lines[-1] == "":  # the break that ends the last line starts no new one
            lines.pop()
        return lines

    def file(self, rel: str) -> str:
        """Where the doc shown as `rel` is on disk (names not shown as they are differ)."""
        self.paths()
        return self._files.get(rel, os.path.join(self._real, rel))

    def passed_over(self) -> dict[str, str]:
        """Files the scan did not take as docs, by name, and why (`unknown type`, ...)."""
        self.paths()
        return dict(self._passed_over)

    def unread(self) -> dict[str, str]:
        """Docs that could not be read when last tried, and why."""
        return dict(self._unread)

    def doc(self, rel: str, *, full: bool = False) -> Doc:
        """A doc as search sees it: from the cache while the file is unchanged, else read.

        Args:
            rel: The doc's shown path.
            full: Whether every letter must be lower-cased (for a keyword not in ASCII).
        """
        cache = self._cache
        doc = cache.docs.get(rel)
        if doc is None or doc.key != current_key(self._files[rel]):
            cache.forget(rel)
            doc = self._load(rel)
        elif doc.full or not full:
            cache.docs.move_to_end(rel)
            return doc
        if full and not doc.full:
            if not valid(doc):  # bytes that are not UTF-8: search the text they decode to
                read = self._keep(rel, self._decoded(rel, *self._read_bytes(rel)))
                doc = self._fold(read, rel)
            if not doc.full:
                doc = Doc(doc.key, fold_fully(doc.folded), True, True, doc.file)
        cache.remember(rel, doc)
        return doc

    def docs(self, paths: Iterable[str], *, full: bool = False) -> Iterator[Doc | Unreadable]:
        """Each of `paths` as `doc` gives it, or the Unreadable it raises, in order.

        The same checks as `doc` (every file's status now against its cached key), with
        the lookups inlined: a search runs this for every doc in the folder.
        """
        cache, stat = self._cache, os.stat
        cached = cache.docs
        for rel in paths:
            doc = cached.get(rel)
            if doc is None:  # not read yet: a big folder's first search reads each doc here
                try:
                    doc = self._load(rel)
                except Unreadable as exc:
                    yield exc
                    continue
                cache.remember(rel, doc)
                if doc.full or not full:
                    yield doc
                    continue
            elif doc.full or not full:
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
                    cached.move_to_end(rel)
                    yield doc
                    continue
            try:
                yield self.doc(rel, full=full)
            except Unreadable as exc:
                yield exc

    def _load(self, rel: str) -> Doc:
        """A doc as search sees it, read now. Bytes that are their text as they stand
        (`doccache.searchable`: most docs) are folded without being decoded, which
        halves the cost of a big folder's first search; others are read as `text`
        reads them."""
        read = self._recent.get(rel)
        if read is None or read.key != current_key(self._files[rel]):
            read = self._kept(rel)
            if read is None:
                data, key = self._read_bytes(rel)
                doc = searchable(data, rel, key, self._files[rel])
                if doc is not None:
                    self._unread.pop(rel, None)
                    return doc
                read = self._decoded(rel, data, key)
            read = self._keep(rel, read)
        return self._fold(read, rel)

    def _fold(self, read: DocText, rel: str) -> Doc:
        """The Doc of a doc's text as read."""
        folded, full = fold(read.text)
        return Doc(read.key, folded, full, True, os.fsencode(self._files[rel]))

    def lines(self, rel: str, start: int, end: int) -> list[str]:
        """Lines `start` to `end` (1-based, inclusive) of a doc as it reads now: fewer if
        the doc is shorter; raises Unreadable as `read` does."""
        found = lines_at(self.text(rel).text, range(max(start, 1), end + 1))
        return list(found.values())

    def text(self, rel: str) -> DocText:
        """A doc's text as `read` gives it, kept for the next call while its file is
        unchanged (the most recent docs, `RECENT_CHARS` in all): a model reads one doc
        in several ranges, and a built page can take seconds to turn into text (Node's
        6 MB `all.html`, 3.6 s). Raises Unreadable as `read` does."""
        self.paths()
        kept = self._recent.get(rel)
        if kept is not None and rel in self._files and kept.key == current_key(self._files[rel]):
            self._recent.move_to_end(rel)
            return kept
        return self._keep(rel, self.read(rel))

    def _keep(self, rel: str, read: DocText) -> DocText:
        """`read`, kept as `text` keeps the latest docs' texts (a running total of their
        size: summing them on every insert made a big folder's first search quadratic)."""
        gone = self._recent.pop(rel, None)
        if gone is not None:
            self._recent_chars -= len(gone.text)
        if len(read.text) <= RECENT_CHARS:
            self._recent[rel] = read
            self._recent_chars += len(read.text)
            while self._recent_chars > RECENT_CHARS:
                _, oldest = self._recent.popitem(last=False)
                self._recent_chars -= len(oldest.text)
        return read

    def title(self, rel: str) -> str:
        """The doc's first heading, or '': found once while its file is unchanged.

        Raises Unreadable as `read` does."""
        self.paths()
        known = self._titles.get(rel)
        if known is not None and rel in self._files and known[0] == current_key(self._files[rel]):
            return known[1]
        read = self.text(rel)
        head = read.text.split("\n", TITLE_LINES)[:TITLE_LINES]
        title = first_heading(head, heading_style(rel))
        self._titles[rel] = (read.key, title)
        return title

    def pages(self, rel: str) -> Pages | None:
        """Where a paged doc's pages start (a PDF's), found once while its file is
        unchanged; None for a doc without pages. Raises Unreadable as `read` does."""
        if not is_paged(rel):
            return None
        read = self.text(rel)
        known = self._pages.get(rel)
        if known is not None and known[0] == read.key:
            return known[1]
        pages = pages_in(read.text)
        self._pages[rel] = (read.key, pages)
        return pages

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

    @property
    def cached_bytes(self) -> int:
        """Bytes of searchable text held in the cache now (at most `cache_bytes`)."""
        return self._cache.size


SHOWN_PATH_CHARS = 200
"""A folder's path longer than this is shortened in error lines (middle elided)."""


def _shown(path: str) -> str:
    """`path` for an error line: whole when short, else its start and end around `…`."""
    if len(path) <= SHOWN_PATH_CHARS:
        return path
    half = SHOWN_PATH_CHARS // 2
    return f"{path[:half]}…{path[-half:]}"
