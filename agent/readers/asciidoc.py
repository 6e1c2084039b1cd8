"""AsciiDoc headings, for plain-text docs written in it (Git's `.txt` sources, many others).

AsciiDoc titles are one line (`== Title`, a `=` per level) or a line underlined with
`=`, `-`, `~`, `^` or `+` as long as it. Its delimited blocks (a listing between two
identical lines of `----`, a literal block between `....` lines) hold code: a line of
code between two delimiters looks like a reStructuredText title with an overline, and a
block's closing line like an underline, so a doc is read as AsciiDoc only when it shows
AsciiDoc's own marks (`is_asciidoc`), and then no line inside a block is a title.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import NamedTuple

# The closing `=`s are taken off by `_title_text`: as `(\S.*?)(?:[ \t]+=+)?[ \t]*$` they made
# a title of 40,000 spaces between two words quadratic (each space a new try).
_TITLE = re.compile(r"^(={1,6})[ \t]+(\S.*)$")
_DELIMITER = re.compile(r"^(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,})[ \t]*$")
_CODE_DELIMITER = re.compile(r"^(-{4,}|\.{4,})[ \t]*$")
_UNDERLINES = "=-~^+"  # an underlined title's level, in order
_MARK = re.compile(
    r"^(?:\[\[[\w:.-]+\]\]"  # an anchor
    r"|(?:include|ifdef|ifndef|endif)::[^\s\[]*\[.*\]"  # a directive: target, [attributes]
    r"|\[(?:verse|source|listing|literal|quote|NOTE|TIP|IMPORTANT|WARNING|CAUTION)(?:,[^\]]*)?\])"
    r"[ \t]*$"
)
"""A line only AsciiDoc writes: an anchor, an include or condition, a block's style."""


def _title_text(text: str) -> str:
    """A `== Title ==` title's text without its closing `=`s (when a space stands before)."""
    text = text.rstrip(" \t")
    bare = text.rstrip("=")
    return bare.rstrip(" \t") if bare and bare[-1] in " \t" else text


class Title(NamedTuple):
    """A title's text as written, its level (1 is the top) and its lines (1-based)."""

    text: str
    level: int
    start: int
    end: int


SLACK = 4
"""How much longer or shorter than the line between them two delimiters may be and still
be read as a reStructuredText title with an overline: docutils' titles are as long as
their rules, give or take the odd space; AsciiDoc's listing rules ignore what they hold."""


def is_asciidoc(lines: list[str]) -> bool:
    """Whether plain-text `lines` are AsciiDoc: a line only AsciiDoc writes, or a listing
    or literal block that reStructuredText cannot mean (two or more lines of code between
    identical delimiters, or one line between delimiters of quite another length) in a
    doc that has an AsciiDoc title outside its blocks. Plain text frames its titles
    between rules as well (Valgrind's FAQ, the SIL font licence): read as AsciiDoc, all
    of them would be listings, and the doc would have no heading left."""
    return read_titles(lines) is not None


def read_titles(lines: list[str]) -> list[Title] | None:
    """The titles of `lines` when they are AsciiDoc (`is_asciidoc`), else None: the test
    and the titles in one pass over a doc that has listings."""
    if any(_MARK.match(line) for line in lines):
        return asciidoc_titles(lines)
    if not _has_listing(lines):
        return None
    return asciidoc_titles(lines) or None


def _has_listing(lines: list[str]) -> bool:
    """Whether `lines` hold a listing or literal block that cannot be a reStructuredText
    title with an overline."""
    for n, line in enumerate(lines):
        if not _CODE_DELIMITER.match(line) or not _opens(lines, n):
            continue
        m = n + 1
        while m < len(lines) and lines[m].strip() and lines[m].rstrip() != line.rstrip():
            m += 1
        if m >= len(lines) or lines[m].rstrip() != line.rstrip():
            continue
        if m >= n + 3:
            return True
        inside = lines[n + 1]
        unlike = abs(len(line.rstrip()) - len(inside.rstrip())) > SLACK
        if m == n + 2 and not inside[:1].isspace() and unlike:
            return True
    return False


def asciidoc_titles(lines: list[str]) -> list[Title]:
    """The titles of an AsciiDoc doc's lines, in order; none inside a delimited block."""
    closers: dict[str, list[int]] = {}
    for n, line in enumerate(lines):
        if _DELIMITER.match(line):
            closers.setdefault(line.rstrip(), []).append(n)
    found: list[Title] = []
    n = 0
    while n < len(lines):
        line = lines[n]
        after_break = _opens(lines, n)
        if _DELIMITER.match(line) and after_break:
            same = closers[line.rstrip()]
            later = bisect_right(same, n)
            if later < len(same):
                n = same[later] + 1  # past the block's closing delimiter
                continue
        title = _TITLE.match(line)
        if title and after_break:
            found.append(Title(_title_text(title[2]), len(title[1]), n + 1, n + 1))
            n += 1
            continue
        if after_break and n + 1 < len(lines) and _underlines(line, lines[n + 1]):
            level = _UNDERLINES.index(lines[n + 1].strip()[0]) + 1
            found.append(Title(line, level, n + 1, n + 2))
            n += 2
            continue
        n += 1
    return found


def _opens(lines: list[str], n: int) -> bool:
    """Whether line n may start a title or a block: first, or after a blank line or a
    block's attribute line (`[source,python]`, `[[anchor]]`)."""
    return n == 0 or not lines[n - 1].strip() or lines[n - 1].startswith("[")


def _underlines(title: str, under: str) -> bool:
    """Whether `under` underlines `title` as AsciiDoc's two-line titles do."""
    rule = under.strip()
    if not title.strip() or title[:1].isspace() or not rule or under[:1].isspace():
        return False
    if rule[0] not in _UNDERLINES or rule != rule[0] * len(rule) or _TITLE.match(title):
        return False
    return abs(len(rule) - len(title.rstrip())) <= 2 and len(rule) >= 2
