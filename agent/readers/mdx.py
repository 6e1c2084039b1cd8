"""MDX (Markdown with JSX: Docusaurus, Nextra, Mintlify, Astro): read as its Markdown.

`import` and `export` statements (one line or many) become blank lines; JSX tags
(`<Tabs>`, `<TabItem value="pip">`, `</Note>`, `<Image src={x} />`) are removed and the
text between them kept, so a line that held only tags is blank; `{/* comments */}` go
too. Code fences and inline code are never changed, wherever they stand (inside a
`<TabItem>` they may be indented). Then the front matter and MyST markup are read as
for Markdown (`markdown`). Every line stays a line, so line numbers hold.

Hand-written for a measured reason: no MDX parser ships for Python, and each line is
read once, left to right, with its state (an open tag, comment or statement) carried
to the next, so a broken page costs what a sound one does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.readers import frontmatter
from agent.readers.base import NotText
from agent.readers.decoding import decode, is_binary
from agent.readers.lines import normalize_breaks
from agent.readers.markdown import plain_lines

_ESM = re.compile(r"(?:import|export)(?=[\s{*]|$)")
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_NEXT = re.compile(r"[<`{]")
_TAG = re.compile(r"<(/?)([A-Za-z][\w.-]*)?(?=[\s/>]|$)")
_TICKS = re.compile(r"`+")
_PAIRS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
VOID = frozenset("br hr img input meta link source wbr area col embed".split())


def read(data: bytes) -> str:
    """The MDX page's Markdown text, without its imports, exports and tags."""
    if is_binary(data):
        raise NotText("binary")
    lines = normalize_breaks(decode(data)).split("\n")
    end = frontmatter.span(lines)
    _Reader().strip(lines, end)
    plain_lines(lines, end)
    frontmatter.fill(lines, end)
    return "\n".join(lines)


@dataclass
class _Reader:
    """Where the reading stands at a line's end: inside a tag, comment, statement, code."""

    fence: str = ""  # the open code fence's marker
    tag: bool = False  # inside a tag whose `>` has not come yet
    quote: str = ""  # inside a quoted attribute value (or a string in braces)
    braces: int = 0  # open `{` inside a tag
    comment: bool = False  # inside `{/* ... */}`
    statement: int = 0  # brackets open in an import or export; -1 when none is
    depth: int = 0  # elements open: their text is unindented

    def strip(self, lines: list[str], start: int) -> None:
        """Blank the statements and remove the tags of `lines` from `start`, in place."""
        self.statement = -1
        for n in range(start, len(lines)):
            lines[n] = self.line(lines[n])

    def line(self, line: str) -> str:
        """One line read: what is left of it."""
        if self.statement >= 0:
            return self._statement(line)
        if not (self.tag or self.comment):
            fence = _FENCE.match(line)
            if self.fence:
                if fence and fence[1].startswith(self.fence) and not line[fence.end() :].strip():
                    self.fence = ""
                    return line.lstrip() if self.depth else line
                return line
            if fence:
                self.fence = fence[1]
                return line.lstrip() if self.depth else line
            if self.depth == 0 and _ESM.match(line):
                self.statement = 0
                return self._statement(line)
        had = self.tag or self.comment or "<" in line or "{/*" in line
        if not had:
            return line.lstrip() if self.depth else line
        text = self._text(line)
        if not text.strip():
            return ""
        return text.lstrip() if self.depth else text

    def _statement(self, line: str) -> str:
        """A line of an import or export: counted for brackets, then blank."""
        for ch in line:
            if self.quote:
                if ch == self.quote:
                    self.quote = ""
            elif ch in "'\"`":
                self.quote = ch
            else:
                self.statement += _PAIRS.get(ch, 0)
        if self.quote in "'\"":
            self.quote = ""  # such strings end with their line
        if self.statement <= 0 and not self.quote:
            self.statement = -1
        return ""

    def _text(self, line: str) -> str:
        """The line's text outside tags and comments; inline code kept whole."""
        out: list[str] = []
        at = 0
        ticks = _Ticks(line)
        while at < len(line):
            if self.comment:
                end = line.find("*/}", at)
                if end < 0:
                    return "".join(out)
                self.comment, at = False, end + 3
                continue
            if self.tag:
                at = self._in_tag(line, at)
                continue
            found = _NEXT.search(line, at)
            if found is None:
                out.append(line[at:])
                break
            out.append(line[at : found.start()])
            at = found.start()
            if line[at] == "`":
                end = ticks.closing(at)
                out.append(line[at:end])
                at = end
            elif line.startswith("{/*", at):
                self.comment, at = True, at + 3
            elif line[at] == "{":
                out.append("{")
                at += 1
            else:
                tag = _TAG.match(line, at)
                if tag is None or (tag[2] is None and not line.startswith(("<>", "</>"), at)):
                    out.append("<")
                    at += 1
                    continue
                closing, name = tag[1] == "/", (tag[2] or "")
                if closing:
                    self.depth = max(self.depth - 1, 0)
                elif name.lower() not in VOID:
                    self.depth += 1  # (a `/>` at its end takes it back)
                self.tag, at = True, tag.end()
        return "".join(out)

    def _in_tag(self, line: str, at: int) -> int:
        """Read a tag's attributes from `at`: where the tag ends, or the line's end."""
        while at < len(line):
            ch = line[at]
            if self.quote:
                if ch == self.quote:
                    self.quote = ""
            elif ch in "'\"`" and (self.braces or ch != "`"):
                self.quote = ch
            elif ch == "{":
                self.braces += 1
            elif ch == "}":
                self.braces = max(self.braces - 1, 0)
            elif ch == ">" and not self.braces:
                self.tag = False
                if line[at - 1 : at] == "/":
                    self.depth = max(self.depth - 1, 0)
                return at + 1
            at += 1
        return at


class _Ticks:
    """The backtick runs of a line, to find where an inline code span closes at once."""

    def __init__(self, line: str) -> None:
        self.runs: dict[int, list[int]] = {}  # run length -> starts, in order
        self.ends: dict[int, int] = {}  # run start -> its end
        for run in _TICKS.finditer(line):
            self.runs.setdefault(len(run[0]), []).append(run.start())
            self.ends[run.start()] = run.end()
        self.next: dict[int, int] = {}  # run length -> index of the next candidate

    def closing(self, at: int) -> int:
        """Where the code span opened by the run at `at` ends (after its closing run), or
        the opening run's end when none closes it."""
        end = self.ends.get(at, at + 1)
        starts = self.runs.get(end - at, [])
        i = self.next.get(end - at, 0)
        while i < len(starts) and starts[i] <= at:
            i += 1
        self.next[end - at] = i + 1
        return self.ends[starts[i]] if i < len(starts) else end
