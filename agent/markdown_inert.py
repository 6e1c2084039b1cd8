"""Markdown from outside made inert for the Markdown export: no raw HTML, no unsafe links.

A previewer that allows raw HTML runs a model's `<script>`, honours its `<base href>` and
follows its `javascript:` links. So, outside fenced code blocks (inert everywhere), every
`<` is written as `&lt;` (no tag, no autolink survives) and a link or image whose target
has a scheme other than http, https or mailto gets `#` in front of its target (then it is
a link to an anchor of the page). Everything else, ordinary Markdown, is left as it is.
Each function reads its text once (linear; no regex that can backtrack).
"""

from __future__ import annotations

import html

SAFE_SCHEMES = ("http", "https", "mailto")
SCHEME_CHARS = 32  # a scheme is found within this many characters of a link's target
_FENCES = ("```", "~~~")


def inert(text: str) -> str:
    """`text` (Markdown) with raw HTML escaped and unsafe link targets defused."""
    out: list[str] = []
    prose: list[str] = []  # the lines since the last fenced block
    fence = ""
    for line in text.split("\n"):
        if fence:
            out.append(line)
            if line.lstrip(" ").startswith(fence):
                fence = ""
            continue
        if _opens_fence(line):
            if prose:
                out.append(_prose(prose))
            prose = []
            fence = line.lstrip(" ")[:3]
            out.append(line)
            continue
        prose.append(line)
    if prose:
        out.append(_prose(prose))
    return "\n".join(out)


def _opens_fence(line: str) -> bool:
    """Whether `line` opens a fenced code block (CommonMark: at most 3 spaces in, and a
    backtick fence's info string holds no backtick)."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or stripped[:3] not in _FENCES:
        return False
    return not (stripped[0] == "`" and "`" in stripped.lstrip("`"))


def _prose(lines: list[str]) -> str:
    return _defuse_links("\n".join(lines).replace("<", "&lt;"))


def _defuse_links(text: str) -> str:
    """`text` with `#` before each link target (`](...)`, `]: ...`) of an unsafe scheme."""
    pieces: list[str] = []
    start = 0
    at = text.find("]")
    while at != -1:
        if text[at + 1 : at + 2] in ("(", ":"):
            target = at + 2
            while target < len(text) and text[target] in " \t\n":
                target += 1
            if _unsafe(text[target : target + SCHEME_CHARS * 8]):
                pieces.append(text[start:target])
                pieces.append("#")
                start = target
        at = text.find("]", at + 1)
    pieces.append(text[start:])
    return "".join(pieces)


def _unsafe(target: str) -> bool:
    """Whether a link target starts with a scheme that is not http, https or mailto.

    Entities are decoded and tabs, newlines and controls dropped first, as a browser
    would (`java&#x09;script:`, `&#106;avascript:`)."""
    if ":" not in target and "&" not in target:
        return False  # no scheme (the common case, decided without decoding)
    decoded = html.unescape(target.removeprefix("&lt;"))
    cleaned = "".join(c for c in decoded if c > " " and c != "\x7f")[:SCHEME_CHARS]
    scheme, colon, _ = cleaned.partition(":")
    if not colon or not scheme or not scheme[0].isalpha():
        return False
    if not all(c.isalnum() or c in "+-." for c in scheme):
        return False  # a path or a word with a colon later on, not a scheme
    return scheme.lower() not in SAFE_SCHEMES


def code_span(text: str) -> str:
    """`text` as one inline code span that no backtick inside it can end early."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"
