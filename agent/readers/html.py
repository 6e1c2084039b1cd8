"""Built HTML docs (Sphinx, MkDocs, DocBook, rustdoc, plain pages) as clean text lines.

Navigation, sidebars, headers, footers, scripts and styles are dropped; when a page
marks its content (`<main>`, `role="main"`, `<article>`), only that is kept. Headings
become Markdown `#` lines, so the section splitter and the reader see the same
headings; `<pre>` blocks become fenced code; list items start with `- `; table cells
are joined with ` | `.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from agent.readers.base import NotText
from agent.readers.decoding import decode, is_binary
from agent.readers.html_tokens import RAW_TEXT, feed

WIDTH = 100
"""Prose is wrapped at this width, so a line number points at a few words, as in a source."""

DROPPED_TAGS = frozenset(
    "head script style noscript template svg nav aside footer button form iframe object "
    "canvas select input textarea dialog".split()
)
DROPPED_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "complementary"})
DROPPED_CLASSES = frozenset(
    # Sphinx (basic, alabaster, Read the Docs, pydoctheme), MkDocs and Material for MkDocs
    "sphinxsidebar related footer headerlink rst-versions rst-footer-buttons wy-nav-side "
    "mobile-nav breadcrumbs wy-breadcrumbs navbar bs-sidebar md-header md-footer md-sidebar "
    "md-nav md-search md-source md-skip md-top md-dialog md-feedback md-content__button "
    "skip-link copybutton "
    # DocBook XSL (PostgreSQL, many GNU and Linux manuals): Prev/Up/Next bars, the page's
    # table of contents and its lists of tables, figures and examples
    "navheader navfooter toc list-of-tables list-of-figures list-of-examples "
    # The Apache manual: its "Available Languages" bars
    "toplang bottomlang".split()
)
DROPPED_IDS = frozenset(
    # rustdoc: the auto and blanket trait implementations every type gets (`Send`, `From<T>`,
    # `ToString`...), the same on every page, which would outrank the type's own docs
    "synthetic-implementations synthetic-implementations-list "
    "blanket-implementations blanket-implementations-list".split()
)
CHROME_IDS = frozenset(
    "footer sidebar navigation menu breadcrumbs page-header page-footer path quickview".split()
)
"""Ids of a `div` that holds a page's frame, not its content: its footer, sidebar, menu or
breadcrumb trail (the Apache manual's `page-header`, `path` and `quickview`, its box of
topics, directives and links). Only a `div` that is not a section: Sphinx names a
section's `div` after its heading, so a section titled "Footer" is `id="footer"`. Not
`header`: AsciiDoc's pages keep their title and NAME section in `<div id="header">`."""
ADMONITION_CLASSES = frozenset("note tip warning caution important".split())
"""A `div` of these classes is a boxed aside; DocBook gives it a heading ("Tip"), which is
read as a plain line, not a section heading that would claim the paragraphs after it."""
CONTENT_TAGS = frozenset({"main", "article"})
VOID_TAGS = frozenset(
    "area base br col embed hr img input link meta param source track wbr".split()
)
BLOCK_TAGS = frozenset(
    "p div section article main header li ul ol dl dt dd table thead tbody tfoot tr "
    "blockquote figure figcaption details summary address h1 h2 h3 h4 h5 h6 pre hr br "
    "caption center".split()
)
HEADINGS = {f"h{n}": n for n in range(1, 7)}
CLOSED_BY = {  # an open element that a new start tag of these kinds closes (HTML's own rules)
    "head": frozenset({"body"}),
    "p": BLOCK_TAGS - {"br"},
    "li": frozenset({"li"}),
    "dt": frozenset({"dt", "dd"}),
    "dd": frozenset({"dt", "dd"}),
    "tr": frozenset({"tr"}),
    "td": frozenset({"td", "th", "tr"}),
    "th": frozenset({"td", "th", "tr"}),
}


INLINE_TAGS = frozenset(
    "span a em strong b i abbr cite small sup sub kbd var samp dfn mark u s".split()
)
"""Tags that change no text: read as if absent (highlighted code is a tag per word)."""
BOUNDARIES = frozenset({"ul", "ol", "dl", "table", "div", "section", "blockquote"})
"""What is inside one of these is not closed by a start tag from outside it."""
CLOSES = {
    tag: frozenset(opened for opened, closers in CLOSED_BY.items() if tag in closers)
    for tag in frozenset().union(*CLOSED_BY.values())
}
"""For a start tag, the open elements it closes (CLOSED_BY read the other way)."""
LINK_CLASSES = frozenset({"headerlink", "srclink", "src"})
"""Links that only point elsewhere, by their class: Sphinx's ¶ beside headings, rustdoc's
"source" (`srclink`, `src` since Rust 1.73); dropped with what they show."""
ANCHOR_CLASSES = frozenset({"anchor", "anchor-link", "permalink"})
_MARKS = r"§|¶|&sect;|&para;|&#167;|&#182;|&#x[aA]7;|&#x[bB]6;"  # §, ¶ and their entities
_MARK = re.compile(rf"\s*(?:(?:{_MARKS}|#)\s*)?</a\s*>", re.I)
_ONLY_MARK = re.compile(rf"\s*(?:{_MARKS})\s*</a\s*>", re.I)
"""What follows a heading's anchor link that shows only a mark (rustdoc's "§", Jupyter's
`anchor-link` "¶", the Apache manual's `permalink`, or any link to a place in its own page
that shows only "§" or "¶"): the link and the mark are dropped."""
_LINK_END = re.compile(r"</a\s*>", re.I)


def read(data: bytes) -> str:
    """A page's text lines, its bytes decoded by a BOM, its declared charset, else UTF-8."""
    if is_binary(data):
        raise NotText("binary")
    return "\n".join(html_lines(decode(data, html=True)))


def html_lines(page: str) -> list[str]:
    """The text lines of an HTML page."""
    reader = _Reader(page)
    feed(page, reader)
    return reader.lines()


class _Ahead:
    """Where `pattern` next matches in `text` from a position: a search is reused while its
    match is still ahead, so asking at each of many positions reads the text once."""

    def __init__(self, text: str, pattern: re.Pattern[str]) -> None:
        self.text, self.pattern = text, pattern
        self.found: re.Match[str] | None = None
        self.searched = False

    def find(self, at: int) -> re.Match[str] | None:
        if not self.searched or (self.found is not None and self.found.start() < at):
            self.found, self.searched = self.pattern.search(self.text, at), True
        return self.found


def _wrap(text: str, first: str, rest: str) -> list[str]:
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )


@dataclass
class _Open:
    tag: str
    dropped: bool  # this element starts a dropped region
    content: bool  # this element marks the page's content
    aside: bool = False  # this element is an admonition (a note, tip or warning box)


@dataclass
class _Out:
    """Lines written so far, and the paragraph being gathered."""

    lines: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)


class _Reader:
    """The page's text, gathered from `feed`'s calls with the state of what is open."""

    def __init__(self, page: str) -> None:
        self.page = page
        self.link_ends = _Ahead(page, _LINK_END)
        self.stack: list[_Open] = []
        self.open_tags: Counter[str] = Counter()  # tags in `stack`, to skip stray end tags fast
        # Where in `stack` the open elements a start tag can close, and the boundaries, are:
        # a start tag looks at the topmost of each, never down the whole stack.
        self.marks: defaultdict[str, list[int]] = defaultdict(list)
        self.skip_link = False  # inside a link dropped with what it shows
        self.raw = False  # inside a script or style
        self.dropping = 0  # open elements that drop what they hold
        self.in_content = 0  # open elements that mark the content
        self.everything, self.content = _Out(), _Out()
        self.pre: list[str] | None = None  # the raw text of an open <pre>
        self.heading = 0
        self.asides = 0  # open admonitions: a heading in one is not a section's
        self.lists: list[str] = []  # "ul"/"ol" of the open lists
        self.cells = 0  # cells written in the open table row

    # What is kept: the content when the page marks it, else everything not dropped.

    def lines(self) -> list[str]:
        for out in (self.everything, self.content):
            self._flush(out)
        chosen = self.content.lines if any(self.content.lines) else self.everything.lines
        result: list[str] = []
        for line in chosen:
            line = line.rstrip()
            if line or (result and result[-1]):
                result.append(line)
        while result and not result[-1]:
            result.pop()
        return result

    def _outs(self) -> list[_Out]:
        if self.dropping:
            return []
        return [self.everything, self.content] if self.in_content else [self.everything]

    def _write(self, *lines: str) -> None:
        for out in self._outs():
            self._flush(out)
            out.lines.extend(lines)

    def _flush(self, out: _Out, *, gap: bool = True) -> None:
        """Write the gathered words as a paragraph (`gap`: and a blank line after it)."""
        text = " ".join("".join(out.words).split())
        out.words.clear()
        if not text:
            return
        if self.heading:
            out.lines.extend(["", "#" * self.heading + " " + text, ""])
        elif self.cells:
            out.lines.append(text)  # a table row stays on one line
        elif self.lists and self.open_tags["li"]:
            indent = "  " * (len(self.lists) - 1)
            out.lines.extend(_wrap(text, indent + "- ", indent + "  "))
        else:
            out.lines.extend([*_wrap(text, "", ""), ""] if gap else _wrap(text, "", ""))

    def _block(self) -> None:
        for out in self._outs():
            self._flush(out)

    # The tokens' callbacks.

    def starttag(self, tag: str, attrs: dict[str, str | None], *, closed: bool, end: int) -> None:
        if tag in RAW_TEXT:
            self.raw = not closed
        if self.skip_link:
            return
        if self.pre is not None:  # a <pre> is read as plain text: only line breaks count
            if tag == "br":
                self.pre.append("\n")
            return
        if tag in INLINE_TAGS:
            if tag == "a" and self._only_points(attrs, end):
                self.skip_link = True
            return
        self._start(tag, attrs)
        if closed and tag not in VOID_TAGS and self.stack and self.stack[-1].tag == tag:
            self.endtag(tag)

    def _only_points(self, attrs: dict[str, str | None], end: int) -> bool:
        """Whether the `<a>` ending at `end` is a heading's or a source link, dropped whole."""
        classes = set((attrs.get("class") or "").lower().split())
        if classes & LINK_CLASSES:
            return self.link_ends.find(end) is not None
        if classes & ANCHOR_CLASSES:
            return _MARK.match(self.page, end) is not None
        if (attrs.get("href") or "").startswith("#"):
            return _ONLY_MARK.match(self.page, end) is not None
        return False

    def _start(self, tag: str, values: dict[str, str | None]) -> None:
        self._close_implied(tag)
        if tag in VOID_TAGS:
            self._void(tag)
            return
        classes = set((values.get("class") or "").split())
        dropped = (
            tag in DROPPED_TAGS
            or (values.get("role") or "") in DROPPED_ROLES
            or bool(classes & DROPPED_CLASSES)
            or (values.get("id") or "") in DROPPED_IDS
            or (tag == "div" and values.get("id") in CHROME_IDS and "section" not in classes)
            or (tag == "header" and not self.in_content)
            or "hidden" in values
        )
        content = tag in CONTENT_TAGS or values.get("role") == "main"
        aside = tag == "div" and bool(classes & ADMONITION_CLASSES)
        if tag in BLOCK_TAGS:
            self._block()
        if tag in CLOSED_BY or tag in BOUNDARIES:
            self.marks[tag].append(len(self.stack))
        self.stack.append(_Open(tag, dropped, content, aside))
        self.open_tags[tag] += 1
        self.dropping += dropped
        self.in_content += content
        self.asides += aside
        self._opened(tag)

    def _opened(self, tag: str) -> None:
        if self.dropping:
            return
        if tag in HEADINGS:
            self.heading = 0 if self.asides else HEADINGS[tag]
        elif tag == "pre":
            self._write("```")
            self.pre = []
        elif tag in {"ul", "ol"}:
            self.lists.append(tag)
        elif tag == "tr":
            self.cells = 0
        elif tag in {"td", "th"}:
            if self.cells:
                self._data(" | ")
            self.cells += 1
        elif tag == "code" and self.pre is None:
            self._data("`")

    def endtag(self, tag: str) -> None:
        if tag in RAW_TEXT:
            self.raw = False
        if self.skip_link:
            self.skip_link = tag != "a"
            return
        if tag in INLINE_TAGS or (self.pre is not None and tag != "pre"):
            return
        self._end(tag)

    def _end(self, tag: str) -> None:
        if not self.open_tags[tag]:
            return  # a stray end tag
        while self.stack:
            opened = self.stack.pop()
            self.open_tags[opened.tag] -= 1
            if opened.tag in CLOSED_BY or opened.tag in BOUNDARIES:
                self.marks[opened.tag].pop()
            self._closed(opened)
            if opened.tag == tag:
                break

    def _closed(self, opened: _Open) -> None:
        tag = opened.tag
        if not self.dropping:
            if tag in HEADINGS:
                self._block()
                self.heading = 0
            elif tag == "pre" and self.pre is not None:
                text = "".join(self.pre).strip("\n")
                self.pre = None
                self._write(*[line.rstrip() for line in text.split("\n")], "```", "")
            elif tag in {"ul", "ol"} and self.lists:
                self._block()
                self.lists.pop()
                if not self.lists:
                    self._write("")
            elif tag == "tr":
                self._block()
                self.cells = 0
            elif tag == "table":
                self._write("")
            elif tag == "code" and self.pre is None:
                self._data("`")
            elif tag in BLOCK_TAGS:
                self._block()
        self.dropping -= opened.dropped
        self.in_content -= opened.content
        self.asides -= opened.aside

    def _close_implied(self, tag: str) -> None:
        """Close the topmost open element `tag` closes, unless a boundary is open above it."""
        closes = CLOSES.get(tag)
        if not closes:
            return
        found = max((self.marks[t][-1] for t in closes if self.marks[t]), default=-1)
        boundary = max((self.marks[t][-1] for t in BOUNDARIES if self.marks[t]), default=-1)
        if found > boundary:
            self._end(self.stack[found].tag)

    def _void(self, tag: str) -> None:
        if self.dropping:
            return
        if tag == "br":
            if self.pre is not None:
                self.pre.append("\n")
            for out in self._outs():
                self._flush(out, gap=False)
        elif tag == "hr":
            self._write("")

    def data(self, text: str) -> None:
        if not (self.dropping or self.skip_link or self.raw):
            self._data(text)

    def _data(self, data: str) -> None:
        if self.pre is not None:
            self.pre.append(data)
            return
        for out in self._outs():
            out.words.append(data)
