from __future__ import annotations

from agent.readers.asciidoc import asciidoc_titles, is_asciidoc


def test_asciidoc_is_known_by_its_own_marks() -> None:
    assert is_asciidoc(["[[an-anchor]]", "== Title"])
    assert is_asciidoc(["include::other.txt[]"])
    assert is_asciidoc(["[source,python]", "----", "x = 1", "----"])
    assert is_asciidoc(["== Usage", "", "----", "$ one", "$ two", "----"])  # two lines of code
    assert is_asciidoc(["Usage", "-----", "", "-" * 24, "$ ls", "-" * 24])


def test_rst_and_plain_text_are_not_asciidoc() -> None:
    assert not is_asciidoc(["=====", "Title", "=====", "", "Text."])  # an overlined title
    assert not is_asciidoc(["Title", "-----", "", "Text.", "", "----", "", "More."])
    assert not is_asciidoc(["=" * 78, "*10.1* Record", "", "text", "=" * 78])  # Vim's help
    assert not is_asciidoc(["Some [example given by someone]", "= value is set"])


def test_titles_by_level_and_none_inside_blocks_or_mid_paragraph() -> None:
    lines = [
        "= Manual",
        "",
        "Intro.",
        "== Not a title: mid paragraph",
        "",
        "== Part",
        "",
        "----",
        "== in code",
        "----",
        "",
        "Setup",
        "~~~~~",
        "",
        "Long underline",
        "--------------------------------",
    ]
    titles = [(t.text, t.level, t.start, t.end) for t in asciidoc_titles(lines)]
    assert titles == [("Manual", 1, 1, 1), ("Part", 2, 6, 6), ("Setup", 3, 12, 13)]


def test_an_unclosed_delimiter_hides_nothing_after_it() -> None:
    lines = ["", "----", "text", "", "== Later"]
    assert [t.text for t in asciidoc_titles(lines)] == ["Later"]


def test_plain_text_with_titles_between_rules_is_not_asciidoc() -> None:
    rule = "-" * 72  # Valgrind's FAQ.txt; the SIL font licence frames its title the same way
    lines = ["Valgrind FAQ", "", rule, "1. Background", rule, "", "Text.", ""]
    lines += [rule, "2. Compiling", rule, "", "More text."]
    assert not is_asciidoc(lines)  # read as AsciiDoc, every title would be a listing
    assert is_asciidoc(["== Usage", "", rule, "$ valgrind ls", rule])


def test_a_huge_line_of_brackets_after_a_directive_is_not_a_directive() -> None:
    line = "include::" + "[" * 200_000  # hostile: no closing bracket (its time: the bench)
    assert not is_asciidoc(["", line, "", "Text."])
    assert is_asciidoc(["ifdef::backend-html5[]"]) and is_asciidoc(["include::a.txt[lines=1..5]"])
