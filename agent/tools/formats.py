"""Doc formats: which file names are docs, and a doc's bytes as the lines every tool counts.

`read_doc`, `grep_docs`, `list_docs`, citations and the search index all number the
lines of the text `doc_text` returns (through `Corpus.read`), so a range one of them
gives is a range the others agree on.
Markdown, reStructuredText and plain text are read as they are; built HTML is read as
clean text with Markdown-style `#` headings (see `agent.tools.html`); `NAME.gz` is read
as NAME, unzipped up to a bound.
"""

from __future__ import annotations

import codecs
import contextlib
import re
import zlib
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Literal

from agent.tools.textscan import normalize_breaks

TEXT_SUFFIXES = (".md", ".markdown", ".rst", ".txt")
HTML_SUFFIXES = (".html", ".htm")
DOC_SUFFIXES = frozenset(TEXT_SUFFIXES + HTML_SUFFIXES)
DESCRIPTION = ".md, .markdown, .rst, .txt, .html or .htm files (gzipped or not)"
"""The doc types, as messages name them."""

MAX_UNZIPPED = 32 * 1024 * 1024
"""Bytes a gzipped doc may unzip to: a bound on memory for a hostile or broken file."""

SNIFF = 8192  # bytes looked at to tell binary data from text

GENERATED = frozenset({"genindex.html", "search.html", "py-modindex.html", "404.html"})
"""Pages a docs builder writes that index or search the docs rather than document anything."""

BUILD_MARKS = ("_static", "searchindex.js", "objects.inv", "search", "sitemap.xml")
"""What a builder's output folder holds beside those pages (Sphinx's `_static` and
`searchindex.js`, MkDocs' `search/` and `sitemap.xml`): elsewhere a page of the same name
is a doc, as Django's topic guide on searching, `topics/db/search.html`."""

GENERATED_FOLDERS = frozenset({"_sources", "_modules"})
"""Sphinx's copies of the sources and its highlighted code: the same text twice, or code."""

Style = Literal["markdown", "rst", "text"]
_PADDING = re.compile(rb"\0*")  # zero bytes between gzip members, as gzip itself allows
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w.:-]+)""", re.IGNORECASE)


class NotText(ValueError):
    """A doc whose bytes cannot be read as text; the message says why, in a few words."""


def doc_suffix(name: str) -> str | None:
    """The doc type of a file name (`.md`, `.html`, ...; `a.md.gz` is `.md`), or None."""
    lower = name.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    dot = lower.rfind(".")
    suffix = lower[dot:] if dot > 0 else ""
    return suffix if suffix in DOC_SUFFIXES else None


def is_generated(rel: str, built: Callable[[str], bool] = lambda folder: True) -> bool:
    """Whether a relative path is a docs builder's index, search page or source copy.

    `built(folder)` tells whether a folder is a builder's output (`BUILD_MARKS`): only
    there is a page named like an index or a search page one.
    """
    folder, _, name = rel.lower().rpartition("/")
    if "_" in folder and not GENERATED_FOLDERS.isdisjoint(folder.split("/")):
        return True  # (every generated folder's name holds a `_`: most paths skip the split)
    name = name.removesuffix(".gz")
    split_index = name.startswith("genindex-")  # Sphinx's index, one page per letter
    return (name in GENERATED or split_index) and built(rel.rpartition("/")[0])


def not_a_doc(rel: str, built: Callable[[str], bool] = lambda folder: True) -> str | None:
    """Why the file at relative path `rel` is not read as a doc, by its name; None if it is.

    `built` is as for `is_generated`."""
    if doc_suffix(rel) is None:
        return "unknown type"
    if is_generated(rel, built):
        return "generated"
    return None


def skipped_summary(skipped: Mapping[str, str], examples: int = 3) -> str:
    """A line counting skipped files by reason: `3 files skipped: 2 binary (a.txt, b.md); ...`.

    Files of unknown type are named by their suffixes, the others by their paths.
    """
    groups: dict[str, list[str]] = {}
    for rel, reason in sorted(skipped.items()):
        groups.setdefault(reason, []).append(rel)
    parts = []
    for reason, paths in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
        if reason == "unknown type":
            counted = Counter(_kind(rel) for rel in paths)
            kinds = sorted(counted.items(), key=lambda item: (-item[1], item[0]))
            names, label = [f"{n} {kind}" for kind, n in kinds], "of unknown type"
        else:
            names, label = paths, reason
        shown = ", ".join(names[:examples]) + (", …" if len(names) > examples else "")
        parts.append(f"{len(paths)} {label} ({shown})")
    total = len(skipped)
    return f"{total} file{'s' if total != 1 else ''} skipped: " + "; ".join(parts)


def _kind(rel: str) -> str:
    name = rel.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else "no suffix"


def heading_style(name: str) -> Style:
    """How a doc marks its headings: Markdown (and HTML, read as Markdown), rST, or plain text."""
    suffix = doc_suffix(name)
    if suffix == ".rst":
        return "rst"
    if suffix == ".txt":
        return "text"
    return "markdown"


def doc_lines(data: bytes, name: str) -> list[str]:
    """The lines of a doc named `name` (path or file name) holding `data`; NotText if none.

    Lines end at `\n`, `\r\n` or `\r`, as an editor and `read_doc` number them.
    """
    text = normalize_breaks(doc_text(data, name))
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def doc_text(data: bytes, name: str) -> str:
    """A doc's text, without a list of its lines (see `doc_lines`).

    Line breaks may still be `\r\n` or `\r`: callers normalise them (see
    `agent.tools.textscan.normalize_breaks`). A 50 MB doc of short lines stays one string
    here, where a list would hold millions of small ones.
    """
    if name.lower().endswith(".gz"):
        data = gunzip(data)
    if b"\0" in data[:SNIFF] and not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise NotText("binary")
    if doc_suffix(name) in HTML_SUFFIXES:
        from agent.tools.html import html_lines  # its parser loads only for HTML docs

        return "\n".join(html_lines(decode(data, html=True)))
    return decode(data)


def bare(data: bytes, name: str) -> bool:
    """Whether `doc_text` would only decode a doc's bytes as UTF-8, with every line break
    already `\n` (so `normalize_breaks` keeps it): no gzip, no HTML, no BOM, no `\r`, not
    binary. Whether they are valid UTF-8 is not checked here.

    A search can then fold the bytes without decoding them (see `agent.tools.doccache`,
    which tells when the check left out matters).
    """
    lower = name.lower()
    if lower.endswith(".gz") or lower.endswith(HTML_SUFFIXES) or b"\r" in data:
        return False
    if data.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    return data.find(b"\0", 0, SNIFF) < 0  # else binary: doc_text says so


def gunzip(data: bytes, limit: int = MAX_UNZIPPED) -> bytes:
    """The unzipped bytes of a gzip file (every member), NotText past `limit` or if broken.

    Each member is fed in growing pieces from where the last one ended: zlib copies what it
    did not use, so feeding it the rest of the file for each member was quadratic (tens of
    thousands of empty members took minutes).
    """
    out = bytearray()
    view = memoryview(data)
    at = 0
    try:
        while at < len(data):
            unzip = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            piece = 64
            while not unzip.eof:
                if at >= len(data):
                    raise NotText("a gzip file cut short")
                chunk = view[at : at + piece]
                out += unzip.decompress(chunk, limit + 1 - len(out))
                if len(out) > limit:
                    raise NotText(f"unzips to more than {limit // (1024 * 1024)} MB")
                at += len(chunk) - len(unzip.unused_data)
                piece = min(piece * 2, 1 << 16)
            at = _PADDING.match(data, at).end()  # type: ignore[union-attr]
    except zlib.error:
        raise NotText("not a valid gzip file") from None
    return bytes(out)


def decode(data: bytes, *, html: bool = False) -> str:
    """Text from bytes: a BOM's encoding, an HTML page's declared charset, else UTF-8.

    Bytes that are not valid in the encoding are replaced, never an error.
    """
    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    encoding = "utf-8"
    declared = _CHARSET.search(data[:2048]) if html else None
    if declared:
        with contextlib.suppress(LookupError):
            encoding = codecs.lookup(declared[1].decode("ascii")).name
    return data.decode(encoding, errors="replace")


def split_lines(text: str) -> list[str]:
    """Lines as an editor numbers them: split at \\n, \\r\\n or \\r, and nothing else."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines
