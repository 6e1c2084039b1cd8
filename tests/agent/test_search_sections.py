from __future__ import annotations

from agent.search.sections import MAX_LINES, Section, first_heading, split_sections


def ranges(text: str, style: str = "markdown") -> list[tuple[int, int, tuple[str, ...]]]:
    sections = split_sections(text.split("\n"), style)  # type: ignore[arg-type]
    return [(s.start, s.end, s.headings) for s in sections]


MARKDOWN = """\
Intro before any heading.

# Guide

Welcome.

## Timeouts

Five seconds.

```python
# not a heading: a comment in code
x = 1
```

### Pool timeout

Waiting for a connection.

## Proxies
Use a proxy.
"""


def test_markdown_atx_sections_with_their_trails() -> None:
    assert ranges(MARKDOWN) == [
        (1, 1, ()),
        (3, 5, ("Guide",)),
        (7, 14, ("Guide", "Timeouts")),
        (16, 18, ("Guide", "Timeouts", "Pool timeout")),
        (20, 21, ("Guide", "Proxies")),
    ]


SETEXT = """\
Guide
=====

Welcome.

Timeouts
--------

Five seconds.

- a list item
---

Not a heading after a blank line:

---
"""


def test_markdown_setext_headings_but_not_rules_or_list_items() -> None:
    assert ranges(SETEXT) == [
        (1, 4, ("Guide",)),
        (6, 16, ("Guide", "Timeouts")),
    ]


def test_markdown_front_matter_closing_hashes_and_ids() -> None:
    text = "---\ntitle: Page\n---\n\n## Setup ##\n\ntext\n\n## Run {#run}\n#hashtag is text\n"
    assert ranges(text) == [(1, 3, ()), (5, 7, ("Setup",)), (9, 10, ("Run",))]


RST = """\
.. _label:

=======
 Guide
=======

Intro.

Install
=======

Use pip::

    Not a title
    ===========

Options
-------

Text.

Advanced
========

Last.
"""


def test_rst_titles_ranked_by_the_order_their_styles_appear() -> None:
    assert ranges(RST, "rst") == [
        (1, 1, ()),
        (3, 7, ("Guide",)),
        (9, 15, ("Guide", "Install")),
        (17, 20, ("Guide", "Install", "Options")),
        (22, 25, ("Guide", "Advanced")),
    ]


def test_rst_short_underlines_follow_docutils() -> None:
    assert ranges("A long title\n---\n\ntext\n", "rst") == [(1, 4, ())]
    assert ranges("A long title\n----\n\ntext\n", "rst") == [(1, 4, ("A long title",))]
    assert ranges("Go\n==\n\ntext\n", "rst") == [(1, 4, ("Go",))]


def test_plain_text_titles_under_a_rule_line() -> None:
    text = (
        "*usr_10.txt*  Making big changes\n\n"
        + "=" * 78
        + "\n*10.1*  Record and playback\n\ntext\n\n"
        + "=" * 78
        + "\n*10.2*  Substitution\n\nmore\n"
    )
    assert ranges(text, "text") == [
        (1, 1, ()),
        (3, 6, ("*10.1* Record and playback",)),
        (8, 11, ("*10.2* Substitution",)),
    ]
    assert ranges("# not a heading in text\nline\n", "text") == [(1, 2, ())]


def test_long_sections_are_cut_at_blank_lines_into_readable_parts() -> None:
    body = []
    for n in range(1, 41):
        body += [f"paragraph {n} line one", f"paragraph {n} line two", ""]
    lines = ["# Big", "", *body]
    sections = split_sections(lines, "markdown")
    assert all(s.end - s.start + 1 <= MAX_LINES for s in sections)
    assert all(s.headings == ("Big",) for s in sections)
    assert sections[0].heading_lines == (1,) and sections[1].heading_lines == ()
    assert sections[0].start == 1 and sections[-1].end == len(lines) - 1
    for before, after in zip(sections, sections[1:], strict=False):
        assert not lines[before.end].strip()  # each cut falls on a blank line
        assert after.start == before.end + 2
        assert lines[after.start - 1].startswith("paragraph")


def test_one_huge_line_is_a_part_of_its_own() -> None:
    lines = ["# Wide", "x" * 5000, "y", "z"]
    assert [(s.start, s.end) for s in split_sections(lines, "markdown")] == [(1, 1), (2, 2), (3, 4)]


def test_empty_docs_and_titles() -> None:
    assert split_sections(["", "  "], "markdown") == []
    assert first_heading(["Title", "=====", "", "text"], "rst") == "Title"
    assert first_heading(["no heading"], "markdown") == ""
    assert Section(1, 2, ("A", "B")).title == "B"


def test_a_long_section_is_cut_into_parts_alike_in_size_not_full_ones_and_a_scrap() -> None:
    body = []
    for n in range(1, 22):
        body += [f"paragraph {n} line one", f"paragraph {n} line two", ""]
    lines = ["# Big", "", *body[:-1]]  # 64 lines: one too many for a single part
    sizes = [s.end - s.start + 1 for s in split_sections(lines, "markdown")]
    assert len(sizes) == 2 and min(sizes) >= 25  # not 59 lines and a 2-line tail


ASCIIDOC = """\
git-thing(1)
============

NAME
----
git-thing - Do a thing

[[examples]]
== Examples

Undo the last commit:

------------------------------------------------
$ git reset --soft HEAD^
------------------------------------------------

=== Keeping changes
Several lines of a listing:

....
$ git stash
$ git thing
....
"""


def test_asciidoc_titles_in_plain_text_and_no_title_inside_a_listing() -> None:
    assert ranges(ASCIIDOC, "text") == [
        (1, 2, ("git-thing(1)",)),
        (4, 8, ("git-thing(1)", "NAME")),  # the anchor line goes with the text above it
        (9, 15, ("git-thing(1)", "Examples")),
        (17, 23, ("git-thing(1)", "Examples", "Keeping changes")),
    ]


def test_rst_overlined_titles_in_plain_text_are_not_read_as_asciidoc() -> None:
    text = "*****\nTitle\n*****\n\nText.\n\n-------\nSection\n-------\n\nMore.\n"
    assert ranges(text, "text") == [(1, 5, ("Title",)), (7, 11, ("Title", "Section"))]


class _Reads(list[str]):
    """Lines that count how often they are read by index."""

    reads = 0

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        self.reads += 1
        return super().__getitem__(index)


def test_a_huge_section_is_cut_in_time_linear_in_its_lines() -> None:
    lines = _Reads(["# Log", ""] + ["" if n % 3 == 2 else "a line of text" for n in range(20_000)])
    sections = split_sections(lines, "markdown")
    assert len(sections) > 300 and all(s.end - s.start < MAX_LINES for s in sections)
    assert lines.reads < 20 * len(lines)  # not every line again for each of 300 parts


def test_a_part_does_not_open_in_the_middle_of_a_code_block() -> None:
    code = ["```python", "def first():", "    pass", "", "def second():", "    pass", "```"]
    before = [f"prose line {n}" for n in range(1, 25)]
    after = [f"more prose {n}" for n in range(1, 27)]
    lines = ["# Hooks", "", *before, "", *code, "", *after]  # the even share ends in the code
    sections = split_sections(lines, "markdown")
    assert len(sections) == 2
    assert lines[sections[1].start - 1] in ("```python", "more prose 1")  # not "def second():"
    assert lines[sections[0].end] == "" and sections[1].end == len(lines)
