"""Markdown's inline marks as HTML: code spans, bold, italic, links, <autolinks>.

Used by agent/markdown_html.py, which has already replaced control characters, so a
NUL here only ever marks a piece of finished HTML kept aside ("\\x00N\\x00"). Every
pattern is linear: backtick runs are paired through an index, links stop at the next
bracket, and emphasis is matched on one stack of open delimiter runs that a closer
searches no deeper than where the same kind of closer failed before.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from html import escape

_MARKS = re.compile(r"[\\`*_\[<]")
_SPECIAL = re.compile(r"[\\`]")
_TICKS = re.compile(r"`+")
_ASCII_PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
_ESCAPABLE = frozenset(_ASCII_PUNCTUATION + "\n")
_AUTOLINK = re.compile(r"<(https?://[^\s<>\x00]+)>", re.IGNORECASE)
_LINK = re.compile(r"!?\[([^\[\]]*)\]\(([^\s()\x00]*)(?: +\"[^\"\x00]*\")?\)")
_PATH_START = re.compile(r"[/?#]")
_DELIMS = re.compile(r"\*+|_+")
_KEPT = re.compile(r"\x00(\d+)\x00")


def inline_html(text: str) -> str:
    """One block's text (Markdown inline marks) as escaped HTML."""
    if not _MARKS.search(text):
        return escape(text)
    kept: list[str] = []

    def keep(html: str) -> str:
        kept.append(html)
        return f"\x00{len(kept) - 1}\x00"

    def link(found: re.Match[str]) -> str:
        label, url = found[1], found[2]
        if not safe_url(url):
            return found[0]  # shown as the text it is
        # An image becomes a link to it, labelled with its text: the page fetches nothing.
        inner = _restore(_emphasis(label), kept) or escape(url)
        return keep(f'<a href="{escape(url)}">{inner}</a>')

    text = _LINK.sub(link, _code_and_escapes(text, keep))  # before <url>: no link in a link
    text = _AUTOLINK.sub(lambda m: keep(f'<a href="{escape(m[1])}">{escape(m[1])}</a>'), text)
    return _restore(_emphasis(text), kept)


def safe_url(url: str) -> bool:
    """Whether `url` may be a link's target: http(s), or relative (no scheme at all)."""
    if any(ord(c) <= 32 or c == "\x7f" for c in url):
        return False  # browsers drop these, so "\x01javascript:" would run
    if url[:7].lower() == "http://" or url[:8].lower() == "https://":
        return True
    return ":" not in _PATH_START.split(url, maxsplit=1)[0]  # "a:b" could be a scheme


def _restore(html: str, kept: list[str]) -> str:
    return _KEPT.sub(lambda m: kept[int(m[1])], html)


def _code_and_escapes(text: str, keep: Callable[[str], str]) -> str:
    runs: dict[int, list[int]] = {}
    for found in _TICKS.finditer(text):
        runs.setdefault(len(found[0]), []).append(found.start())
    out, done, n = [], 0, len(text)
    special = _SPECIAL.search(text)
    while special:
        at = special.start()
        if text[at] == "\\":
            if at + 1 < n and text[at + 1] in _ESCAPABLE:
                shown = "<br>\n" if text[at + 1] == "\n" else escape(text[at + 1])
                out += [text[done:at], keep(shown)]
                done = at + 2
            special = _SPECIAL.search(text, at + 1 if done <= at else done)
            continue
        end = at
        while end < n and text[end] == "`":
            end += 1
        closers = runs.get(end - at, [])
        k = bisect_left(closers, end)
        if k < len(closers):
            code = text[end : closers[k]].replace("\n", " ")
            if code[:1] == code[-1:] == " " and code.strip():
                code = code[1:-1]
            out += [text[done:at], keep(f"<code>{escape(code)}</code>")]
            done = closers[k] + end - at
        special = _SPECIAL.search(text, max(done, end))
    return "".join(out) + text[done:]


@dataclass(eq=False, slots=True)
class _Run:
    """A run of `*` or `_`: the delimiters left as text, and the tags it closes and opens."""

    char: str
    length: int
    can_open: bool
    can_close: bool
    count: int = 0  # delimiters not yet used by a tag
    closes: str = ""
    opens: str = ""  # the last matched (outermost) first

    def pairs(self, closer: _Run) -> bool:
        """Whether this opener can close at `closer` (CommonMark's "rule of 3")."""
        both = self.can_close or closer.can_open
        three = (self.length + closer.length) % 3 == 0 and (self.length % 3 or closer.length % 3)
        return self.char == closer.char and not (both and three)

    def html(self) -> str:
        return self.closes + self.char * self.count + self.opens


def _emphasis(text: str) -> str:
    """Escaped `text` with emphasis, matched as CommonMark does and in linear time: no
    opener is looked at twice for the same kind of closer once it failed to match one."""
    pieces: list[str | _Run] = []
    stack: list[_Run] = []
    floor: dict[tuple[str, int, bool], int] = {}  # openers below it failed that kind before
    done = 0
    for found in _DELIMS.finditer(text):
        start, end = found.span()
        run = _Run(
            found[0][0],
            end - start,
            *_flanking(found[0][0], text[start - 1 : start], text[end : end + 1]),
        )
        run.count = run.length
        pieces += [escape(text[done:start]), run]
        done = end
        kind = (run.char, run.length % 3, run.can_open)
        while run.can_close and run.count:
            at = len(stack) - 1
            while at >= floor.get(kind, 0) and not stack[at].pairs(run):
                at -= 1
            if at < floor.get(kind, 0):
                floor[kind] = len(stack)
                break
            opener = stack[at]
            used = 2 if run.count >= 2 and opener.count >= 2 else 1
            tag = "strong" if used == 2 else "em"
            opener.opens = f"<{tag}>" + opener.opens
            run.closes += f"</{tag}>"
            opener.count -= used
            run.count -= used
            del stack[at + (opener.count > 0) :]  # runs in between stay text
            floor = {key: min(bottom, len(stack)) for key, bottom in floor.items()}
        if run.can_open and run.count:
            stack.append(run)
    pieces.append(escape(text[done:]))
    return "".join(p if isinstance(p, str) else p.html() for p in pieces)


def _flanking(char: str, before: str, after: str) -> tuple[bool, bool]:
    """Whether a delimiter run between `before` and `after` can open, and close, emphasis."""
    space_before, space_after = not before or before.isspace(), not after or after.isspace()
    mark_before, mark_after = _is_punctuation(before), _is_punctuation(after)
    left = not space_after and (not mark_after or space_before or mark_before)
    right = not space_before and (not mark_before or space_after or mark_after)
    if char == "*":
        return left, right
    return left and (not right or mark_before), right and (not left or mark_after)


def _is_punctuation(char: str) -> bool:
    if char < "\x80":  # a kept piece counts as the punctuation around it: `code`, \*, <url>
        return bool(char) and char in _ASCII_PUNCTUATION + "\x00"
    return unicodedata.category(char)[0] in "PS"
