"""PDF: each page's text layer, page by page, its start marked; the outline as headings.

The text comes from PDFium (pypdfium2; measured on a 265-page PDF: 1.3 s, against 13 s
for pypdf and 23 s for pdfminer.six), read in a child process held to bounds of memory
and time (`agent.readers.pdfium`, started by `agent.readers.pdfworker`: once for all
the PDFs of an index build). Each page starts with its mark, `[p. iv]`
(`agent.readers.pages`); a bookmark of the PDF's outline becomes a Markdown heading,
`#` for the top level, at the line of its page that prints its title, else at the
top of its page. A line of the text that would read as Markdown structure (a `#`
heading, a code fence, a setext underline) or as a page mark is indented four spaces,
so that only the outline makes headings and only the reader makes marks.

A PDF without a text layer (scanned pages), an encrypted or a damaged one is NotText,
in a few words a skip note shows.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from collections.abc import Sequence
from typing import Any

from agent.readers.base import NotText
from agent.readers.pages import clean_label, mark_label, page_mark
from agent.readers.pdfworker import LIMITS as LIMITS  # the reader's bounds, named here too
from agent.readers.pdfworker import Limits as Limits
from agent.readers.pdfworker import extract

HEADING_CHARS = 200  # a longer line is never taken for a bookmark's title
_NUMBERING = re.compile(
    r"(?:(?:chapter|appendix|part|section)\s+)?(?:\d{1,3}|[a-z])(?:\.\d{1,3})*\.?\s+"
)
_STRUCTURE = re.compile(r" {0,3}(?:#|```|~~~|(?:=+|-+)[ \t]*$)")


def read(data: bytes, limits: Limits = LIMITS) -> str:
    """The PDF's text: each page's mark and lines, the outline's headings among them."""
    found = extract(data, limits)
    pages: list[list[Any]] = found["pages"]
    if not any(text.strip() for _, text in pages):
        raise NotText("no text: scanned pages need OCR")
    return "\n".join(page_lines(pages, found["outline"]))


def page_lines(pages: Sequence[Sequence[Any]], outline: Sequence[Sequence[Any]]) -> list[str]:
    """The lines of a PDF's text from its pages (label, text) and outline (level, title, page)."""
    marks: defaultdict[int, list[tuple[int, str]]] = defaultdict(list)
    for level, title, page in outline:
        heading = " ".join(str(title).split())[:HEADING_CHARS]
        if heading and isinstance(page, int) and isinstance(level, int):
            marks[page].append((min(max(level, 0), 5) + 1, heading))
    lines: list[str] = []
    for number, (label, text) in enumerate(pages, start=1):
        lines.append(page_mark(clean_label(str(label or ""), number)))
        lines += _with_headings(_page_text(str(text)), marks.get(number - 1, []))
    return lines


def _page_text(text: str) -> list[str]:
    """A page's lines, each that would read as structure or as a mark indented."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [
        "    " + line if _STRUCTURE.match(line) or mark_label(line) is not None else line
        for line in lines
    ]


def _with_headings(lines: list[str], headings: list[tuple[int, str]]) -> list[str]:
    """A page's lines with its bookmarks as `#` headings: each at the first line after the
    last one placed that prints its title (that line becomes the heading), else there.
    Lines are looked up by their words, so a page of many bookmarks is read once."""
    if not headings:
        return lines
    where: defaultdict[str, deque[int]] = defaultdict(deque)
    for n, line in enumerate(lines):
        if len(line) <= HEADING_CHARS and line.strip():
            where[_key(line)].append(n)
    out: list[str] = []
    at = 0
    for level, title in headings:
        found = where.get(_key(title))
        while found and found[0] < at:
            found.popleft()
        if found:
            n = found.popleft()
            out += lines[at:n]
            out.append(f"{'#' * level} {' '.join(lines[n].split())}")
            at = n + 1
        else:
            out.append(f"{'#' * level} {title}")
    return out + lines[at:]


def _key(line: str) -> str:
    """A line's words as a title is matched: any case, without a leading number ("3.7")."""
    words = " ".join(line.split()).casefold()
    numbered = _NUMBERING.match(words)
    return words[numbered.end() :] if numbered and numbered.end() < len(words) else words
