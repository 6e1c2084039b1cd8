"""Readers fed the shapes that once made them quadratic: each comes back at once, right.

Every input here took from seconds to minutes before its reader was made linear (the
figures are in each test); `tests/bench/test_bench_hostile.py` checks the same readers by
doubling their input; `make test` checks what they return and asserts no time.
"""

from __future__ import annotations

import gzip

import pytest

from agent.events import ToolCallFinished
from agent.readers.asciidoc import asciidoc_titles
from agent.readers.html import html_lines
from agent.readers.unzip import gunzip
from agent.search.examples import as_question
from agent.search.query import query_terms
from agent.search.rank import changelog_weight
from agent.search.sections import split_sections
from agent.tools.arguments import parse_arguments
from agent.tools.citations import lines_read, quotes
from agent.tools.schema import ArgumentError
from tests.hostile_support import finishes


def test_an_unterminated_string_of_escaped_quotes_is_one_quick_error() -> None:
    # 16,000 characters took 20 s; these 64,000 would have taken minutes.
    raw = '{"query": "' + '\\"' * 32_000

    def read() -> str:
        with pytest.raises(ArgumentError) as caught:
            parse_arguments(raw)
        return str(caught.value)

    assert finishes(read).startswith("the arguments are not valid JSON (Unterminated string")


def test_escaped_quotes_do_not_hide_brackets_or_numbers_from_the_limits() -> None:
    with pytest.raises(ArgumentError, match="nested more than 32 levels"):
        parse_arguments('{"a": "\\"", "b": ' + "[" * 40 + "]" * 40 + "}")
    with pytest.raises(ArgumentError, match="more than 100 digits"):
        parse_arguments('{"a": "\\\\", "b": ' + "9" * 101 + "}")
    assert parse_arguments('{"a": "[[[ \\" 9999 ]", "b": 2}') == {"a": '[[[ " 9999 ]', "b": 2}


@pytest.mark.parametrize(
    ("heading", "title"),
    [
        ("# a" + " " * 40_000 + "b", "a b"),  # 140 s for one offline ask
        ("# a " + "{#" * 40_000, "a " + "{#" * 40_000),  # killed after 240 s
        ("# a " + "{#" * 40_000 + "x}", "a"),  # the last `{#` opens the id
        ("## a" + " " * 40_000 + "# x", "a # x"),
        ("# Install {#install}", "Install"),
        ("### Replay ###", "Replay"),
    ],
    ids=["spaces", "ids", "an id", "hashes", "plain id", "closing hashes"],
)
def test_a_heading_of_many_spaces_or_ids_is_read_at_once(heading: str, title: str) -> None:
    lines = [heading, "", "text"]
    sections = finishes(lambda: split_sections(lines, "markdown"))
    assert sections[0].title == title


def test_the_example_picker_reads_a_heading_of_open_parentheses_at_once() -> None:
    # 40,000 ` (` took 14 s on the start screen.
    assert finishes(lambda: as_question("Set the limit" + " (" * 100_000)) is None
    assert as_question("Set the step limit (--max-steps)") == "How do I set the step limit?"


PAGE_TAIL = "<p>The end.</p>"
HOSTILE_PAGES = {  # each 35-66 s for one ask, at a tenth of these sizes
    "unclosed script": "<script>x " * 20_000,
    "unclosed pre": "<pre>x " * 20_000,
    "unclosed quoted attribute": "<span 'x " * 20_000,
    "nested unknown tags": "<foo>x " * 20_000,
    "nested font": "<font>x " * 20_000,
    "unclosed header links": '<h2>x <a class="headerlink" href="#x">¶ ' * 10_000,
    "unclosed comments": "<!-- x" * 20_000,
    "tags that never end": "<a" * 20_000,
}


@pytest.mark.parametrize("name", HOSTILE_PAGES)
def test_a_malformed_page_is_read_at_once(name: str) -> None:
    lines = finishes(lambda: html_lines("<h1>Top</h1><p>Before.</p>" + HOSTILE_PAGES[name]))
    assert lines[:3] == ["# Top", "", "Before."]


def test_what_follows_a_closed_construct_is_still_read() -> None:
    page = (
        "<h1>T<a class='headerlink' href='#t'>¶</a></h1><script>if (a<b) {}</script>"
        "<!-- <p>hidden</p> --><pre>x <b>&lt;y&gt;</b><br>z</pre><p>A <span 'q'>b</span>.</p>"
    )
    assert html_lines(page) == ["# T", "", "```", "x <y>", "z", "```", "", "A b."]


def test_tens_of_thousands_of_empty_gzip_members_unzip_at_once() -> None:
    data = gzip.compress(b"") * 160_000 + gzip.compress(b"# Title\n")
    assert finishes(lambda: gunzip(data)) == b"# Title\n"


def test_a_long_word_in_search_results_is_scanned_at_once() -> None:
    # A 60,000-character word in a heading: the scan for cited ranges took 171 s.
    output = "guide.md:1-3 " + "w" * 200_000 + " api.md:4-5"
    found = ToolCallFinished(
        step=1, tool_call_id="c", name="search_docs", output=output, error=False, duration_s=0.0
    )
    shown = finishes(lambda: lines_read([found]))
    assert shown == {"guide.md": [(1, 3)], "api.md": [(4, 5)]}


def test_a_heading_of_thirty_digits_is_weighed_at_once() -> None:
    # `(?:\d+\.?)*` tried every split of the digits: 24 took 4 s, 30 would take hours.
    weight = finishes(lambda: changelog_weight("notes.md", ["1" * 40 + "x"], ["install"]))
    assert weight == 1.0
    assert changelog_weight("notes.md", ["E.18. Release 15.1"], ["install"]) < 1.0


def test_a_question_of_many_dots_is_read_at_once() -> None:
    # A run of 10,000 dots took 3.7 s to cut into sentences.
    terms = finishes(lambda: query_terms("." * 200_000 + "x how do I set the timeout?"))
    assert "timeout" in terms


def test_an_asciidoc_title_of_many_spaces_is_read_at_once() -> None:
    lines = ["[[top]]", "= Guide", "", "== a" + " " * 40_000 + "b ==", "", "text"]
    titles = finishes(lambda: asciidoc_titles(lines))
    assert [t.text for t in titles] == ["Guide", "a" + " " * 40_000 + "b"]


def test_an_answer_of_open_quotation_marks_is_read_at_once() -> None:
    assert finishes(lambda: quotes("“" * 200_000)) == []
    assert quotes("It says “the timeout is five seconds” there.") == ["the timeout is five seconds"]
