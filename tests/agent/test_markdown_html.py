from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt  # rich's CommonMark parser: the reference here

from agent.markdown_html import MAX_DEPTH, markdown_html
from agent.markdown_inline import inline_html, safe_url

OFFLINE_ANSWER = """\
According to `advanced/timeouts.md` (Fine tuning the configuration):

> HTTPX also allows you to ...
> * The **connect** timeout ...
> a socket connection.
>
> ```python
> client = httpx.Client(timeout=timeout)
> ```

Source: advanced/timeouts.md:41-71

See also: compatibility.md:148-156 (Requests Compatibility Guide > Timeouts)."""


def test_the_offline_answer_is_a_quote_holding_a_list_and_code() -> None:
    assert markdown_html(OFFLINE_ANSWER).splitlines() == [
        "<p>According to <code>advanced/timeouts.md</code> (Fine tuning the configuration):</p>",
        "<blockquote>",
        "<p>HTTPX also allows you to ...</p>",
        "<ul>",
        "<li>The <strong>connect</strong> timeout ...",
        "a socket connection.</li>",
        "</ul>",
        '<pre><code class="language-python">client = httpx.Client(timeout=timeout)</code></pre>',
        "</blockquote>",
        "<p>Source: advanced/timeouts.md:41-71</p>",
        "<p>See also: compatibility.md:148-156 (Requests Compatibility Guide &gt; Timeouts).</p>",
    ]


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("# Title #\n\n### Deeper", "<h3>Title</h3>\n<h5>Deeper</h5>"),
        ("####### seven", "<p>####### seven</p>"),
        ("1. one\n2. two", "<ol>\n<li>one</li>\n<li>two</li>\n</ol>"),
        ("3) three\n4) four", '<ol start="3">\n<li>three</li>\n<li>four</li>\n</ol>'),
        ("- a\n\n- b", "<ul>\n<li><p>a</p></li>\n<li><p>b</p></li>\n</ul>"),
        ("- a\n  - b\n- c", "<ul>\n<li>a\n<ul>\n<li>b</li>\n</ul></li>\n<li>c</li>\n</ul>"),
        ("- a\n1. b", "<ul>\n<li>a</li>\n</ul>\n<ol>\n<li>b</li>\n</ol>"),
        ("text\n* * *\nmore", "<p>text</p>\n<hr>\n<p>more</p>"),
        ("- -\n* * *", "<ul>\n<li><ul>\n<li></li>\n</ul></li>\n</ul>\n<hr>"),  # two marks: no rule
        ("~~~ sh extra\n$ ls\n~~~", '<pre><code class="language-sh">$ ls</code></pre>'),
        ("````\n```\n````", "<pre><code>```</code></pre>"),
        (
            "    code <b>\n\n    more\n\nafter",
            "<pre><code>code &lt;b&gt;\n\nmore</code></pre>\n<p>after</p>",
        ),
        ("one  \ntwo\nthree\\", "<p>one<br>\ntwo\nthree\\</p>"),
        (
            "| a | b |\n|:-|-:|\n| `x\\|y` | **2** | extra |\n| 3 |",
            "<table>\n"
            '<tr><th style="text-align:left">a</th><th style="text-align:right">b</th></tr>\n'
            '<tr><td style="text-align:left"><code>x|y</code></td>'
            '<td style="text-align:right"><strong>2</strong></td></tr>\n'
            '<tr><td style="text-align:left">3</td><td style="text-align:right"></td></tr>\n'
            "</table>",
        ),
        ("a | b\nnot a table", "<p>a | b\nnot a table</p>"),
        ("Title\n=====\nSub *it*\n---", "<h1>Title</h1>\n<h2>Sub <em>it</em></h2>"),
        (
            "> quoted\nlazy line\n\nafter",
            "<blockquote>\n<p>quoted\nlazy line</p>\n</blockquote>\n<p>after</p>",
        ),
        ("in\n2015. a year\n- b", "<p>in\n2015. a year</p>\n<ul>\n<li>b</li>\n</ul>"),
        ("1. a\n2. b\nlazy", "<ol>\n<li>a</li>\n<li>b\nlazy</li>\n</ol>"),
    ],
)
def test_blocks(text: str, html: str) -> None:
    assert markdown_html(text, first_heading=3 if text.startswith("#") else 1) == html


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("**bold** and *it* and _it_", "<strong>bold</strong> and <em>it</em> and <em>it</em>"),
        (
            "***both*** **a *b* c**",
            "<em><strong>both</strong></em> <strong>a <em>b</em> c</strong>",
        ),
        ("snake_case_name 2*3*4 a * b", "snake_case_name 2<em>3</em>4 a * b"),
        ("**unclosed and *half", "**unclosed and *half"),
        ("**a*b**c* *ab,*`x`", "<strong>a*b</strong>c* <em>ab,</em><code>x</code>"),
        ("`a*b*` `` x`y `` `open", "<code>a*b*</code> <code>x`y</code> `open"),
        (r"\*not\* \`code\` \[x](y)", "*not* `code` [x](y)"),
        (
            "[guide](https://x.org/a_b?q=1&r=2) [local](api.md#client)",
            '<a href="https://x.org/a_b?q=1&amp;r=2">guide</a> <a href="api.md#client">local</a>',
        ),
        (
            "[`Client`](api.md) [**b**](/x)",
            '<a href="api.md"><code>Client</code></a> <a href="/x"><strong>b</strong></a>',
        ),
        ('[t](https://x.org "title")', '<a href="https://x.org">t</a>'),
        ("![diagram](img/a.png)", '<a href="img/a.png">diagram</a>'),
        ("<https://x.org/a>", '<a href="https://x.org/a">https://x.org/a</a>'),
        ("a < b & c > d \"q\" 'a'", "a &lt; b &amp; c &gt; d &quot;q&quot; &#x27;a&#x27;"),
    ],
)
def test_inline_marks(text: str, html: str) -> None:
    assert markdown_html(text) == f"<p>{html}</p>"


ALLOWED = {
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "code", "blockquote", "ul", "ol", "li",
    "hr", "br", "em", "strong", "a", "table", "tr", "th", "td",
}  # fmt: skip
VOID = {"hr", "br"}


class SafeHTML(HTMLParser):
    """Fails on any tag, attribute or construct the renderer must never emit."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        assert tag in ALLOWED, tag
        assert not (tag == "a" and "a" in self.stack), "a link inside a link"
        for name, value in attrs:
            assert value is not None
            if tag == "a" and name == "href":
                assert safe_url(value), value
                self.hrefs.append(value)
            elif tag == "code" and name == "class":
                assert re.fullmatch(r"language-\S+", value), value
            elif tag == "ol" and name == "start":
                assert value.isdigit()
            else:
                assert (tag, name) in {("th", "style"), ("td", "style")}, (tag, name)
                assert value in {"text-align:left", "text-align:right", "text-align:center"}
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, (tag, self.stack)
        self.stack.pop()

    def handle_comment(self, data: str) -> None:
        raise AssertionError(f"comment {data!r}")

    def handle_decl(self, decl: str) -> None:
        raise AssertionError(f"declaration {decl!r}")

    def handle_pi(self, data: str) -> None:
        raise AssertionError(f"processing instruction {data!r}")

    def unknown_decl(self, data: str) -> None:
        raise AssertionError(f"declaration {data!r}")


def checked(text: str) -> tuple[str, SafeHTML]:
    html = markdown_html(text)
    parser = SafeHTML()
    parser.feed(html)
    parser.close()
    assert parser.stack == []
    assert "<script" not in html.lower() and "\x00" not in html
    return html, parser


HOSTILE = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "<!-- comment --><![CDATA[x]]><?php x ?>",
    "[x](javascript:alert(1))",
    "[x](JavaScript:alert(1)) [y](vbscript:x) [z](data:text/html,<script>)",
    "[x](\x01javascript:alert(1)) [y](java\tscript:alert(1))",
    "![x](javascript:alert(1)) <javascript:alert(1)>",
    '[x](https://x.org/"onmouseover="alert(1)) <https://x.org/"onclick="alert(1)>',
    '```"><script>alert(1)</script>\nx\n```',
    "```python\n<b>never closed",
    "> <script>\n> - <img src=x>\n>   ```\n>   </pre><script>",
    "| <script> | b |\n|---|---|\n| `</td>` | [x](javascript:1) |",
    "**<script>** _<img>_ `<b>` [<i>](https://x.org/<i>)",
    "[<https://a.org>](https://b.org) <https://a.org/[x](https://b.org)>",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_shown_as_text(text: str) -> None:
    html, parser = checked(text)
    assert not [href for href in parser.hrefs if "script" in href.lower()]


def test_unsafe_links_stay_text_and_an_unterminated_fence_runs_to_the_end() -> None:
    assert markdown_html("[x](javascript:alert(1))") == "<p>[x](javascript:alert(1))</p>"
    assert markdown_html("```python\n<b>x\n\n# not a heading") == (
        '<pre><code class="language-python">&lt;b&gt;x\n\n# not a heading</code></pre>'
    )


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://x.org", True),
        ("HTTP://x.org", True),
        ("api.md#client", True),
        ("../img/a.png", True),
        ("/abs?x=a:b", True),
        ("javascript:alert(1)", False),
        ("jAvAsCrIpT:alert(1)", False),
        ("data:text/html,x", False),
        ("mailto:a@b.c", False),
        ("\x01javascript:x", False),
        ("java\nscript:x", False),
    ],
)
def test_safe_urls(url: str, safe: bool) -> None:
    assert safe_url(url) is safe


def test_nesting_deeper_than_the_limit_is_shown_as_text() -> None:
    quotes, _ = checked(">" * 10_000 + " deep")
    assert quotes.count("<blockquote>") == MAX_DEPTH + 1
    assert quotes.count("&gt;") == 10_000 - MAX_DEPTH - 1 and "deep" in quotes
    lists, _ = checked("\n".join("  " * k + "- item" for k in range(500)))
    assert lists.count("<ul>") == MAX_DEPTH + 1 and lists.count("item") == 500
    mixed, _ = checked("\n".join("> " * k + "- " + "`x` **y**" for k in range(200)))
    assert 0 < mixed.count("<blockquote>") <= 200 and "<strong>y</strong>" in mixed


def test_a_large_hostile_answer_renders_safely() -> None:
    unit = "**a** *b <script>x</script> [c](javascript:1) `d` _e\n> f\n- g\n\n"
    html, _ = checked(unit * 3_000 + "*" * 50_000 + "[" * 50_000 + "`" * 50_000)
    assert html.count("<strong>a</strong>") == 3_000
    assert html.count("&lt;script&gt;") == 3_000


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="*_`[]()<>!\\#>-+|:~=\"' \n\tax1.&", max_size=120))
def test_any_text_renders_as_well_formed_safe_html(text: str) -> None:
    checked(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="**__ab .,`", max_size=16))
def test_emphasis_and_code_spans_match_commonmark(text: str) -> None:
    assert inline_html(text) == MarkdownIt("commonmark").renderInline(text)
