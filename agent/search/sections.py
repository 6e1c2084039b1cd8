"""A doc's sections: split on its headings, each with a line range and a heading trail.

Headings are found the way each format writes them: Markdown ATX (`## Title`) and
setext (a line under `===` or `---`), outside code fences and front matter;
reStructuredText titles with an underline (and optional overline), ranked in the order
their styles first appear; plain text the same, plus a title under a long rule line.
AsciiDoc in plain text (`== Title`, code between `----` lines) is read as AsciiDoc
(`agent.readers.asciidoc`). Built HTML is read with `#` headings, so it splits as Markdown.

A section runs from its heading to the line before the next heading. One longer than
`MAX_LINES` lines or `MAX_CHARS` characters is cut, at a blank line where there is one,
so that every section can be read whole with one `read_doc` call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterator
from dataclasses import dataclass

from agent.readers.asciidoc import read_titles
from agent.readers.base import Style

MAX_LINES = 60
"""Lines in a section at most: under `read_doc`'s 80 lines per call, with room to spare."""

MAX_CHARS = 2400
"""Characters in a section at most: under `read_doc`'s 2,800 characters per call."""

RULE_MIN = 10  # a plain-text rule line over a title is at least this long

# The closing `#`s are taken off by `_atx_text`: as `(.*?)(?:[ \t]+#+)?[ \t]*$` they made
# a heading of 40,000 spaces between two words take minutes (each space a new try).
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+[ \t]*$")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")


@dataclass(frozen=True)
class Heading:
    """A heading: its text, its level (1 is the top) and the lines it takes (1-based)."""

    text: str
    level: int
    start: int
    end: int


@dataclass(frozen=True)
class Section:
    """Lines `start`..`end` (1-based, inclusive) under the heading trail `headings`.

    `headings` runs from the top-level heading down to this section's own (empty
    before a doc's first heading); `heading_lines` are the lines its heading takes
    (none for a section without one, or for the second part of a long section).
    """

    start: int
    end: int
    headings: tuple[str, ...]
    heading_lines: tuple[int, ...] = ()

    @property
    def title(self) -> str:
        """The section's own heading, or ''."""
        return self.headings[-1] if self.headings else ""


def find_headings(lines: list[str], style: Style) -> list[Heading]:
    """The headings of a doc's lines, in order."""
    if style == "markdown":
        return list(_markdown_headings(lines))
    titles = read_titles(lines) if style == "text" else None
    if titles is not None:
        return [Heading(_clean(t.text), t.level, t.start, t.end) for t in titles]
    return _underlined_headings(lines, rules=style == "text")


def split_sections(lines: list[str], style: Style) -> list[Section]:
    """The doc's sections in order; they cover every line from the first non-blank one."""
    sections: list[Section] = []
    trail: list[Heading] = []
    headings = find_headings(lines, style)
    first = next((n for n, line in enumerate(lines, start=1) if line.strip()), None)
    if first is None:
        return []
    if not headings or headings[0].start > first:
        until = headings[0].start - 1 if headings else len(lines)
        sections.extend(_parts(lines, first, until, (), ()))
    for i, heading in enumerate(headings):
        while trail and trail[-1].level >= heading.level:
            trail.pop()
        trail.append(heading)
        until = headings[i + 1].start - 1 if i + 1 < len(headings) else len(lines)
        own = tuple(range(heading.start, heading.end + 1))
        names = tuple(h.text for h in trail)
        sections.extend(_parts(lines, heading.start, until, names, own))
    return sections


def first_heading(lines: list[str], style: Style) -> str:
    """The doc's first heading (its title), or ''."""
    if style == "markdown":  # the scan stops at the first: a title costs one line, not 200
        return next((h.text for h in _markdown_headings(lines[:200])), "")
    found = find_headings(lines[:200], style)
    return found[0].text if found else ""


def _parts(
    lines: list[str], start: int, end: int, names: tuple[str, ...], own: tuple[int, ...]
) -> list[Section]:
    """Lines start..end as one section, or cut into parts that each fit one read."""
    while end > start and not lines[end - 1].strip():
        end -= 1  # trailing blank lines belong to no one
    first, ends = start, [0]  # ends[i]: characters in the section's first i lines
    for n in range(start, end + 1):
        ends.append(ends[-1] + len(lines[n - 1]) + 1)

    def size(a: int, b: int) -> int:
        """Characters in lines a..b, a newline each: a part's size, at no cost per part."""
        return ends[b - first + 1] - ends[a - first]

    fenced = _fenced(lines, start, end)
    parts: list[Section] = []
    while True:
        cut = _cut(lines, start, end, size, fenced)
        parts.append(Section(start, cut, names, own if not parts else ()))
        if cut >= end:
            return parts
        start = cut + 1
        while start < end and not lines[start - 1].strip():
            start += 1


def _cut(
    lines: list[str],
    start: int,
    end: int,
    size: Callable[[int, int], int],
    fenced: Container[int] = (),
) -> int:
    """The last line of the part that begins at `start`: the end when lines start..end fit
    one part, else a blank line near an even share of them, so that the parts come out
    alike in size rather than full ones and a scrap of a tail ("into the terminal.").
    A blank line in a code block (`fenced`) is taken only when no other one will do: a
    part should not open in the middle of an example.
    `size(a, b)` is the characters in lines a..b; only the lines one part may take are
    looked at, so a huge section is cut in time linear in its length."""
    count = end - start + 1
    pieces = max(-(-count // MAX_LINES), -(-size(start, end) // MAX_CHARS))
    if pieces <= 1 and count <= MAX_LINES:
        return end
    share_lines = -(-count // pieces)
    share_chars = -(-size(start, end) // pieces)
    limit = last = start  # limit: the last line that fits; last: where an even share ends
    for n in range(start, end + 1):
        taken = size(start, n)
        if n - start + 1 > MAX_LINES or (taken > MAX_CHARS and n > start):
            break
        limit = n
        if n - start + 1 <= share_lines and taken <= share_chars:
            last = n
    blanks = [n for n in range(start + (last - start) // 2, limit + 1) if not lines[n - 1].strip()]
    blanks = [n for n in blanks if n not in fenced] or blanks
    fitting = [n for n in blanks if end - n <= (pieces - 1) * MAX_LINES]
    fitting = [n for n in fitting if size(n, end) <= (pieces - 1) * MAX_CHARS]
    if not blanks:
        return limit
    blank = min(fitting, key=lambda n: abs(n - last)) if fitting else blanks[-1]
    return blank - 1 if blank - 1 >= start else blank


def _fence(line: str, fence: str) -> str:
    """The code fence open after `line`, given the one open before it ("" for none)."""
    opening = _FENCE.match(line)
    if not fence:
        return opening[1] if opening else ""
    closing = opening and opening[1][0] == fence[0] and len(opening[1]) >= len(fence)
    return "" if closing and not line.strip().lstrip(fence[0]) else fence


def _fenced(lines: list[str], start: int, end: int) -> set[int]:
    """The lines of start..end inside a code fence, counting from a fence closed at `start`
    (a heading never stands in one)."""
    inside, fence = set(), ""
    for n in range(start, end + 1):
        after = _fence(lines[n - 1], fence)
        if fence and after:
            inside.add(n)  # neither the opening fence line nor the closing one
        fence = after
    return inside


def _markdown_headings(lines: list[str]) -> Iterator[Heading]:
    fence = ""
    n = _front_matter_end(lines)
    while n < len(lines):
        line = lines[n]
        was, fence = fence, _fence(line, fence)
        if was or fence:  # in a code block, or its fence line
            n += 1
            continue
        if (atx := _ATX.match(line)) and (text := _atx_text(atx[2] or "")):
            yield Heading(_clean(text), len(atx[1]), n + 1, n + 1)
        elif n + 1 < len(lines) and _SETEXT.match(lines[n + 1]) and _paragraph_line(lines, n):
            level = 1 if lines[n + 1].strip()[0] == "=" else 2
            yield Heading(_clean(line), level, n + 1, n + 2)
            n += 1
        n += 1


def _atx_text(text: str) -> str:
    """An ATX heading's text without its closing sequence of `#`s (CommonMark's rule)."""
    text = text.rstrip(" \t")
    bare = text.rstrip("#")
    if not bare or bare[-1] in " \t":  # only hashes, or hashes after a space: a closing
        return bare.rstrip(" \t")
    return text


def _front_matter_end(lines: list[str]) -> int:
    """The index of the first line after YAML front matter (0 if there is none)."""
    if not lines or lines[0].strip() != "---":
        return 0
    for n in range(1, min(len(lines), 200)):
        if lines[n].strip() in {"---", "..."}:
            return n + 1
    return 0


def _paragraph_line(lines: list[str], n: int) -> bool:
    """Whether line n can be a setext heading's text (a plain line of a paragraph)."""
    line = lines[n]
    if not line.strip() or line.startswith(("    ", "\t")):
        return False
    if _LIST_ITEM.match(line) or line.lstrip().startswith((">", "|", "<")) or _ATX.match(line):
        return False
    return not _SETEXT.match(line)


def _underlined_headings(lines: list[str], *, rules: bool) -> list[Heading]:
    """rST-style titles: text under (and optionally over) a line of one punctuation mark."""
    found: list[Heading] = []
    levels: dict[tuple[str, str], int] = {}
    n = 0
    while n < len(lines):
        heading = _titled(lines, n, levels, rules=rules)
        if heading is None:
            n += 1
            continue
        found.append(heading)
        n = heading.end
    return found


def _titled(
    lines: list[str], n: int, levels: dict[tuple[str, str], int], *, rules: bool
) -> Heading | None:
    """The heading starting at line index n, if one does (recording its style's level)."""
    line = lines[n]
    over = _ADORNMENT.match(line)
    before_blank = n == 0 or not lines[n - 1].strip()
    if over and before_blank and n + 1 < len(lines):
        title = lines[n + 1]
        under = _ADORNMENT.match(lines[n + 2]) if n + 2 < len(lines) else None
        text = title.strip()
        if text and not _ADORNMENT.match(title) and under and under[1] == over[1]:
            return _heading(levels, ("over", over[1]), text, n, n + 2)
        long_rule = len(line.strip()) >= RULE_MIN and over[1] in "=-*#~"
        if rules and text and long_rule and not title.startswith((" ", "\t")):
            return _heading(levels, ("rule", over[1]), text, n, n + 1)
        return None
    if over or not line.strip() or line.startswith((" ", "\t")) or not before_blank:
        return None
    if n + 1 >= len(lines):
        return None
    under = _ADORNMENT.match(lines[n + 1])
    text = line.strip()
    if under is None:
        return None
    width = len(lines[n + 1].strip())
    if width < len(text) and width < 4:
        return None  # too short to underline this title: ordinary text, as docutils reads it
    return _heading(levels, ("under", under[1]), text, n, n + 1)


def _heading(
    levels: dict[tuple[str, str], int], style: tuple[str, str], text: str, first: int, last: int
) -> Heading:
    level = levels.setdefault(style, len(levels) + 1)
    return Heading(_clean(text), level, first + 1, last + 1)


def _clean(text: str) -> str:
    """Heading text without surrounding space, closing hashes or a trailing `{#id}`."""
    return " ".join(without_trailing(text.strip(), "{#", "}").split())


def without_trailing(text: str, opening: str, closing: str) -> str:
    r"""`text` without a last group `opening`...`closing` that ends it (and the space before).

    As `re.sub(r"\s*\{#[^}]*\}$", "", text)` does for `{#`, `}`, in one pass: that regex
    tries again from each `{#`, so 40,000 of them in a heading took minutes.
    """
    if not text.endswith(closing):
        return text
    last = len(text) - len(closing)
    opened = text.find(opening, text.rfind(closing, 0, last) + 1, last)
    return text if opened < 0 else text[:opened].rstrip()
