"""How each docs builder's HTML pages read: what is kept, what is dropped as frame."""

from __future__ import annotations

from agent.readers.registry import doc_lines, heading_style
from agent.search.sections import split_sections

SPHINX = """\
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Timeouts &#8212; Demo 1.0 documentation</title>
<script src="_static/doctools.js"></script><style>body { color: red }</style></head>
<body>
<div class="related" role="navigation"><ul><li><a href="genindex.html">index</a></li></ul></div>
<div class="document"><div class="documentwrapper"><div class="bodywrapper">
<div class="body" role="main">
<section id="timeouts">
<h1>Timeouts<a class="headerlink" href="#timeouts" title="Link to this heading">¶</a></h1>
<p>Requests time out after <strong>five seconds</strong> by default.
Pass <code class="docutils literal notranslate"><span class="pre">timeout=None</span></code>
to wait forever.</p>
<section id="pool">
<h2>Pool timeout<a class="headerlink" href="#pool">¶</a></h2>
<ul class="simple">
<li><p>connect: waiting for a socket</p></li>
<li><p>pool: waiting for a connection</p></li>
</ul>
<div class="highlight-python notranslate"><div class="highlight"><pre><span></span>\
<span class="n">client</span> <span class="o">=</span> <span class="n">Client</span>\
<span class="p">(</span><span class="n">timeout</span><span class="o">=</span>\
<span class="mi">5</span><span class="p">)</span>
# a comment, not a heading
</pre></div></div>
</section></section>
</div></div></div>
<div class="sphinxsidebar" role="navigation"><h3>Navigation</h3><p>Contents</p></div>
</div>
<div class="footer">&#169; Copyright 2024.</div>
</body></html>
"""

SPHINX_TEXT = [
    "# Timeouts",
    "",
    "Requests time out after five seconds by default. Pass `timeout=None` to wait forever.",
    "",
    "## Pool timeout",
    "",
    "- connect: waiting for a socket",
    "- pool: waiting for a connection",
    "",
    "```",
    "client = Client(timeout=5)",
    "# a comment, not a heading",
    "```",
]

MKDOCS = """\
<html><head><title>Proxies - Demo</title></head><body>
<header class="md-header"><nav><a href="/">Demo</a><input class="md-search__input"></nav></header>
<div class="md-container"><main class="md-main"><div class="md-main__inner">
<div class="md-sidebar md-sidebar--primary"><nav class="md-nav"><ul><li>Home</li></ul></nav></div>
<div class="md-content"><article class="md-content__inner md-typeset">
<h1 id="proxies">Proxies<a class="headerlink" href="#proxies" title="Permanent link">&para;</a></h1>
<p>Route requests through a proxy.</p>
<table><thead><tr><th>Variable</th><th>Meaning</th></tr></thead>
<tbody><tr><td><code>HTTP_PROXY</code></td><td>proxy for http</td></tr></tbody></table>
<h2 id="auth">Authentication</h2>
<p>Put the user in the URL.</p>
</article></div></div></main>
<footer class="md-footer"><p>Made with Material for MkDocs</p></footer></div>
</body></html>
"""


def test_a_sphinx_page_reads_as_clean_text_with_markdown_headings() -> None:
    lines = doc_lines(SPHINX.encode(), "api/timeouts.html")
    assert lines == SPHINX_TEXT
    sections = split_sections(lines, heading_style("api/timeouts.html"))
    assert [(s.start, s.end, s.headings) for s in sections] == [
        (1, 3, ("Timeouts",)),
        (5, 13, ("Timeouts", "Pool timeout")),
    ]


def test_a_mkdocs_page_keeps_its_article_and_drops_header_nav_and_footer() -> None:
    lines = doc_lines(MKDOCS.encode(), "proxies/index.htm")
    assert lines == [
        "# Proxies",
        "",
        "Route requests through a proxy.",
        "",
        "Variable | Meaning",
        "`HTTP_PROXY` | proxy for http",
        "",
        "## Authentication",
        "",
        "Put the user in the URL.",
    ]
    assert [s.headings for s in split_sections(lines, "markdown")] == [
        ("Proxies",),
        ("Proxies", "Authentication"),
    ]


DOCBOOK = """\
<html><head><title>19.4. Managing Kernel Resources</title></head><body>
<div class="navheader"><table summary="Navigation header"><tr><th colspan="3">19.4. Kernel</th>
</tr><tr><td><a href="prev.html">Prev</a></td><th>Chapter 19</th><td><a href="n.html">Next</a>
</td></tr></table><hr /></div>
<div class="sect1"><div class="titlepage"><h2 class="title">19.4. Kernel Resources</h2></div>
<div class="toc"><dl class="toc"><dt><span class="sect2"><a href="#SHM">19.4.1. Shared Memory</a>
</span></dt></dl></div>
<p>The server can run out of kernel resources.</p>
<div class="tip"><h3 class="title">Tip</h3><p>Raise the limits before a big load.</p></div>
<p>Shared memory is set at start.</p>
<div class="sect2"><h3 class="title">19.4.1. Shared Memory</h3><p>Set shmmax.</p></div>
</div>
<div class="navfooter"><hr /><table summary="Navigation footer"><tr><td>Prev</td><td>Up</td>
</tr></table></div>
</body></html>
"""


def test_a_docbook_page_drops_its_navigation_and_table_of_contents() -> None:
    lines = doc_lines(DOCBOOK.encode(), "kernel-resources.html")
    assert lines == [
        "## 19.4. Kernel Resources",
        "",
        "The server can run out of kernel resources.",
        "",
        "Tip",
        "",
        "Raise the limits before a big load.",
        "",
        "Shared memory is set at start.",
        "",
        "### 19.4.1. Shared Memory",
        "",
        "Set shmmax.",
    ]
    # A tip's heading is a line of its box, not a section that claims what follows it.
    assert [s.headings for s in split_sections(lines, "markdown")] == [
        ("19.4. Kernel Resources",),
        ("19.4. Kernel Resources", "19.4.1. Shared Memory"),
    ]


RUSTDOC = """\
<html><head><title>TokenStream</title></head><body><nav class="sidebar">Items</nav>
<main><h1 class="fqn">Struct <a href="#">TokenStream</a></h1><span class="out-of-band">\
<a class="srclink" href="../src/lib.rs.html#161">source</a></span>
<h2 id="trait-implementations">Trait Implementations<a href="#trait-implementations" \
class="anchor">§</a></h2><div id="trait-implementations-list">
<h3>impl FromStr for TokenStream</h3><div class="docblock"><p>Parses a string.</p></div></div>
<h2 id="synthetic-implementations">Auto Trait Implementations</h2>
<div id="synthetic-implementations-list"><h3>impl Send for TokenStream</h3></div>
<h2 id="blanket-implementations">Blanket Implementations</h2>
<div id="blanket-implementations-list"><h3>impl&lt;T&gt; ToString for T</h3>
<p>Converts the given value to a String.</p></div></main></body></html>
"""


def test_a_rustdoc_page_keeps_the_types_own_items_only() -> None:
    assert doc_lines(RUSTDOC.encode(), "struct.TokenStream.html") == [
        "# Struct TokenStream",
        "",
        "## Trait Implementations",
        "",
        "### impl FromStr for TokenStream",
        "",
        "Parses a string.",
    ]


def test_a_notebook_page_drops_its_heading_anchor_marks() -> None:
    page = (
        '<html><body><main><h2 id="Setup">Setup<a class="anchor-link" href="#Setup">&#xB6;</a>'
        "</h2><p>Install it.</p></main></body></html>"
    )
    assert doc_lines(page.encode(), "notebook.html") == ["## Setup", "", "Install it."]


def test_permalink_marks_beside_headings_are_dropped_and_other_links_kept() -> None:
    page = (
        '<html><body><h2 id="examples">Examples <a title="Permanent link" href="#examples" '
        'class="permalink">&para;</a></h2><h2 id="more">More<a href="#more">&#167;</a></h2>'
        '<p>See <a href="#examples">the examples</a> <a href="#top">#</a></p></body></html>'
    )
    assert doc_lines(page.encode(), "mod_headers.html") == [
        "## Examples",
        "",
        "## More",
        "",
        "See the examples #",
    ]


def test_a_page_of_link_tags_that_never_close_keeps_its_heading() -> None:
    for tag in ("<a href='#x' ", "<a class='x' ", "<a title='x' "):
        page = f"<html><body><h2>Broken</h2><p>{tag * 2000}</p><p>After.</p></body></html>"
        lines = doc_lines(page.encode(), "broken.html")  # timed in the bench
        assert lines[0] == "## Broken"


def test_a_pages_frame_in_divs_named_for_it_is_dropped_but_not_a_section_so_named() -> None:
    page = (
        '<html><body><div id="page-header"><p class="menu">Modules | FAQ</p></div>'
        '<div id="path">Apache &gt; Docs</div><h1>mod_deflate</h1>'
        '<div id="quickview"><h3>Topics</h3><ul><li>Enabling Compression</li></ul></div>'
        '<div class="section" id="footer"><h2>Footer</h2><p>Set the footer.</p></div>'
        '<div id="header"><h2>NAME</h2><p>git-reset - Reset HEAD</p></div>'
        '<div id="footer"><p>Last updated</p></div></body></html>'
    )
    assert doc_lines(page.encode(), "mod_deflate.html") == [
        "# mod_deflate",
        "",
        "## Footer",
        "",
        "Set the footer.",
        "",
        "## NAME",
        "",
        "git-reset - Reset HEAD",
    ]


RUSTDOC_1_73 = """\
<html><body><main><div class="main-heading"><h1>Struct <span class="struct">TokenStream</span></h1>\
<span class="sub-heading"><a class="src" href="../src/tiny/lib.rs.html#3">Source</a></span></div>
<p>Built from <a href="https://github.com/x/tiny/tree/main/src">the src folder</a>.</p>
<h2 id="implementations">Implementations</h2><div id="implementations-list">
<div class="impl-items"><section id="method.new" class="method"><a class="src rightside" \
href="../src/tiny/lib.rs.html#6">Source</a><h4 class="code-header">pub fn new() -&gt; Self</h4>\
</section></div></div></main></body></html>
"""


def test_a_rustdoc_page_since_rust_1_73_loses_its_source_links_too() -> None:
    # rustdoc renamed its "srclink" class to "src" (rust-lang/rust#113709, Rust 1.73)
    assert doc_lines(RUSTDOC_1_73.encode(), "struct.TokenStream.html") == [
        "# Struct TokenStream",
        "",
        "Built from the src folder.",
        "",
        "## Implementations",
        "",
        "#### pub fn new() -> Self",
    ]
