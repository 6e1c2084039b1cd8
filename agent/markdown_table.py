"""Pipe tables (GitHub's Markdown) as HTML: a header row, a row of dashes, body rows.

A row's cells are split at each `|` that is not escaped (`\\|` is a `|` in a cell, even
in a code span); cells past the header's count are dropped and missing ones left empty;
colons in the dashes align a column.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.markdown_inline import inline_html

_DASHES = re.compile(r":?-+:?")
_PIPE = re.compile(r"(?<!\\)\|")
_SIDES = {(True, True): "center", (False, True): "right", (True, False): "left"}


def is_table(lines: list[str], i: int) -> bool:
    """Whether a table starts at `lines[i]`: it needs the row of dashes after it."""
    if i + 1 >= len(lines) or "|" not in lines[i] or "|" not in lines[i + 1]:
        return False
    marks = _cells(lines[i + 1])
    return all(_DASHES.fullmatch(m) for m in marks) and len(marks) == len(_cells(lines[i]))


def _cells(line: str) -> list[str]:
    row = line.strip().removeprefix("|")
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [cell.strip().replace("\\|", "|") for cell in _PIPE.split(row)]


def table_html(lines: list[str], i: int, ends: Callable[[str], bool]) -> tuple[str, int]:
    """The table at `lines[i]` as HTML, and the index of the line after it.

    Args:
        lines: The block's lines.
        i: Where the table starts (`is_table(lines, i)` holds).
        ends: Whether a line that is not blank starts another block, ending the table.
    """
    sides = [_SIDES.get((m[0] == ":", m[-1] == ":")) for m in _cells(lines[i + 1])]
    aligns = [f' style="text-align:{side}"' if side else "" for side in sides]

    def row(line: str, tag: str) -> str:
        cells = _cells(line)
        cells += [""] * (len(aligns) - len(cells))
        shown = (f"<{tag}{a}>{inline_html(c)}</{tag}>" for a, c in zip(aligns, cells, strict=False))
        return "<tr>" + "".join(shown) + "</tr>"

    rows, i = [row(lines[i], "th")], i + 2
    while i < len(lines) and "|" in lines[i] and lines[i].strip() and not ends(lines[i]):
        rows.append(row(lines[i], "td"))
        i += 1
    return "<table>\n" + "\n".join(rows) + "\n</table>", i
