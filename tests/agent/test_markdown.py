from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from agent.markdown import MAX_NESTING, markdown_html, safe_url

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
        '<pre><code class="language-python">client = httpx.Client(timeout=timeout)',
        "</code></pre>",
        "</blockquote>",
        "<p>Source: advanced/timeouts.md:41-71</p>",
        "<p>See also: compatibility.md:148-156 (Requests Compatibility Guide &gt; Timeouts).</p>",
    ]


@pytest.mark.parametrize(
    ("text", "html"),
    [
        (
            "[guide](https://en.wikipedia.org/wiki/Foo_(bar))",
            '<a href="https://en.wikipedia.org/wiki/Foo_(bar)">guide</a>',
        ),
        ('[t](https://x.org "the title")', '<a href="https://x.org" title="the title">t</a>'),
        (
            '[the guide][g] and [g]\n\n[g]: https://x.org/g "G"',
            '<a href="https://x.org/g" title="G">the guide</a> and '
            '<a href="https://x.org/g" title="G">g</a>',
        ),
        ("&copy; &amp; &#35; &lt;b&gt; &nosuch;", "© &amp; # &lt;b&gt; &amp;nosuch;"),
        ("[a [b] c](x.md)", '<a href="x.md">a [b] c</a>'),
        (
            "<https://x.org/a?b=1&c=2>",
            '<a href="https://x.org/a?b=1&amp;c=2">https://x.org/a?b=1&amp;c=2</a>',
        ),
        ("<team@x.org>", '<a href="mailto:team@x.org">team@x.org</a>'),
    ],
    ids=["parentheses", "title", "reference", "entities", "brackets", "autolink", "mail"],
)
def test_links_and_entities_show_as_commonmark_does(text: str, html: str) -> None:
    assert markdown_html(text) == f"<p>{html}</p>"
    assert markdown_html(text) == MarkdownIt("commonmark").render(text).rstrip("\n")


@pytest.mark.parametrize(
    ("text", "html"),
    [
        (
            "# Title #\n\n### Deeper\n\n###### Deepest",
            "<h3>Title</h3>\n<h5>Deeper</h5>\n<h6>Deepest</h6>",
        ),
        ("Title\n=====\nSub *it*\n---", "<h3>Title</h3>\n<h4>Sub <em>it</em></h4>"),
        ("![diagram](img/a.png)", '<p><a href="img/a.png">diagram</a></p>'),
        ("[![**logo**](a.png) home](/)", '<p><a href="/">logo home</a></p>'),
        ("a\x1bb\x00c\x9bd", "<p>a\ufffdb\ufffdc\ufffdd</p>"),
        (
            "| a | b |\n|:-|-:|\n| `x\\|y` | **2** |",
            "<table>\n<thead>\n<tr>\n"
            '<th style="text-align:left">a</th>\n<th style="text-align:right">b</th>\n'
            "</tr>\n</thead>\n<tbody>\n<tr>\n"
            '<td style="text-align:left"><code>x|y</code></td>\n'
            '<td style="text-align:right"><strong>2</strong></td>\n'
            "</tr>\n</tbody>\n</table>",
        ),
    ],
    ids=[
        "headings start at h3",
        "setext headings",
        "image",
        "image in a link",
        "controls",
        "table",
    ],
)
def test_what_the_page_changes(text: str, html: str) -> None:
    """Headings sit under the page's own; an image is a link to it; controls are U+FFFD."""
    assert markdown_html(text, first_heading=3) == html


ALLOWED = {
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "code", "blockquote", "ul", "ol", "li",
    "hr", "br", "em", "strong", "a", "table", "thead", "tbody", "tr", "th", "td",
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
            elif tag == "a" and name == "title":
                pass  # an attribute value, escaped
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
    '![<script>alert(1)</script>](a.png) ![x](javascript:alert(1)) ![`<b>`]("><i>)',
    "[<https://a.org>](https://b.org) <https://a.org/[x](https://b.org)>",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_shown_as_text(text: str) -> None:
    html, parser = checked(text)
    assert not [href for href in parser.hrefs if "script" in href.lower()]


def test_unsafe_links_stay_text_and_an_unterminated_fence_runs_to_the_end() -> None:
    assert markdown_html("[x](javascript:alert(1))") == "<p>[x](javascript:alert(1))</p>"
    assert (
        markdown_html("<script>alert(1)</script>") == "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"
    )
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
        ("mailto:a@b.c", True),
        ("file:///etc/passwd", False),
        ("vbscript:x", False),
        ("\x01javascript:x", False),
        ("java\nscript:x", False),
    ],
)
def test_safe_urls(url: str, safe: bool) -> None:
    assert safe_url(url) is safe


def test_nesting_deeper_than_the_parser_goes_is_shown_as_its_source() -> None:
    quotes, _ = checked(">" * 10_000 + " deep")
    assert quotes == "<pre>" + "&gt;" * 10_000 + " deep</pre>"
    lists, _ = checked("\n".join("  " * k + "- item" for k in range(500)))
    assert lists.startswith("<pre>") and lists.count("item") == 500
    shallow, _ = checked("\n".join("> " * k + "- " + "`x` **y**" for k in range(MAX_NESTING // 4)))
    assert shallow.count("<blockquote>") == MAX_NESTING // 4 - 1
    assert shallow.count("<strong>y</strong>") == MAX_NESTING // 4


def test_a_large_hostile_answer_renders_safely() -> None:
    unit = "**a** *b <script>x</script> [c](javascript:1) `d` _e\n> f\n- g\n\n"
    html, _ = checked(unit * 3_000 + "*" * 50_000 + "[" * 50_000 + "`" * 50_000)
    assert html.count("<strong>a</strong>") == 3_000
    assert html.count("&lt;script&gt;") == 3_000


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="*_`[]()<>!\\#>-+|:~=\"' \n\tax1.&", max_size=120))
def test_any_text_renders_as_well_formed_safe_html(text: str) -> None:
    checked(text)
