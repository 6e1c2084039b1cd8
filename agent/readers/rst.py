"""reStructuredText, with Sphinx's roles and directives shown as their text (`roles`).

`.. note:: Mind the gap` reads `Note: Mind the gap`, `:func:`get`` reads `get`, and a
`.. toctree::` with its options and entries reads as blank lines; every line keeps its
number. Targets (`.. _label:`) and substitution definitions are blank as well.
"""

from __future__ import annotations

import re

from agent.readers.base import NotText
from agent.readers.decoding import UTF16, decode, is_binary
from agent.readers.lines import normalize_breaks
from agent.readers.roles import HIDDEN, OPTION, RST_ROLE, directive_line, plain_roles

_DIRECTIVE = re.compile(r"([ \t]*)\.\.[ \t]+([A-Za-z][\w:.+-]*)[ \t]*::(?:[ \t]+(.*))?")
_TARGET = re.compile(r"[ \t]*\.\.[ \t]+(?:_[^:]*:.*|\|[^|]+\|.*)|[ \t]*__[ \t].*")


def read(data: bytes) -> str:
    """The doc's text with Sphinx's markup shown as text; NotText if it is binary data."""
    if is_binary(data):
        raise NotText("binary")
    text = decode(data)
    if not data.startswith(UTF16) and not _marked(data):
        return text
    return "\n".join(plain_lines(normalize_breaks(text).split("\n")))


def verbatim(data: bytes) -> bool:
    """Whether `read` gives the bytes' text as it stands: no directive, role or target."""
    return not _marked(data)


def _marked(data: bytes) -> bool:
    """Whether a doc's bytes may hold a directive, a target or a role (found at C speed)."""
    return b".. " in data or b":`" in data or b"__ " in data


def plain_lines(lines: list[str]) -> list[str]:
    """reStructuredText lines with their roles and directives shown as text, in place."""
    n = 0
    while n < len(lines):
        line = lines[n]
        start = line.lstrip(" \t")[:2]
        directive = _DIRECTIVE.fullmatch(line) if start == ".." else None
        if directive is None:
            if start in ("..", "__") and _TARGET.fullmatch(line):
                lines[n] = ""
            elif ":`" in line:
                lines[n] = plain_roles(line, RST_ROLE)
            n += 1
            continue
        indent, name = directive[1], directive[2]
        lines[n] = plain_roles(directive_line(indent, name, directive[3] or ""), RST_ROLE)
        n += 1
        while n < len(lines) and lines[n].strip() and OPTION.fullmatch(lines[n]):
            if len(lines[n]) - len(lines[n].lstrip()) <= len(indent):
                break
            lines[n] = ""
            n += 1
        if name.lower().rsplit(":", 1)[-1] in HIDDEN:
            while n < len(lines) and (not lines[n].strip() or _deeper(lines[n], indent)):
                lines[n] = ""
                n += 1
    return lines


def _deeper(line: str, indent: str) -> bool:
    return len(line) - len(line.lstrip()) > len(indent)
