from __future__ import annotations

from pathlib import Path

import pytest

from agent.events import Event, RunFinished
from agent.loop import Agent
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.tools.citations import Citation, find_citations, lines_read, quotes
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
    assert lines_read(events) == {"advanced/long.md": set(range(1, 21))}


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
