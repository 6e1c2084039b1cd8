"""PDF: each page's text layer, page by page, its start marked; the outline as headings.

The text comes from PDFium (pypdfium2; measured on a 265-page PDF: 1.3 s, against 13 s
for pypdf and 23 s for pdfminer.six), read in a child process held to bounds of memory
and time (`agent.readers.pdfium`). Each page starts with its mark, `[p. iv]`
(`agent.readers.pages`); a bookmark of the PDF's outline becomes a Markdown heading,
`#` for the top level, at the line of its page that prints its title, else at the
top of its page. A line of the text that would read as Markdown structure (a `#`
heading, a code fence, a setext underline) or as a page mark is indented four spaces,
so that only the outline makes headings and only the reader makes marks.

A PDF without a text layer (scanned pages), an encrypted or a damaged one is NotText,
in a few words a skip note shows.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.readers.base import NotText
from agent.readers.pages import clean_label, mark_label, page_mark


@dataclass(frozen=True)
class Limits:
    """How much of a PDF is read at most, and what its reading may take."""

    pages: int = 10_000
    """Pages of one PDF; a longer one is skipped, named as too big."""
    chars: int = 32_000_000
    """Characters of text (what a gzipped doc may unzip to, in bytes)."""
    marks: int = 10_000
    """Bookmarks of its outline."""
    depth: int = 12
    """Levels of its outline (headings go to six; deeper ones sit at the sixth)."""
    memory: int = 1 << 30
    """Bytes of address space the child reading it may take (a decompression bomb ends it)."""
    cpu_seconds: int = 60
    """CPU seconds the child may take; twice as many seconds of wall time end it too."""


LIMITS = Limits()

HOME = str(Path(__file__).resolve().parents[2])
"""The folder this docsagent's `agent` package is in."""

CHILD = f"import sys; sys.path.insert(0, {HOME!r}); from agent.readers.pdfium import main; main()"
"""What the child runs: this docsagent's worker, never a module of the same name in the
folder docsagent was started from (`python -m` would look there first)."""

OUT_OF_MEMORY = {signal.SIGABRT, getattr(signal, "SIGKILL", signal.SIGABRT)}
"""How the child ends when it runs out of memory: PDFium aborts when an allocation fails
(measured on a bomb), and a system out of memory kills."""

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


def extract(data: bytes, limits: Limits = LIMITS) -> dict[str, Any]:
    """The child's findings for a PDF's bytes (`agent.readers.pdfium`); NotText on an error."""
    bounds = (limits.memory, limits.cpu_seconds, limits.pages, limits.chars, limits.marks)
    command = [sys.executable, "-c", CHILD, *map(str, (*bounds, limits.depth))]
    try:
        done = subprocess.run(
            command,
            input=data,
            capture_output=True,
            timeout=2 * limits.cpu_seconds,
        )
    except subprocess.TimeoutExpired:
        raise NotText(f"too slow: more than {limits.cpu_seconds} s to read") from None
    if done.returncode != 0:
        raise NotText(_ended(done.returncode, done.stderr, limits))
    try:
        found = json.loads(done.stdout.decode("utf-8", "replace"))
    except ValueError:
        raise NotText("damaged: not a PDF that can be read") from None
    if not isinstance(found, dict) or "error" in found:
        raise NotText(str(found.get("error", "damaged")) if isinstance(found, dict) else "damaged")
    return found


def _ended(code: int, stderr: bytes, limits: Limits) -> str:
    """Why the child ended without an answer, in a skip note's words."""
    if b"MemoryError" in stderr or -code in OUT_OF_MEMORY:
        return f"too big: more than {limits.memory >> 20:,} MB to read"
    if -code == getattr(signal, "SIGXCPU", None):
        return f"too slow: more than {limits.cpu_seconds} s to read"
    if b"No module named 'pypdfium2'" in stderr:
        return "PDF needs pypdfium2: pip install pypdfium2"
    last = stderr.decode("utf-8", "replace").strip().rpartition("\n")[2]
    if code > 0 and last:  # an error of the reader's own, not of the PDF
        return f"the PDF reader failed: {' '.join(last.split())[:120]}"
    return "damaged: not a PDF that can be read"


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
