"""Markdown as HTML for a shared page: a safe subset, standard library only.

Blocks: paragraphs, ATX headings, fenced and indented code, block quotes, bullet and
numbered lists, rules and pipe tables. Inline: code spans, bold, italic, links and
<autolinks>. The text is untrusted (a model's answer quoting docs), so every character
is escaped before markup is added and raw HTML shows as text; only http(s) and relative
URLs become links; containers nest at most MAX_DEPTH deep (deeper text is shown as
text); and no pattern backtracks, so the time stays linear in the size of the text.
"""

from __future__ import annotations

import re
from html import escape

from agent.markdown_inline import inline_html as _inline

MAX_DEPTH = 16

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # \x00 marks a kept piece below
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")
_QUOTE = re.compile(r" {0,3}> ?")
_ITEM = re.compile(r" {0,3}([-+*]|\d{1,9}[.)])( +|$)")
_ALIGN = re.compile(r":?-+:?")
_PIPE = re.compile(r"(?<!\\)\|")
_STARTS = frozenset("#>`~-*_+0123456789")
_SIDES = {(True, True): "center", (False, True): "right", (True, False): "left"}


def markdown_html(text: str, *, first_heading: int = 1) -> str:
    """`text` (Markdown) as an HTML fragment; a `#` heading becomes `<h{first_heading}>`."""
    text = _CONTROL.sub("\ufffd", text.replace("\r\n", "\n").replace("\r", "\n"))
    return "\n".join(_blocks([_expand(line) for line in text.split("\n")], 0, first_heading))


def _expand(line: str) -> str:
    body = line.lstrip(" \t")
    lead = line[: len(line) - len(body)]
    return lead.expandtabs(4) + body if "\t" in lead else line


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_rule(line: str) -> bool:
    marks = line.replace(" ", "").replace("\t", "")
    return len(marks) >= 3 and marks[0] in "-*_" and not marks.strip(marks[0]) and _indent(line) < 4


def _fence(line: str) -> re.Match[str] | None:
    found = _FENCE.match(line)
    return None if found is None or found[1][0] == "`" and "`" in found[2] else found


def _item(line: str) -> re.Match[str] | None:
    found = _ITEM.match(line)
    return found if found and not _is_rule(line) else None


def _is_table(lines: list[str], i: int) -> bool:
    if i + 1 >= len(lines) or "|" not in lines[i] or "|" not in lines[i + 1]:
        return False
    marks = _cells(lines[i + 1])
    return all(_ALIGN.fullmatch(m) for m in marks) and len(marks) == len(_cells(lines[i]))


def _starts_block(line: str) -> bool:
    """Whether `line` ends a paragraph (a table's start is checked apart: it takes two)."""
    if line.lstrip(" ")[:1] not in _STARTS:
        return False
    item = _item(line)
    starts = _HEADING.match(line) or _QUOTE.match(line) or _fence(line) or _is_rule(line)
    return bool(starts or (item and line[item.end() :].strip()))


def _blocks(lines: list[str], depth: int, h: int, tight: bool = False) -> list[str]:
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if depth > MAX_DEPTH:  # shown as text, so 10,000 nested quotes cost no more than one
            out.append(f"<p>{_inline(chr(10).join(s.strip() for s in lines[i:]))}</p>")
            break
        if fence := _fence(line):
            mark, indent, body = fence[1], _indent(line), []
            i += 1
            while i < n:
                ends = lines[i].strip()
                i += 1
                if ends.startswith(mark) and not ends.strip(mark[0]) and _indent(lines[i - 1]) < 4:
                    break
                body.append(lines[i - 1][min(indent, _indent(lines[i - 1])) :])
            words = fence[2].split()
            lang = f' class="language-{escape(words[0])}"' if words else ""
            out.append(f"<pre><code{lang}>{escape(chr(10).join(body))}</code></pre>")
        elif _indent(line) >= 4:
            start = i
            while i < n and (not lines[i].strip() or _indent(lines[i]) >= 4):
                i += 1
            while not lines[i - 1].strip():
                i -= 1
            code = "\n".join(s[4:] for s in lines[start:i])
            out.append(f"<pre><code>{escape(code)}</code></pre>")
        elif heading := _HEADING.match(line):
            title = line[heading.end() :].strip()
            closing = title.rstrip("#")
            title = "" if not closing else closing.rstrip() if closing[-1] in " \t" else title
            level = min(6, len(heading[1]) + h - 1)
            out.append(f"<h{level}>{_inline(title)}</h{level}>")
            i += 1
        elif _is_rule(line):
            out.append("<hr>")
            i += 1
        elif _QUOTE.match(line):
            inner = []
            while i < n and (quoted := _QUOTE.match(lines[i])):
                inner.append(lines[i][quoted.end() :])
                i += 1
            out.append(
                "<blockquote>\n" + "\n".join(_blocks(inner, depth + 1, h)) + "\n</blockquote>"
            )
        elif item := _item(line):
            html, i = _list(lines, i, item, depth, h)
            out.append(html)
        elif _is_table(lines, i):
            html, i = _table(lines, i)
            out.append(html)
        else:
            start, i = i, i + 1
            while (
                i < n
                and lines[i].strip()
                and not _starts_block(lines[i])
                and not _is_table(lines, i)
            ):
                i += 1
            text = "\n".join(_hard_break(s, k < i - 1) for k, s in enumerate(lines[start:i], start))
            out.append(_inline(text) if tight else f"<p>{_inline(text)}</p>")
    return out


def _hard_break(line: str, more: bool) -> str:
    return line.strip() + ("\\" if more and line.endswith("  ") else "")


def _list(lines: list[str], i: int, first: re.Match[str], depth: int, h: int) -> tuple[str, int]:
    kind, n = first[1][-1], len(lines)
    items: list[list[str]] = []
    loose = False
    while i < n and (item := _item(lines[i])) and item[1][-1] == kind:
        width = item.start(2) + 1 if not item[2] or len(item[2]) > 4 else item.end()
        body = [lines[i][width:]]
        i += 1
        while i < n:
            if not lines[i].strip():
                after = i
                while after < n and not lines[after].strip():
                    after += 1
                if after == n or _indent(lines[after]) < width:
                    break
                body += [""] * (after - i)
                i, loose = after, True
            elif _indent(lines[i]) >= width:
                body.append(lines[i][width:])
                i += 1
            elif body[-1].strip() and not _starts_block(lines[i]) and not _is_table(lines, i):
                body.append(lines[i])  # a lazy continuation of the item's paragraph
                i += 1
            else:
                break
        items.append(body)
        after = i
        while after < n and not lines[after].strip():
            after += 1
        if i < after < n and (next_item := _item(lines[after])) and next_item[1][-1] == kind:
            i, loose = after, True
    rendered = ("\n".join(_blocks(body, depth + 1, h, not loose)) for body in items)
    html = "".join(f"<li>{body}</li>\n" for body in rendered)
    number = first[1][:-1]
    if not number.isdigit():
        return f"<ul>\n{html}</ul>", i
    start = f' start="{int(number)}"' if int(number) != 1 else ""
    return f"<ol{start}>\n{html}</ol>", i


def _cells(line: str) -> list[str]:
    row = line.strip().removeprefix("|")
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [cell.strip() for cell in _PIPE.split(row)]


def _table(lines: list[str], i: int) -> tuple[str, int]:
    sides = [_SIDES.get((m[0] == ":", m[-1] == ":" and len(m) > 1)) for m in _cells(lines[i + 1])]
    aligns = [f' style="text-align:{side}"' if side else "" for side in sides]

    def row(line: str, tag: str) -> str:
        cells = _cells(line)
        cells += [""] * (len(aligns) - len(cells))
        shown = (f"<{tag}{a}>{_inline(c)}</{tag}>" for a, c in zip(aligns, cells, strict=False))
        return "<tr>" + "".join(shown) + "</tr>"

    rows, i = [row(lines[i], "th")], i + 2
    while i < len(lines) and "|" in lines[i] and lines[i].strip() and not _starts_block(lines[i]):
        rows.append(row(lines[i], "td"))
        i += 1
    return "<table>\n" + "\n".join(rows) + "\n</table>", i
