"""Markdown as HTML for a shared page: CommonMark and pipe tables, by markdown-it-py.

The text is untrusted (a model's answer quoting docs), so the parser is set up safe: raw
HTML shows as text (`html=False`); a link's target must pass `safe_url` (http, https,
mailto or relative), else the link stays text; an image becomes a link to it, labelled
with its text, so the page fetches nothing; a link inside a link keeps only its text;
control characters become U+FFFD. Blocks
nested deeper than markdown-it's limit would lose their text, so such an answer is shown
as its source instead.

markdown-it makes about eight tokens of each table row: 100,000 rows took 8.5 s. So a run
of more than MAX_TABLE_ROWS lines holding `|` ends the Markdown: from its next line on,
the text is shown as it is written, after a note that says so (escaping is linear and
quick).
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping, Sequence
from functools import cache
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token

from agent.tools.prose import MAX_TABLE_ROWS, long_table_end

MAX_NESTING = 20  # markdown-it's own limit for CommonMark
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SCHEME_END = re.compile(r"[:/?#]")
_SAFE_SCHEMES = ("http", "https", "mailto")


def markdown_html(text: str, *, first_heading: int = 1) -> str:
    """`text` (Markdown) as an HTML fragment; a `#` heading becomes `<h{first_heading}>`."""
    text = _CONTROL.sub("\ufffd", text.replace("\r\n", "\n"))
    cut = long_table_end(text)
    if cut is not None:
        note = (
            f'<p class="note">A table of more than {MAX_TABLE_ROWS:,} rows: from here on the '
            "text is shown as written.</p>"
        )
        head = markdown_html(text[:cut], first_heading=first_heading)
        return f"{head}\n{note}\n<pre>{escape(text[cut:])}</pre>"
    md = _parser()
    env: dict[str, Any] = {"shift": min(max(first_heading, 1), 6) - 1, "links": 0}
    tokens = md.parse(text, env)
    if any(token.level >= MAX_NESTING - 1 for token in tokens):
        return f"<pre>{escape(text)}</pre>"
    html: str = md.renderer.render(tokens, md.options, env)
    return html.rstrip("\n")


def safe_url(url: str) -> bool:
    """Whether `url` may be a link's target: http(s), mailto, or relative (no scheme)."""
    if any(ord(c) <= 32 or 0x7F <= ord(c) <= 0x9F for c in url):
        return False  # browsers drop these, so "\x01javascript:" would run
    found = _SCHEME_END.search(url)
    if found is None or found[0] != ":":
        return True  # no scheme: a path, a query or a fragment
    return url[: found.start()].lower() in _SAFE_SCHEMES


Env = MutableMapping[str, Any]


@cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "xhtmlOut": False}).enable("table")
    md.validateLink = safe_url  # type: ignore[method-assign]
    for name, rule in [
        ("heading_open", _heading),
        ("heading_close", _heading),
        ("link_open", _link_open),
        ("link_close", _link_close),
        ("image", _image),
    ]:
        md.add_render_rule(name, rule)
    return md


def _heading(_: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    token = tokens[idx]
    level = min(6, int(token.tag[1]) + env["shift"])
    return f"<h{level}>" if token.nesting == 1 else f"</h{level}>\n"


def _link_open(_: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    """A link, or only its text inside another (an <autolink> in a link's label)."""
    env["links"] += 1
    if env["links"] > 1:
        return ""
    attrs = "".join(f' {name}="{escape(str(value))}"' for name, value in tokens[idx].attrItems())
    return f"<a{attrs}>"


def _link_close(_: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    env["links"] -= 1
    return "" if env["links"] else "</a>"


def _image(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: Env
) -> str:
    """An image as a link to it, labelled with its text (only the text inside a link)."""
    token = tokens[idx]
    label = escape(renderer.renderInlineAsText(token.children or [], options, env))
    if env["links"]:
        return label
    src = escape(str(token.attrGet("src") or ""))
    return f'<a href="{src}">{label or src}</a>'
