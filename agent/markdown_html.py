"""Markdown as HTML for a shared page: a safe subset, standard library only.

Blocks: paragraphs, ATX headings, fenced and indented code, block quotes, bullet and
numbered lists, rules and pipe tables. Inline: code spans, bold, italic, links and
<autolinks>; an image becomes a link to it. The text is untrusted (a model's answer
quoting docs), so every character is escaped before markup is added and raw HTML shows
as text; only http(s) and relative URLs become links; containers nest at most MAX_DEPTH
deep (deeper text is shown as text); and no pattern backtracks, so the time stays
linear in the size of the text.
"""

from __future__ import annotations

import re
from html import escape

from agent.markdown_inline import inline_html as _inline
from agent.markdown_table import is_table as _is_table
from agent.markdown_table import table_html

MAX_DEPTH = 16

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # which frees \x00 for markdown_inline
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")
_QUOTE = re.compile(r" {0,3}> ?")
_ITEM = re.compile(r" {0,3}([-+*]|\d{1,9}[.)])( +|$)")
_UNDERLINE = re.compile(r" {0,3}(=+|-+)[ \t]*$")  # makes the paragraph above a heading
_STARTS = frozenset("#>`~-*_+0123456789")


def markdown_html(text: str, *, first_heading: int = 1) -> str:
    """`text` (Markdown) as an HTML fragment; a `#` heading becomes `<h{first_heading}>`."""
    text = _CONTROL.sub("\ufffd", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [_expand(line) for line in text.split("\n")]
    return "\n".join(_blocks(lines, 0, min(max(first_heading, 1), 6)))


def _expand(line: str) -> str:
    body = line.lstrip(" \t")
    lead = line[: len(line) - len(body)]
    return lead.expandtabs(4) + body if "\t" in lead else line


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_rule(line: str) -> bool:
    marks = line.strip()
    if marks[:1] not in ("-", "*", "_") or _indent(line) > 3:
        return False
    dense = marks.replace(" ", "").replace("\t", "")
    return len(dense) >= 3 and not dense.strip(dense[0])


def _fence(line: str) -> re.Match[str] | None:
    found = _FENCE.match(line)
    return None if found is None or found[1][0] == "`" and "`" in found[2] else found


def _item(line: str) -> re.Match[str] | None:
    found = _ITEM.match(line)
    return found if found and not _is_rule(line) else None


def _starts_block(line: str) -> bool:
    """Whether `line` ends a paragraph (a table's start is checked apart: it takes two)."""
    if line.lstrip(" ")[:1] not in _STARTS:
        return False
    item = _item(line)  # only a list's first item, with text, interrupts: "2015. Then"
    starts = _HEADING.match(line) or _QUOTE.match(line) or _fence(line) or _is_rule(line)
    return bool(starts or item and line[item.end() :].strip() and item[1][:-1] in ("", "1"))


def _ends_paragraph(lines: list[str], i: int) -> bool:
    return not lines[i].strip() or _starts_block(lines[i]) or _is_table(lines, i)


def _closes(line: str, mark: str) -> bool:
    fence = line.strip()
    return fence.startswith(mark) and not fence.strip(mark[0]) and _indent(line) < 4


def _next_text(lines: list[str], i: int) -> int:
    """The first line from `i` on that is not blank."""
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


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
            indent, body, i = _indent(line), [], i + 1
            while i < n and not _closes(lines[i], fence[1]):
                body.append(lines[i][min(indent, _indent(lines[i])) :])
                i += 1
            i, words = i + 1, fence[2].split()
            lang = f' class="language-{escape(words[0])}"' if words else ""
            out.append(f"<pre><code{lang}>{escape(chr(10).join(body))}</code></pre>")
        elif _indent(line) >= 4:
            start = i
            while i < n and (not lines[i].strip() or _indent(lines[i]) >= 4):
                i += 1
            code = "\n".join(s[4:] for s in lines[start:i]).rstrip("\n")
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
            inner: list[str] = []
            while i < n and (
                (quoted := _QUOTE.match(lines[i]))
                or inner[-1].strip()  # a lazy continuation of the quote's paragraph
                and not _ends_paragraph(lines, i)
            ):
                inner.append(lines[i][quoted.end() :] if quoted else lines[i])
                i += 1
            out.append("\n".join(["<blockquote>", *_blocks(inner, depth + 1, h), "</blockquote>"]))
        elif item := _item(line):
            html, i = _list(lines, i, item, depth, h)
            out.append(html)
        elif _is_table(lines, i):
            html, i = table_html(lines, i, _starts_block)
            out.append(html)
        else:
            start, i = i, i + 1
            while i < n and not _ends_paragraph(lines, i) and not _UNDERLINE.match(lines[i]):
                i += 1
            breaks = [
                s.strip() + "\\" * (s.endswith("  ") and k < i)
                for k, s in enumerate(lines[start:i], start + 1)
            ]
            text = _inline("\n".join(breaks))  # a line ending in two spaces breaks there
            if i < n and (underline := _UNDERLINE.match(lines[i])):
                level, i = min(6, h + (underline[1][0] == "-")), i + 1
                out.append(f"<h{level}>{text}</h{level}>")
            else:
                out.append(text if tight else f"<p>{text}</p>")
    return out


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
                after = _next_text(lines, i)
                if after == n or _indent(lines[after]) < width:
                    break
                body += [""] * (after - i)
                i, loose = after, True
            elif _indent(lines[i]) >= width:
                body.append(lines[i][width:])
                i += 1
            elif body[-1].strip() and not _item(lines[i]) and not _ends_paragraph(lines, i):
                body.append(lines[i])  # a lazy continuation of the item's paragraph
                i += 1
            else:
                break
        items.append(body)
        after = _next_text(lines, i)
        if i < after < n and (next_item := _item(lines[after])) and next_item[1][-1] == kind:
            i, loose = after, True
    shown = "".join(
        f"<li>{chr(10).join(_blocks(b, depth + 1, h, not loose))}</li>\n" for b in items
    )
    number = first[1][:-1]
    tag = "ul" if not number else "ol" if int(number) == 1 else f'ol start="{int(number)}"'
    return f"<{tag}>\n{shown}</{tag[:2]}>", i
