from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.export import EXPORT_FORMATS, export_trace
from agent.loop import Agent
from agent.messages import Message
from agent.served import ServedTools
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.tools.docs import DocsContext, docs_registry
from agent.trace import read_trace
from tui.cli import app

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
KEY = "sk-test-secret-key-0123456789"


def test_markdown_has_the_question_steps_answer_citations_and_totals() -> None:
    text = export_trace(read_trace(FIXTURES / "answered.jsonl"), "markdown")
    lines = text.splitlines()
    assert lines[0] == "# What is the default timeout?"
    assert "## Step 1" in lines and "## Answer" in lines and "## Totals" in lines
    assert any(line.startswith("**read_doc** `{") for line in lines)
    assert "- advanced/timeouts.md:3 (read in the run)" in lines
    assert lines[-1].startswith("answered after ")


def test_long_results_are_folded_in_markdown_and_html() -> None:
    trace = read_trace(FIXTURES / "answered.jsonl")
    assert "<details><summary>" in export_trace(trace, "markdown")
    page = export_trace(trace, "html")
    assert "<details><summary>" in page  # folded (closed) for a long result
    assert "<script" not in page and "http" not in page.split("<body>")[0]


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.seen: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self.seen.add(tag)
        if tag not in {"meta", "br", "link", "hr"}:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, (tag, self.stack)
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_is_one_well_formed_self_contained_page() -> None:
    page = export_trace(read_trace(FIXTURES / "answered.jsonl"), "html")
    parser = _Tags()
    parser.feed(page)
    assert parser.stack == []
    assert {"html", "style", "details", "summary", "pre", "h1"} <= parser.seen
    assert not ({"script", "link", "img", "iframe"} & parser.seen)
    assert "What is the default timeout?" in "".join(parser.text)
    assert "tokens so far" in page


ANSWER = """According to `a.md` (A):

> The answer is **42**.
> * one <script>alert(1)</script>
>
> ```python
> x = 42
> ```

Source: a.md:1-3"""


def test_html_shows_the_answer_rendered_and_markdown_keeps_its_source(tmp_path: Path) -> None:
    page = export_trace(read_trace(FIXTURES / "answered.jsonl"), "html")
    assert "<p>The default timeout is <strong>5 seconds</strong> (advanced" in page
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nThe answer is 42.\n")
    script = tmp_path / "script.json"
    call = {"name": "read_doc", "arguments": {"path": "a.md"}}
    turns = [{"content": "Let me **read** `a.md` <b>first</b>.", "tool_calls": [call]}]
    script.write_text(json.dumps([*turns, {"content": ANSWER}]))
    trace = tmp_path / "run.jsonl"
    args = ["ask", "q", "--docs", str(docs), "--model", f"script:{script}", "--trace", str(trace)]
    assert CliRunner().invoke(app, args).exit_code == 0
    page = export_trace(read_trace(trace), "html")
    answer = page[
        page.index("<div class=answer>") : page.index("</div>", page.index("<div class=answer>"))
    ]
    assert answer.splitlines()[1:] == [
        "<p>According to <code>a.md</code> (A):</p>",
        "<blockquote>",
        "<p>The answer is <strong>42</strong>.</p>",
        "<ul>",
        "<li>one &lt;script&gt;alert(1)&lt;/script&gt;</li>",
        "</ul>",
        '<pre><code class="language-python">x = 42',
        "</code></pre>",
        "</blockquote>",
        "<p>Source: a.md:1-3</p>",
    ]
    assert (
        "<p>Let me <strong>read</strong> <code>a.md</code> &lt;b&gt;first&lt;/b&gt;.</p>" in page
    )  # the step's own text is rendered too, and escaped
    parser = _Tags()
    parser.feed(page)
    assert parser.stack == [] and "script" not in parser.seen
    markdown = export_trace(read_trace(trace), "markdown")  # raw HTML as text: `<` is `&lt;`
    assert f"## Answer\n\n{ANSWER.replace('<', '&lt;')}\n" in markdown


def test_openai_format_is_the_messages_as_sent() -> None:
    data = json.loads(export_trace(read_trace(FIXTURES / "answered.jsonl"), "openai"))
    assert data["model"] == "scripted"
    assert [t["function"]["name"] for t in data["tools"]][:3] == [
        "list_docs",
        "grep_docs",
        "read_doc",
    ]
    roles = [m["role"] for m in data["messages"]]
    assert roles[:2] == ["system", "user"] and roles[-1] == "assistant"
    calls = [c["id"] for m in data["messages"] for c in m.get("tool_calls", [])]
    answered = [m["tool_call_id"] for m in data["messages"] if m["role"] == "tool"]
    assert calls == answered  # one tool message per call id, in order


@pytest.mark.parametrize("fmt", EXPORT_FORMATS)
def test_an_interrupted_trace_exports_and_says_so(fmt: str) -> None:
    text = export_trace(read_trace(FIXTURES / "interrupted.jsonl"), fmt)  # type: ignore[arg-type]
    if fmt != "openai":
        assert "interrupted (the trace ends before the run did)" in text
    else:
        assert json.loads(text)["messages"]


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_a_served_session_exports_without_token_figures(
    fmt: str, ctx: DocsContext, tmp_path: Path
) -> None:
    served = ServedTools(docs_registry(), [ctx], trace_dir=tmp_path, docs="docs", clock=float)
    served.call("list_docs", {})
    served.close("the client closed the session", stop_reason="ended")
    text = export_trace(read_trace(served.path), fmt)  # type: ignore[arg-type]
    assert "session ended after 1 step · 1 tool call · 0.0 s" in text
    assert "token" not in text


@pytest.mark.parametrize("fmt", EXPORT_FORMATS)
def test_the_key_is_in_no_export(fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nThe answer is 42.\n")
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"tool_calls": [{"name": "read_doc", "arguments": {"path": "a.md"}}]},
                {"content": "42 (a.md:3)"},
            ]
        )
    )
    monkeypatch.setenv("LLM_API_KEY", KEY)
    trace = tmp_path / "run.jsonl"
    args = ["ask", "q", "--docs", str(docs), "--model", f"script:{script}", "--trace", str(trace)]
    assert CliRunner().invoke(app, args).exit_code == 0
    out = tmp_path / f"export.{fmt}"
    result = CliRunner().invoke(app, ["export", str(trace), "--format", fmt, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert KEY not in out.read_text() and "42 (a.md:3)" in out.read_text()


def test_export_command_errors_are_one_line() -> None:
    bad = CliRunner().invoke(app, ["export", str(FIXTURES / "answered.jsonl"), "-f", "pdf"])
    assert bad.exit_code == 2
    assert bad.stderr == "docsagent: unknown format 'pdf': use markdown, html, openai\n"
    missing = CliRunner().invoke(app, ["export", "/nonexistent.jsonl"])
    assert missing.exit_code == 2 and missing.stderr.startswith("docsagent: no trace file")


def test_export_keeps_an_existing_file_unless_forced_and_never_replaces_its_trace(
    tmp_path: Path,
) -> None:
    trace = tmp_path / "run.jsonl"
    trace.write_bytes((FIXTURES / "answered.jsonl").read_bytes())
    out = tmp_path / "run.md"
    out.write_text("my notes\n")
    kept = CliRunner().invoke(app, ["export", str(trace), "-o", str(out)])
    assert kept.exit_code == 2 and out.read_text() == "my notes\n"
    assert kept.stderr == f"docsagent: {out} already exists; pass --force to replace it\n"
    forced = CliRunner().invoke(app, ["export", str(trace), "-o", str(out), "--force"])
    assert forced.exit_code == 0 and out.read_text().startswith("#")
    before = trace.read_bytes()
    itself = CliRunner().invoke(app, ["export", str(trace), "-o", str(trace), "--force"])
    assert itself.exit_code == 2 and "is the trace being exported" in itself.stderr
    assert trace.read_bytes() == before


@pytest.mark.parametrize(
    "turns, outcome",
    [
        (
            [reply(None, call("list_docs")), reply("The docs do not cover bread.")],
            "declined (the answer cites none of the docs) after 2 steps",
        ),
        (
            [reply("Use fetch() (guide.md:1).")],
            "answered without reading the docs (the model called no tool) after 1 step",
        ),
    ],
)
def test_an_export_names_a_decline_and_an_answer_that_read_nothing(
    ctx: DocsContext, tmp_path: Path, turns: list[Message], outcome: str
) -> None:
    agent = Agent(ScriptedModel(turns), docs_registry(), context=[ctx])
    session = Session(agent, trace_dir=tmp_path)
    list(session.ask("q"))
    assert session.last_trace is not None
    trace = read_trace(session.last_trace)
    assert export_trace(trace, "markdown").splitlines()[-1].startswith(outcome)
    assert outcome in export_trace(trace, "html")


def test_an_answer_with_a_huge_table_draws_its_first_rows_and_shows_the_rest_as_text(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nRows.\n")
    rows = "".join(f"| r{n} | <b>{n}</b> |\n" for n in range(100_000))
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"content": f"See a.md:1-3.\n\n| k | v |\n|---|---|\n{rows}"}]))
    trace = tmp_path / "run.jsonl"
    args = ["ask", "q", "--docs", str(docs), "--model", f"script:{script}", "--trace", str(trace)]
    assert CliRunner().invoke(app, args).exit_code == 0
    page = export_trace(read_trace(trace), "html")
    assert page.count("<tr>") == 1999  # 2,000 lines with `|`: header, delimiter, 1,998 rows
    assert "<td>r1997</td>" in page and "<td>r1998</td>" not in page
    assert (
        '<p class="note">A table of more than 2,000 rows: from here on the text is shown as '
        "written.</p>\n<pre>| r1998 | &lt;b&gt;1998&lt;/b&gt; |\n"
    ) in page
    assert "| r99999 | &lt;b&gt;99999&lt;/b&gt; |" in page
    parser = _Tags()
    parser.feed(page)
    assert parser.stack == [] and "script" not in parser.seen
