"""Man pages (roff sources, `tar.1`, `ls.1.gz`, as in `/usr/share/man`) as Markdown text.

Each source line gives one line, so a citation's lines are the source's: a request line
(`.PP`, `.TP`, `.RS`, a comment) is blank; `.TH` is the page's `# title` (its NAME
line, `tar - an archiving utility`, when it has one), `.SH` a `## heading`, `.SS` a
`### heading`; `.B`, `.I`, `.BR` and their kin show their words; `.nf`/`.fi` and
`.EX`/`.EE` pairs become code fences. Font, size and spacing escapes (`\\fB`, `\\s-1`,
`\\&`) are removed and special characters (`\\-`, `\\(em`, `\\[u00E9]`) read as what they
print. Macro definitions (`.de` ... `..`) and ignored blocks (`.ig`) are blank.

Hand-written for a measured reason: no roff reader ships with Python, and `man` itself
may be absent (containers); every escape is matched in bounded steps, so a line costs
what its length does.
"""

from __future__ import annotations

import re

from agent.readers.base import NotText
from agent.readers.decoding import decode, is_binary
from agent.readers.lines import normalize_breaks

_REQUEST = re.compile(r"[.'][ \t]*(\S{1,8}?)(?:[ \t]+(.*))?")
_ESCAPE = re.compile(
    r"\\(?:"
    r"(?P<font>[fF](?:\[[^\]\n]{0,40}\]|\(..|.))"
    r"|(?P<size>s[+-]?(?:\(\d\d|\[[^\]\n]{0,40}\]|\d))"
    r"|\((?P<char>..)"
    r"|\[(?P<named>[^\]\n]{0,40})\]"
    r"|\*(?P<string>\(..|\[[^\]\n]{0,40}\]|.)"
    r"|(?P<register>[ngkmMY$][+-]?(?:\(..|\[[^\]\n]{0,40}\]|.))"
    r"|N'(?P<number>\d{1,7})'"
    r"|(?P<quoted>[hvwoXDZlLbxRSACHTVBU])'[^'\n]{0,200}'"
    r"|(?P<comment>[\"#])"
    r"|(?P<other>.?)"
    r")",
    re.DOTALL,
)
CHARS = {
    "aq": "'", "dq": '"', "em": "—", "en": "–", "hy": "-", "mi": "-", "pl": "+", "bu": "•",
    "co": "©", "rg": "®", "tm": "™", "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "ti": "~",
    "ha": "^", "rs": "\\", "sl": "/", "mu": "×", "di": "÷", ">=": "≥", "<=": "≤", "!=": "≠",
    "->": "→", "<-": "←", "de": "°", "sc": "§", "ga": "`", "aa": "´", "Fo": "«", "Fc": "»",
    "fo": "‹", "fc": "›", "ba": "|", "or": "|", "at": "@", "sh": "#", "Do": "$", "lB": "[",
    "rB": "]", "lC": "{", "rC": "}", "la": "⟨", "ra": "⟩", "+-": "±", "12": "½", "14": "¼",
}  # fmt: skip
"""Special characters (`\\(em`, `\\[em]`) as they print; an unknown one prints nothing."""
STRINGS = {"lq": "“", "rq": "”", "Aq": "'", "C+": "C++", 'L"': "“", 'R"': "”", "C`": "‘",
           "C'": "’", "R": "®", "Tm": "™", "PI": "π"}  # fmt: skip
"""Strings pages use (`\\*(lq`, pod2man's `\\*(C+`), as they print."""
SIMPLE = {"-": "-", "e": "\\", "\\": "\\", " ": " ", "~": " ", "0": " ", ".": ".", "'": "'",
          "`": "`", "t": "\t", "_": "_", "E": "\\"}  # fmt: skip
FONT_REQUESTS = {"B", "I", "SM", "SB", "CW"}
"""Requests that print their words in one font, with spaces between them."""
ALTERNATING = {"BR", "RB", "BI", "IB", "IR", "RI"}
"""Requests that print their words in alternating fonts, run together."""
BLOCKS = {"de": "..", "de1": "..", "am": "..", "ig": ".."}
"""Requests that open a block to their end line: a macro's definition, an ignored block."""
FENCES = {"nf": "fi", "EX": "EE"}
SECTIONS = {"SH": "##", "SS": "###", "SU": "###"}
NAME_SECTIONS = {"NAME", "NOM", "NOMBRE", "NAMN"}
TAGS = {"TP", "TQ"}
"""Requests whose next line is a paragraph's tag (an option, `-p, --preserve-permissions`):
a heading one level under the section's, so that an option and what it does are a section."""


def read(data: bytes) -> str:
    """The man page's text, one line for each line of its source."""
    if is_binary(data):
        raise NotText("binary")
    lines = normalize_breaks(decode(data)).split("\n")
    return "\n".join(page_lines(lines))


def page_lines(lines: list[str]) -> list[str]:
    """A man page's source lines as text lines, one for one."""
    out: list[str] = []
    fences = _fences(lines)
    fenced = False
    ending = ""  # the end line of a block being skipped (`..`)
    heading = ""  # the marks of a heading whose text is on the next line
    level = 2  # the level of the section the page is in
    tagged = False  # the next line is a `.TP` paragraph's tag: an option, most often
    named = False  # the title is the NAME section's line
    for n, line in enumerate(lines):
        if ending:
            out.append("")
            ending = "" if line.strip() == ending else ending
            continue
        request = _REQUEST.fullmatch(line) if line[:1] in ".'" else None
        name, args = (request[1], request[2] or "") if request else ("", line)
        if request is None or (tagged and (name in FONT_REQUESTS or name in ALTERNATING)):
            shown = text(line) if request is None else _shown(name, args)
            if heading:
                shown, heading = f"{heading} {shown.strip()}", ""
            elif tagged and shown.strip() and not fenced:
                shown = f"{'#' * min(level + 1, 6)} {shown.strip()}"
            elif not fenced and shown.lstrip().startswith("#"):
                shown = "\\" + shown.lstrip()
            tagged = tagged and not shown.strip()
            out.append(shown)
            continue
        tagged = name in TAGS
        if n in fences:
            out.append("```")
            fenced = not fenced
        elif name in BLOCKS:
            out.append("")
            ending = BLOCKS[name]
        elif name in SECTIONS:
            words = " ".join(arguments(args))
            heading = "" if words else SECTIONS[name]
            if named and words.upper() in NAME_SECTIONS:
                words = ""  # the title is its line: the page's first section is its NAME
            out.append(f"{SECTIONS[name]} {words}" if words else "")
            level = len(SECTIONS[name])
        elif name == "TH":
            title, named = _title(lines, arguments(args))
            out.append(f"# {title}")
        else:
            out.append(_shown(name, args))
    return out


def _shown(name: str, args: str) -> str:
    """What a request line other than a heading prints."""
    words = arguments(args)
    if name in FONT_REQUESTS:
        return " ".join(words)
    if name in ALTERNATING:
        return "".join(words)
    if name == "IP":
        return words[0] if words else ""
    if name == "OP":
        return f"[{' '.join(words)}]"
    if name == "SY":
        return " ".join(words)
    if name == "so":
        return f"See {args.strip()}."
    return ""


def arguments(args: str) -> list[str]:
    """A request's arguments as they print: split at spaces, `"quoted words"` kept whole."""
    words: list[str] = []
    at = 0
    shown = text(args)
    while at < len(shown):
        if shown[at] in " \t":
            at += 1
        elif shown[at] == '"':
            end = shown.find('"', at + 1)
            while end >= 0 and shown.startswith('""', end):
                end = shown.find('"', end + 2)
            end = len(shown) if end < 0 else end
            words.append(shown[at + 1 : end].replace('""', '"'))
            at = end + 1
        else:
            end = at
            while end < len(shown) and shown[end] not in " \t":
                end += 1
            words.append(shown[at:end])
            at = end
    return words


def text(line: str) -> str:
    """A line with its escapes read: fonts and spacing gone, characters as they print."""
    if "\\" not in line:
        return line
    out: list[str] = []
    at = 0
    for escape in _ESCAPE.finditer(line):
        out.append(line[at : escape.start()])
        at = escape.end()
        kind = escape.lastgroup
        if kind == "comment":
            return "".join(out).rstrip()
        out.append(_escaped(kind, escape))
    out.append(line[at:])
    return "".join(out)


def _escaped(kind: str | None, escape: re.Match[str]) -> str:
    if kind == "char":
        return CHARS.get(escape["char"], "")
    if kind == "named":
        name = escape["named"]
        if name.startswith("u") and re.fullmatch(r"u[0-9A-Fa-f]{4,6}", name):
            code = int(name[1:], 16)
            return chr(code) if code <= 0x10FFFF else ""
        return CHARS.get(name, "")
    if kind == "string":
        return STRINGS.get(escape["string"].lstrip("([").rstrip("]"), "")
    if kind == "number":
        code = int(escape["number"])
        return chr(code) if code < 0x110000 else ""
    if kind == "other":
        return SIMPLE.get(escape["other"], "")
    return ""  # a font, a size, a register, a drawing or spacing escape


def _fences(lines: list[str]) -> set[int]:
    """The lines of `.nf`/`.fi` and `.EX`/`.EE` pairs that become code fences: each
    opening line with the first closing line after it, before the next heading."""
    found: set[int] = set()
    opened, closing = -1, ""
    for n, line in enumerate(lines):
        if line[:1] not in ".'":
            continue
        request = _REQUEST.fullmatch(line)
        name = request[1] if request else ""
        if opened >= 0 and name == closing:
            found |= {opened, n}
            opened = -1
        elif name in FENCES:
            opened, closing = n, FENCES[name]
        elif name in SECTIONS:
            opened = -1
    return found


def _title(lines: list[str], words: list[str]) -> tuple[str, bool]:
    """The page's title: its NAME line (`tar - an archiving utility`), else `TAR(1)`; and
    whether it is the NAME line."""
    named = False
    for line in lines[:400]:
        request = _REQUEST.fullmatch(line) if line[:1] in ".'" else None
        if request is not None:
            if request[1] in SECTIONS:
                if named:
                    break
                named = " ".join(arguments(request[2] or "")).upper() in NAME_SECTIONS
            continue
        if named and line.strip():
            return text(line).strip(), True
    if not words:
        return "manual page", False
    return (f"{words[0]}({words[1]})" if len(words) > 1 else words[0]), False
