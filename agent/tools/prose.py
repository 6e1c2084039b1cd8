"""Where an answer's own prose stands: its Markdown outside code and quoted passages.

A citation counts only where the answer makes it, so text the answer shows rather than
says is left out: fenced and indented code blocks, inline code spans, block quotes (the
offline model quotes the docs in one, and docs quote tool output) and raw HTML blocks.
markdown-it-py (CommonMark, plus tables) finds the blocks; its own code-span rule,
run over each prose block's source, finds the code spans, so positions are exact.

markdown-it makes about eight tokens of each table row (100,000 rows took 6 s to read for
citations), and tries every block rule on each line of a paragraph: past MAX_TABLE_ROWS
lines holding `|` in a row, the rest of the text is taken as prose, its code spans left
out, without reading its blocks (the HTML export shows it as written).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline

_LINE_BREAK = re.compile(r"\r\n?|\n")  # what markdown-it's normalising counts as one
_INLINE_RULES = ["text", "newline", "escape", "backticks", "autolink", "html_inline", "entity"]
"""The inline rules that decide where a code span starts: escapes, links' <…> and HTML win."""
_PLAIN = re.compile(r"[^`\\<&\n]+")
"""A run no kept rule starts in: markdown-it's own text rule stops at every punctuation
mark, which made the inline pass cost more than a whole parse."""


MAX_TABLE_ROWS = 2000
"""Lines holding `|` in a row read as a table (its rows); the HTML export draws as many."""


def long_table_end(text: str) -> int | None:
    """Where the line after the first MAX_TABLE_ROWS of a longer run of `|` lines starts."""
    run = 0
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end == -1 else end + 1
        run = run + 1 if text.find("|", start, end) >= 0 else 0
        if run > MAX_TABLE_ROWS:
            return start
        start = end
    return None


def prose_ranges(text: str) -> list[tuple[int, int]]:
    """The parts of `text` that are prose: (start, end) positions, end exclusive, in order."""
    cut = long_table_end(text)
    if cut is None:
        return _ranges(text, _parser())
    parser = _parser()
    return _ranges(text[:cut], parser) + _outside_code(parser, text, cut, len(text))


def _ranges(text: str, parser: MarkdownIt) -> list[tuple[int, int]]:
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(text))]
    starts.append(len(text))
    ranges: list[tuple[int, int]] = []
    quoted = 0
    last: list[int] | None = None
    for token in parser.parse(text):
        if token.type == "blockquote_open":
            quoted += 1
        elif token.type == "blockquote_close":
            quoted -= 1
        elif token.type == "inline" and not quoted and token.map and token.map != last:
            last = token.map  # a table row's cells share one map: the row is read once
            first, end = starts[token.map[0]], starts[min(token.map[1], len(starts) - 1)]
            ranges += _outside_code(parser, text, first, end)
    return ranges


def _outside_code(parser: MarkdownIt, text: str, first: int, end: int) -> list[tuple[int, int]]:
    """The block `text[first:end]` without its inline code spans."""
    if text.find("`", first, end) < 0:
        return [(first, end)]  # no code span: most blocks, and the inline pass costs
    env: dict[str, Any] = {"code": []}
    parser.inline.parse(text[first:end], parser, env, [])
    ranges, at = [], first
    for start, stop in env["code"]:
        ranges.append((at, first + start))
        at = first + stop
    if at < end:
        ranges.append((at, end))
    return [(a, b) for a, b in ranges if b > a]


def _plain(state: StateInline, silent: bool) -> bool:
    """Skip text up to the next character a kept rule starts with."""
    found = _PLAIN.match(state.src, state.pos, state.posMax)
    if found is None:
        return False
    if not silent:
        state.pending += found.group()
    state.pos = found.end()
    return True


def _code_span(state: StateInline, silent: bool) -> bool:
    """markdown-it's backtick rule, noting where each code span it finds stands."""
    from markdown_it.rules_inline.backticks import backtick

    start, before = state.pos, len(state.tokens)
    if not backtick(state, silent):
        return False
    if not silent and len(state.tokens) > before and state.tokens[-1].type == "code_inline":
        state.env["code"].append((start, state.pos))
    return True


@functools.cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # here: `docsagent --help` need not import it

    parser = MarkdownIt("commonmark", {"html": True}).enable("table")
    parser.core.ruler.disable(["inline", "text_join"])  # blocks only: spans come per block
    parser.inline.ruler.at("text", _plain)
    parser.inline.ruler.at("backticks", _code_span)
    parser.inline.ruler.enableOnly(_INLINE_RULES)
    parser.inline.ruler2.enableOnly(["fragments_join"])
    return parser
