"""Doc formats by suffix: which names are docs, and a doc's bytes as the lines every tool counts.

`read_doc`, `grep_docs`, `list_docs`, citations and the search index all number the
lines of the text `doc_text` returns (through `Corpus.read`), so a range one of them
gives is a range the others agree on. Each format is read by its own module (a
`Reader`), imported the first time a doc of that format is read: Markdown (`markdown`),
MDX (`mdx`), reStructuredText (`rst`) and plain text (`plain`) keep every line where the
file has it; built HTML (`html`) and EPUB books (`epub`) are read as clean text with
Markdown-style `#` headings, and man pages (`man`) one text line for each source line.
`NAME.gz` is read as NAME, unzipped up to a bound.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import cast

from agent.readers.base import Reader, Style, Verbatim
from agent.readers.decoding import BOMS, is_binary
from agent.readers.lines import normalize_breaks
from agent.readers.unzip import gunzip


@dataclass(frozen=True)
class Format:
    """A doc format: its suffixes, how its text marks headings, the module that reads it."""

    suffixes: tuple[str, ...]
    style: Style
    module: str
    """The reader's module in `agent.readers`, imported on first use."""
    verbatim: bool = False
    """Whether the module also matches `Verbatim`: a doc's text may be its bytes as they
    stand, which search can then fold without decoding them (see `bare`)."""
    paged: bool = False
    """Whether its text marks where each page starts (`agent.readers.pages`)."""


FORMATS = (
    Format((".md", ".markdown"), "markdown", "markdown", verbatim=True),
    Format((".mdx",), "markdown", "mdx"),
    Format((".rst",), "rst", "rst", verbatim=True),
    Format((".txt",), "text", "plain", verbatim=True),
    Format((".html", ".htm"), "markdown", "html"),
    Format((".pdf",), "markdown", "pdf", paged=True),
    Format((".epub",), "markdown", "epub"),
    Format(tuple(f".{n}" for n in range(1, 10)), "markdown", "man"),
)
"""Every format read, in the order messages name them."""

PLAIN = Format((), "markdown", "plain", verbatim=True)
"""How a name of no known format is read, when it is: as plain text (its headings found
as Markdown's)."""

BY_SUFFIX = {suffix: f for f in FORMATS for suffix in f.suffixes}
DOC_SUFFIXES = frozenset(BY_SUFFIX)
MAN_SECTION = re.compile(r"\.[1-9][a-z]{0,6}")
"""A man page's suffix: its section, and a few letters for some (`.1ssl`, `.3pm`, `.8x`)."""
_NAMED = [suffix for f in FORMATS for suffix in f.suffixes if not MAN_SECTION.fullmatch(suffix)]
DESCRIPTION = f"{', '.join(_NAMED)} files, man pages (.1 to .9), gzipped or not"
"""The doc types, as messages name them."""
SUFFIX_PATTERN = "|".join(
    [*(re.escape(s[1:]) for s in sorted(_NAMED, key=lambda s: -len(s))), "[1-9][a-z]{0,6}"]
)
"""A regular expression matching a doc suffix without its dot (`md|rst|...`), longest first."""


def doc_suffix(name: str) -> str | None:
    """The doc type of a file name (`.md`, `.html`, ...; `a.md.gz` is `.md`), or None."""
    lower = name.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    dot = lower.rfind(".")
    suffix = lower[dot:] if dot > 0 else ""
    return suffix if suffix in DOC_SUFFIXES or MAN_SECTION.fullmatch(suffix) else None


def doc_format(name: str) -> Format | None:
    """The format of a doc named `name` (path or file name), or None if it is not a doc."""
    suffix = doc_suffix(name)
    if suffix is None:
        return None
    return BY_SUFFIX.get(suffix) or BY_SUFFIX[suffix[:2]]


def is_paged(name: str) -> bool:
    """Whether a doc named `name` is read with page marks (a PDF), so citations name pages."""
    found = doc_format(name)
    return found is not None and found.paged


def heading_style(name: str) -> Style:
    """How a doc marks its headings: Markdown (and HTML, read as Markdown), rST, or plain text."""
    found = doc_format(name)
    return found.style if found is not None else "markdown"


@cache
def reader(module: str) -> Reader:
    """The reader module `agent.readers.<module>`, imported on first use (HTML's parser
    loads only for HTML docs)."""
    return cast(Reader, importlib.import_module(f"agent.readers.{module}"))


@contextmanager
def batch() -> Iterator[None]:
    """Docs read inside share what their readers can share between docs: the PDF reader's
    child process (`pdfworker.batch`; an index build reads many docs in a row)."""
    from agent.readers import pdfworker  # imported here: most folders hold no PDF

    with pdfworker.batch():
        yield


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
    `agent.readers.lines.normalize_breaks`). A 50 MB doc of short lines stays one string
    here, where a list would hold millions of small ones.
    """
    if name.lower().endswith(".gz"):
        data = gunzip(data)
    found = doc_format(name) or PLAIN
    return reader(found.module).read(data)


def bare(data: bytes, name: str) -> bool:
    """Whether `doc_text` would only decode a doc's bytes as UTF-8, with every line break
    already `\n` (so `normalize_breaks` keeps it): no gzip, a plain format, no BOM, no
    `\r`, not binary. Whether they are valid UTF-8 is not checked here.

    A search can then fold the bytes without decoding them (see `agent.tools.doccache`,
    which tells when the check left out matters).
    """
    found = doc_format(name) or PLAIN
    if name.lower().endswith(".gz") or not found.verbatim:
        return False
    if b"\r" in data or data.startswith(BOMS) or is_binary(data):
        return False  # (binary: doc_text says so)
    return cast(Verbatim, reader(found.module)).verbatim(data)
