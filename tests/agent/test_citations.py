from __future__ import annotations

from pathlib import Path

import pytest

from agent.events import Event, RunFinished
from agent.loop import Agent
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.tools.citations import (
    Citation,
    citation_spans,
    covers,
    find_citations,
    lines_read,
    merged,
    quotes,
)
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
from agent.trace import read_trace


def run(ctx: DocsContext, *turns: object) -> list[Event]:
    agent = Agent(ScriptedModel(list(turns)), docs_registry(), context=[ctx])  # type: ignore[arg-type]
    return list(agent.run("q"))


def test_a_citation_of_read_and_quoted_lines_is_read_and_quoted(ctx: DocsContext) -> None:
    answer = 'They "time out after five seconds by default" (guide.md:7).'
    events = run(ctx, reply(None, call("read_doc", {"path": "guide.md"})), reply(answer))
    assert find_citations(answer, ctx.corpus, events) == [
        Citation("guide.md", 7, 7, valid=True, read=True, quoted=True)
    ]


def test_a_citation_of_lines_never_read_is_not_read(ctx: DocsContext) -> None:
    answer = "See advanced/long.md:150-160 and guide.md:7-8."
    events = run(
        ctx,
        reply(None, call("read_doc", {"path": "advanced/long.md", "start": 1, "end": 20})),
        reply(None, call("grep_docs", {"keyword": "timeout"})),  # grep shows lines, not a read
        reply(answer),
    )
    found = find_citations(answer, ctx.corpus, events)
    assert [(c.path, c.valid, c.read) for c in found] == [
        ("advanced/long.md", True, False),
        ("guide.md", True, False),
    ]


def test_a_citation_partly_outside_what_was_read_is_not_read(ctx: DocsContext) -> None:
    answer = "advanced/long.md:15-25"
    events = run(
        ctx,
        reply(None, call("read_doc", {"path": "advanced/long.md", "start": 1, "end": 20})),
        reply(answer),
    )
    assert find_citations(answer, ctx.corpus, events)[0].read is False
    assert lines_read(events) == {"advanced/long.md": [(1, 20)]}


def test_a_quote_that_is_not_at_the_cited_lines_is_not_quoted(ctx: DocsContext) -> None:
    answer = "> Requests time out after five seconds by default.\n\nSource: guide.md:1-3"
    events = run(ctx, reply(None, call("read_doc", {"path": "guide.md"})), reply(answer))
    (citation,) = find_citations(answer, ctx.corpus, events)
    assert (citation.valid, citation.read, citation.quoted) == (True, True, False)


def test_quotes_are_block_quotes_and_quoted_or_backticked_text_of_some_length() -> None:
    answer = '> First  quoted line here\nSay "hello there, world" or `x` or `set timeout=None`.'
    assert quotes(answer) == ["first quoted line here", "hello there, world", "set timeout=none"]


def test_the_check_works_from_a_saved_trace(ctx: DocsContext, tmp_path: Path) -> None:
    answer = 'They "time out after five seconds by default" (guide.md:7).'
    model = ScriptedModel([reply(None, call("read_doc", {"path": "guide.md"})), reply(answer)])
    session = Session(Agent(model, docs_registry(), context=[ctx]), trace_dir=tmp_path)
    events = list(session.ask("q"))
    assert isinstance(events[-1], RunFinished)
    assert session.last_trace is not None
    saved = read_trace(session.last_trace).events
    assert find_citations(answer, ctx.corpus, saved) == find_citations(answer, ctx.corpus, events)
    assert find_citations(answer, ctx.corpus, saved)[0].read is True


@pytest.mark.parametrize("corpus", [None])
def test_without_docs_nothing_is_valid_or_quoted(corpus: Corpus | None) -> None:
    (citation,) = find_citations('"time out after five seconds" (guide.md:7)', corpus)
    assert (citation.valid, citation.read, citation.quoted) == (False, False, False)


def labels(answer: str) -> list[str]:
    return [c.label for c in find_citations(answer, None)]


def test_citations_in_code_blocks_inline_code_and_block_quotes_are_not_citations() -> None:
    answer = "\n".join(
        [
            "Use `docsagent rerun` (see guide.md:7-8).",
            "",
            "> It prints `citation advanced/timeouts.md:3 CHANGED`, and",
            "> index.rst:5: WARNING lines quoted.md:9 too.",
            "",
            "```text",
            "fenced.md:1-3",
            "```",
            "",
            "    indented.md:4",
            "",
            "Not `inline.md:5`, nor ``a ` b.md:6``; but `x` then kept.md:10 is.",
            "- a list item cites listed.md:2-3",
            "",
            "| doc | lines |",
            "|---|---|",
            "| table.md:4 | `code.md:1` |",
            "",
            "Source: guide.md:1-3",
        ]
    )
    assert labels(answer) == [
        "guide.md:7-8",
        "kept.md:10",
        "listed.md:2-3",
        "table.md:4",
        "guide.md:1-3",
    ]


def test_a_quote_nested_in_a_list_or_a_lazy_quote_line_is_still_a_quote() -> None:
    answer = "- the docs say:\n  > see nested.md:3\n\n> first line\nlazy.md:4 continues it\n"
    assert labels(answer) == []


def test_citation_spans_name_only_prose_citations_where_they_stand() -> None:
    answer = "> q.md:1\n\nSee a.md:2 and `b.md:3`."
    assert citation_spans(answer) == [(14, 20, "a.md:2")]
    assert answer[14:20] == "a.md:2"


def test_an_absurd_range_is_compared_as_an_interval_not_counted_out(ctx: DocsContext) -> None:
    huge = "9" * 4000
    answer = f"See guide.md:1-30000000, guide.md:1-1000000000 and guide.md:1-{huge}."
    events = run(ctx, reply(None, call("read_doc", {"path": "guide.md"})), reply(answer))
    found = find_citations(answer, ctx.corpus, events)
    assert [(c.valid, c.read) for c in found] == [(False, False)] * 3
    assert found[0].label == "guide.md:1-30000000"


def test_lines_read_are_intervals_joined_where_they_touch() -> None:
    assert merged([(5, 9), (1, 3), (4, 4), (20, 10**12)]) == [(1, 9), (20, 10**12)]
    assert covers([(1, 9), (20, 10**12)], 20, 10**11)
    assert not covers([(1, 9), (20, 10**12)], 8, 20)
