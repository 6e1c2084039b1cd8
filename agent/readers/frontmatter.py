"""YAML front matter (`---` lines at the top of Markdown and MDX): a title, never body text.

The block between a doc's first line `---` and the next line `---` (or `...`) is
metadata. It keeps its lines, so every later line keeps its number: its `title` (or
`sidebar_label` when there is none) becomes a `# Title` heading on its first line when
the body has no level-1 heading of its own, its `description` a line of text after it,
and every other line a blank one.

Hand-written for a reason: only top-level scalars are read (a key's plain, quoted or
block value), in one pass; a YAML library would build every nested value of a hostile
block, and none is installed with docsagent.
"""

from __future__ import annotations

import re

_KEY = re.compile(r"([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*)|$)")
_OPEN = re.compile(r"---[ \t]*")
_CLOSE = re.compile(r"(?:---|\.\.\.)[ \t]*")
_ATX_TOP = re.compile(r" {0,3}#(?:[ \t]|$)")
_SETEXT_TOP = re.compile(r" {0,3}=+[ \t]*")
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
TITLE_KEYS = ("title", "sidebar_label")


def span(lines: list[str]) -> int:
    """How many lines the front matter at the top of `lines` takes (0 if it has none)."""
    if not lines or not _OPEN.fullmatch(lines[0]):
        return 0
    for n in range(1, len(lines)):
        if _CLOSE.fullmatch(lines[n]):
            return n + 1
    return 0  # never closed: a rule, not front matter


def fill(lines: list[str], end: int) -> None:
    """Replace the front matter `lines[:end]` (see `span`) by its title and description."""
    if end < 2:
        return
    values = scalars(lines[1 : end - 1])
    title = next((values[k] for k in TITLE_KEYS if values.get(k)), "")
    description = values.get("description", "")
    lines[:end] = [""] * end
    if title and not has_title(lines, end):
        lines[0] = f"# {title}"
    if description:
        lines[1] = description


def scalars(block: list[str]) -> dict[str, str]:
    """The top-level keys of a YAML block with a scalar value, each as one line of text."""
    found: dict[str, str] = {}
    n = 0
    while n < len(block):
        key = _KEY.fullmatch(block[n].rstrip())
        n += 1
        if key is None or block[n - 1][:1] in " \t":
            continue
        value = (key[2] or "").strip()
        more: list[str] = []
        while n < len(block) and (not block[n].strip() or block[n][:1] in " \t"):
            more.append(block[n].strip())
            n += 1
        if value[:1] in "|>":
            text = " ".join(m for m in more if m)
        elif value[:1] in "\"'":
            text = _quoted(" ".join([value, *(m for m in more if m)]))
        elif value:
            text = " ".join([_plain(value), *(m for m in more if m)])
        else:
            continue  # a mapping or a list: not a scalar
        found.setdefault(key[1], " ".join(text.split()))
    return found


def _quoted(value: str) -> str:
    quote = value[0]
    end = value.rfind(quote)
    inner = value[1:end] if end > 0 else value[1:]
    if quote == "'":
        return inner.replace("''", "'")
    return inner.replace('\\"', '"').replace("\\\\", "\\")


def _plain(value: str) -> str:
    comment = value.find(" #")
    return value[:comment].rstrip() if comment >= 0 else value


def has_title(lines: list[str], start: int) -> bool:
    """Whether `lines` from `start` hold a level-1 heading (`# T`, or `T` over `===`)
    outside code fences."""
    fence = ""
    previous = ""
    for line in lines[start:]:
        opened = _FENCE.match(line)
        if fence:
            if opened and opened[1].startswith(fence) and not line.strip().strip(fence[0]):
                fence = ""
            previous = ""
            continue
        if opened:
            fence, previous = opened[1], ""
            continue
        if _ATX_TOP.match(line) or (previous.strip() and _SETEXT_TOP.fullmatch(line)):
            return True
        previous = line
    return False
