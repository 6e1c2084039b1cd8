"""Markdown: front matter as a title (`frontmatter`), MyST's roles and directives as text.

MyST (Sphinx's Markdown) writes roles as `{func}`x`` and directives as fences,
```` ```{note} ```` or `:::{note}`: the role reads `x`, the fence's line `Note:` (or blank
for one that shows nothing, such as `{toctree}`, whose entries are blank too), its
option lines and closing fence blank lines; `{code-block} python` stays a code fence.
Docusaurus's admonitions (`:::tip Title` ... `:::`) read the same way, and the lines
of an `{eval-rst}` fence as reStructuredText does (`rst`). Code fences are never
changed. Every line stays a line, so line numbers hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.readers import frontmatter
from agent.readers.base import NotText
from agent.readers.decoding import UTF16, decode, is_binary
from agent.readers.lines import normalize_breaks
from agent.readers.roles import CODE, HIDDEN, MYST_ROLE, OPTION, directive_line, plain_roles
from agent.readers.rst import plain_lines as rst_lines

_FENCE = re.compile(r"([ \t]*)(`{3,}|~{3,}|:{3,})[ \t]*(.*)")
FENCE_CHARS = ("`", "~", ":")  # what a fence line starts with (`"" in` would be True)
_MYST = re.compile(r"\{([A-Za-z][\w:.+-]*)\}[ \t]*(.*)")
_ADMONITION = re.compile(r"([A-Za-z][\w-]*)(?:[ \t]+(.*))?")
_LABEL = re.compile(r"[ \t]*\([\w.:-]+\)=[ \t]*")


def read(data: bytes) -> str:
    """The doc's text, front matter and MyST markup shown as text; NotText if binary."""
    if is_binary(data):
        raise NotText("binary")
    text = decode(data)
    if not marked(text.encode() if data.startswith(UTF16) else data):
        return text
    lines = normalize_breaks(text).split("\n")
    end = frontmatter.span(lines)
    plain_lines(lines, end)
    frontmatter.fill(lines, end)
    return "\n".join(lines)


def verbatim(data: bytes) -> bool:
    """Whether `read` gives the bytes' text as it stands: no front matter, no markup."""
    return not marked(data)


def marked(data: bytes) -> bool:
    """Whether a doc's bytes (UTF-8) may hold front matter or MyST markup: the marks every
    one of them writes (a role's `}`, a directive's fence, a label's `)=`), found at
    C speed in the bytes; a doc without them (most docs) is read as it is."""
    if data.startswith((b"---", b"\xef\xbb\xbf---")) or b":::" in data or b")=" in data:
        return True
    if b"{" not in data:  # (one byte is found fastest: most docs stop here)
        return False
    if b"}`" in data or b"`{" in data or b"` {" in data:
        return True
    return b"~" in data and (b"~{" in data or b"~ {" in data)


@dataclass
class _Fence:
    """An open fence: its marker (``` or ::: ...), and what its lines are."""

    marker: str
    kind: str  # "code", "directive", "hidden" or "rst"


def plain_lines(lines: list[str], start: int = 0) -> list[str]:
    """Markdown `lines` from `start` with MyST's roles and directives shown as text."""
    open_: list[_Fence] = []
    options = False  # lines right after a directive's fence are its options
    for n in range(start, len(lines)):
        line = lines[n]
        fence = _FENCE.fullmatch(line) if line.lstrip(" \t")[:1] in FENCE_CHARS else None
        top = open_[-1] if open_ else None
        if fence and top and _closes(fence, top.marker):
            open_.pop()
            lines[n] = line if top.kind == "code" else ""
            options = False
            continue
        if top is not None and top.kind == "code":
            continue
        if top is not None and top.kind == "hidden":
            lines[n] = ""
            continue
        if options and OPTION.fullmatch(line):
            lines[n] = ""
            continue
        options = False
        if fence and (fence[2][0] != ":" or fence[3]):
            lines[n], kind = _opened(fence)
            open_.append(_Fence(fence[2], kind))
            options = kind == "directive"
        elif top is not None and top.kind == "rst":
            lines[n] = rst_lines([line])[0]
        elif ")=" in line and _LABEL.fullmatch(line):
            lines[n] = ""
        elif "}`" in line:
            lines[n] = plain_roles(line, MYST_ROLE)
    return lines


def _closes(fence: re.Match[str], marker: str) -> bool:
    """Whether a fence line closes the fence opened with `marker`."""
    mark = fence[2]
    return mark[0] == marker[0] and len(mark) >= len(marker) and not fence[3]


def _opened(fence: re.Match[str]) -> tuple[str, str]:
    """What a fence's opening line shows, and the kind of fence it opens."""
    indent, mark, info = fence[1], fence[2], fence[3].strip()
    myst = _MYST.fullmatch(info)
    if myst is None:
        if mark[0] != ":":
            return fence[0], "code"  # a code fence: ```python
        named = _ADMONITION.fullmatch(info)  # Docusaurus: :::tip Title
        if named is None:
            return indent + info, "directive"
        return directive_line(indent, named[1], named[2] or ""), "directive"
    name, argument = myst[1].lower().rsplit(":", 1)[-1], myst[2]
    if name in CODE:
        return f"{indent}{mark}{argument}", "code"
    if name == "eval-rst":
        return "", "rst"
    kind = "hidden" if name in HIDDEN else "directive"
    return plain_roles(directive_line(indent, name, argument), MYST_ROLE), kind
