"""The Markdown export is inert in a previewer that allows raw HTML: no tag, no unsafe link.

Rendered with markdown-it-py with raw HTML on (what such a previewer does), a hostile
answer, step text, question, tool name and arguments give no element of their own, and
every link goes to http, https, mailto or an anchor. Ordinary Markdown stays as it was.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from agent.export import export_trace
from agent.markdown_inert import code_span, inert
from agent.trace import read_trace
from tui.cli import app

HOSTILE = [
    "<script>document.title='pwned'</script>",
    '<base href="https://evil.example/">',
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "[click]( javascript:alert(1) )",
    "[click](<javascript:alert(1)>)",
    "[click](JaVaScRiPt:alert(1))",
    "[click](java&#x09;script:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD4=)",
    "![img](javascript:alert(1))",
    "[ref]\n\n[ref]: javascript:alert(1)",
    "[ref]\n\n[ref]:\n  vbscript:msgbox(1)",
    "<javascript:alert(1)>",
    "``` a`b\n<script>alert(1)</script>\n```",
    "    ```\n<script>alert(1)</script>",
    "<!-- a comment --><div onclick=alert(1)>x</div>",
]


def rendered(markdown: str) -> tuple[str, list[str]]:
    """The HTML a raw-HTML previewer makes of `markdown`, and every link target in it."""
    parser = MarkdownIt("commonmark", {"html": True})
    tokens = parser.parse(markdown)
    targets = [
        str(child.attrs.get("href") or child.attrs.get("src"))
        for token in tokens
        for child in token.children or []
        if child.type in ("link_open", "image")
    ]
    return parser.render(markdown), targets


def assert_inert(markdown: str) -> None:
    page, targets = rendered(markdown)
    for tag in ("<script", "<base", "<img src=x", "<div", "<!--"):
        assert tag not in page, (markdown, page)
    for target in targets:
        scheme = re.match(r"[a-z][a-z0-9+.-]*:", target.strip().lower())
        assert scheme is None or scheme.group() in ("http:", "https:", "mailto:"), target


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_markdown_is_inert(text: str) -> None:
    assert_inert(inert(text))


@pytest.mark.parametrize(
    "text",
    [
        "According to `a.md`:\n\n> quoted **bold**\n\n- one\n- two",
        "See [the guide](https://example.org/guide) and [local](guide.md#timeouts).",
        "Mail [us](mailto:docs@example.org). Code: `x < y`",
        "```python\nif a < b:\n    print('<b>')\n```",
        "Source: a.md:1-3 (Timeouts)",
    ],
)
def test_ordinary_markdown_keeps_its_links_and_code(text: str) -> None:
    kept = inert(text)
    if "<" not in text:
        assert kept == text
    _, targets = rendered(kept)
    assert targets == rendered(text)[1]


def test_a_code_span_holds_any_backticks() -> None:
    for text in ["a", "a`b", "``x``", "`", "<script>`</script>"]:
        page, _ = rendered(code_span(text))
        assert page.count("<code>") == 1 and "<script" not in page


def test_the_markdown_export_of_a_hostile_run_is_inert(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\n<script>alert('doc')</script>\n")
    script = tmp_path / "script.json"
    call = {"name": "read_doc", "arguments": {"path": "a.md`<script>x</script>`"}}
    hostile = "\n\n".join(HOSTILE)
    script.write_text(
        json.dumps([{"content": hostile, "tool_calls": [call]}, {"content": hostile}])
    )
    trace = tmp_path / "run.jsonl"
    question = "<base href='https://evil.example/'> what?"
    model = f"script:{script}"
    args = ["ask", question, "--docs", str(docs), "--model", model, "--trace", str(trace)]
    assert CliRunner().invoke(app, args).exit_code == 0
    assert_inert(export_trace(read_trace(trace), "markdown"))
