"""A served tool's result within its token budget: bounded, paged, saying how to read on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent import ServedTools, ToolCallStarted, docs_registry, open_docs, read_trace
from agent.budget import Budget
from agent.config import Config
from agent.served import BOUNDS


@pytest.fixture
def many(tmp_path: Path) -> Iterator[ServedTools]:
    """A server over 3,000 docs, whose list_docs is about 120,000 characters."""
    folder = tmp_path / "docs"
    for n in range(30):
        sub = folder / f"part{n:02}"
        sub.mkdir(parents=True)
        for m in range(100):
            (sub / f"page{m:03}.md").write_text(f"# Page {n}.{m}\n\nText about widget {m}.\n")
    docs = open_docs(Config(docs=folder, cache_dir=None))
    served = ServedTools(docs_registry(), [docs], trace_dir=tmp_path / "traces", docs=str(folder))
    yield served
    served.close("done")


def test_a_long_list_comes_in_pages_that_say_how_to_read_on(many: ServedTools) -> None:
    first = many.call("list_docs", {})
    assert not first.error and len(first.output) <= 2_000 * 4
    note = first.output.splitlines()[-1]
    assert note.startswith("[page 1 of ") and "lines 1-" in note
    assert "call list_docs again with the same arguments and page=2 for more" in note
    pages = int(note.split(" of ")[1].split(":")[0])
    listed = [line for line in first.output.splitlines()[:-1]]
    for page in range(2, pages + 1):
        more = many.call("list_docs", {"page": page})
        assert not more.error and len(more.output) <= 2_000 * 4
        listed += more.output.splitlines()[:-1]
    assert more.output.splitlines()[-1].endswith("the last page]")
    docs = [line.split("  ")[0] for line in listed]
    assert len(docs) == 3_000 and len(set(docs)) == 3_000  # every doc once, none cut in two
    past = many.call("list_docs", {"page": pages + 1})
    assert past.error and f"this result has {pages} pages" in past.output


def test_max_tokens_sets_the_page_size_within_bounds(many: ServedTools) -> None:
    small = many.call("list_docs", {"max_tokens": 100})
    assert not small.error and len(small.output) <= 400
    for wrong in (99, 8_001, "lots", True):
        refused = many.call("list_docs", {"max_tokens": wrong})
        assert refused.error
        assert refused.output.startswith("error: max_tokens must be a whole number from 100")
    short = many.call("read_doc", {"path": "part00/page000.md", "max_tokens": 100})
    assert short.output.startswith("part00/page000.md lines 1-3 of 3")
    assert "[page" not in short.output


def test_limit_is_bounded_in_the_schema_and_held_to(many: ServedTools) -> None:
    (search,) = (t for t in many.schemas() if t["name"] == "search_docs")
    limit = search["schema"]["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"]) == BOUNDS["search_docs"]["limit"] == (1, 10)
    assert search["schema"]["properties"]["max_tokens"]["maximum"] == 8_000
    for schema in many.schemas():
        assert {"max_tokens", "page"} <= set(schema["schema"]["properties"])
        assert "max_tokens" not in schema["schema"].get("required", [])
    refused = many.call("search_docs", {"query": "widget", "limit": 50})
    assert refused.error and refused.output == "error: limit 50 is out of bounds: give 1 to 10"
    assert not many.call("search_docs", {"query": "widget", "limit": 10}).error


def test_the_trace_keeps_the_whole_result_and_the_tools_own_arguments(many: ServedTools) -> None:
    many.call("list_docs", {"page": 2, "max_tokens": 500})
    many.close("done")
    trace = read_trace(many.path)
    (started,) = (e for e in trace.events if isinstance(e, ToolCallStarted))
    assert json.loads(started.arguments) == {}  # what rerun runs again
    (finished,) = (e for e in trace.events if e.kind == "tool_end")
    assert len(finished.output) > 100_000  # type: ignore[attr-defined]


def test_pages_are_cut_at_line_breaks_and_a_long_line_is_cut_hard() -> None:
    text = "\n".join(f"line {n}" for n in range(1, 2_001))
    page = Budget(100, 1).cut(text, name="grep_docs")
    body = page.splitlines()[:-1]
    assert body[0] == "line 1" and all(line.startswith("line ") for line in body)
    one_line = "x" * 10_000
    assert Budget(100, 1).cut(one_line, name="read_doc").startswith("x" * 80)
    assert "[page 1 of " in Budget(100, 1).cut(one_line, name="read_doc")
