from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agent.readers.lines import normalize_breaks
from agent.tools.corpus import Corpus
from agent.tools.doccache import searchable
from agent.tools.docs import DocsContext, docs_registry
from agent.tools.textscan import (
    count_lines,
    count_lines_from,
    first_heading,
    fold,
    fold_fully,
    hit_lines,
    line_count,
    line_pattern,
    lines_at,
    rarest,
)


def lines_holding(text: bytes, needle: bytes) -> list[int]:
    """The plain way: split, then look in every line."""
    return [n for n, line in enumerate(text.split(b"\n"), start=1) if needle in line]


@pytest.mark.parametrize("chunk, mark_from", [(1, 1), (7, 1), (64, 1 << 16), (1 << 20, 1)])
def test_counting_and_locating_agree_with_looking_at_every_line(chunk: int, mark_from: int) -> None:
    rng = random.Random(chunk)
    # "eqt": the needle's rarest byte anywhere in it, so the regex starts mid-needle
    alphabets = [b"ab\n", b"aab\n\n", b"a\n", bytes(range(32)) + b"ab", b"eqt\n", b"eeq\n"]
    for _ in range(400):
        alphabet = rng.choice(alphabets)
        text = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        letters = alphabet.replace(b"\n", b"")
        needle = bytes(rng.choice(letters) for _ in range(rng.randint(1, 4)))
        expected = lines_holding(text, needle)
        counted = count_lines(text, needle, chunk=chunk, mark_from=mark_from)
        assert counted == len(expected), (text, needle)
        if expected:  # as a search counts a doc of common size, from its first match
            findall = line_pattern(needle, rarest(needle, text)).findall
            found = count_lines_from(text, needle, text.find(needle), findall)
            assert found == len(expected), (text, needle)
        assert hit_lines(text, needle, 5) == expected[:5], (text, needle)


def test_line_breaks_become_newlines_and_lines_are_an_editors() -> None:
    text = "a\r\nb\rc\x0bd\x0ce\x1cf\x85g\u2028h\u2029i\n\nj"
    normal = normalize_breaks(text)
    assert normal == "a\nb\nc\x0bd\x0ce\x1cf\x85g\u2028h\u2029i\n\nj"  # as vim numbers them
    assert line_count(normal) == 5
    for sample in ["", "\n", "a", "a\n", "a\n\n", "\n\na"]:
        assert line_count(sample) == len(sample.splitlines())
        assert line_count(sample.encode()) == len(sample.splitlines())
    numbers = [1, 3, 5, 6]
    assert lines_at(normal, numbers) == {1: "a", 3: "c\x0bd\x0ce\x1cf\x85g\u2028h\u2029i", 5: "j"}


def test_lines_far_into_a_long_text_are_found_by_counting_ahead() -> None:
    text = "".join(f"line {n}\n" for n in range(1, 300_001))
    assert lines_at(text, [2, 150_000, 300_000, 300_001]) == {
        2: "line 2",
        150_000: "line 150000",
        300_000: "line 300000",
    }


def test_folding_lowers_what_str_lower_lowers() -> None:
    for text in ["Plain ASCII", "Café Noir", "KELVIN \u212a", "İstanbul", "ΣΊΣΥΦΟΣ"]:
        folded, full = fold(text)
        if full:
            assert folded == text.lower().encode()
        else:  # ASCII letters only: the same bytes wherever an ASCII keyword can match
            assert fold_fully(folded) == text.lower().encode()
            assert folded.decode().encode("ascii", "replace") == (
                text.lower().encode("ascii", "replace")
            )


def test_folding_utf8_bytes_as_they_stand_is_folding_their_text() -> None:
    for text in ["Plain ASCII", "Café Noir", "KELVIN \u212a", "İstanbul", "ΣΊΣΥΦΟΣ", ""]:
        doc = searchable(text.encode(), "a.md", (0, 0, 0, 0, 0), "a.md")
        assert doc is not None and (doc.folded, doc.full) == fold(text)


def test_the_rarest_byte_of_a_keyword_is_counted_in_the_docs_not_taken_from_english() -> None:
    assert rarest(b"the", b"the cat sat on the mat") == 1  # h: twice, t: six times
    assert rarest(b"zqe", b"zz qq zq qz e") == 2  # in English z and q would be the rarest
    assert rarest(b"aab", b"") == 0  # nothing to count: the first byte


def test_a_heading_counts_as_the_title_only_near_the_top() -> None:
    assert first_heading("# Title\ntext", 40) == "# Title"
    assert first_heading("text\n## Later\n# Last", 40) == "## Later"
    assert first_heading("\n" * 40 + "# Too far", 40) is None
    assert first_heading("\n" * 39 + "# Just in", 40) == "# Just in"
    assert first_heading("no heading", 40) is None


@pytest.mark.parametrize(
    "keyword, hit",
    [
        ("CAFÉ", "notes.md:1: Café au lait"),
        ("k", "notes.md:2: 5 \u212a is cold"),  # the Kelvin sign lowers to an ASCII k
        ("i̇stanbul", "notes.md:3: İstanbul"),
    ],
)
def test_grep_is_case_insensitive_beyond_ascii(tmp_path: Path, keyword: str, hit: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("Café au lait\n5 \u212a is cold\nİstanbul\n")
    ctx = DocsContext(Corpus.open(docs))
    outcome = docs_registry().call("grep_docs", f'{{"keyword": "{keyword}"}}', [ctx])
    assert (outcome.output, outcome.error) == (hit, False)


def test_a_keyword_beyond_ascii_finds_capitals_in_a_doc_searched_before_for_ascii(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("Straße\nÜBER alles\n")
    ctx = DocsContext(Corpus.open(docs))
    registry = docs_registry()
    for keyword in ["alles", "über", "alles"]:  # cached with ASCII letters lowered, then all
        outcome = registry.call("grep_docs", f'{{"keyword": "{keyword}"}}', [ctx])
        assert (outcome.output, outcome.error) == ("notes.md:2: ÜBER alles", False)


def test_grep_reads_a_doc_with_invalid_utf8_as_read_doc_does(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bad.md").write_bytes(b"# Caf\xe9\nBad \xff byte\nTimeout here\n")
    ctx = DocsContext(Corpus.open(docs))
    registry = docs_registry()
    for keyword, hit in [
        ("timeout", "bad.md:3: Timeout here"),
        ("\ufffd", "bad.md:1: # Caf\ufffd"),
    ]:
        outcome = registry.call("grep_docs", f'{{"keyword": "{keyword}", "path": "bad.md"}}', [ctx])
        assert outcome.output.split("\n")[0] == hit
    assert registry.call("list_docs", "{}", [ctx]).output == "bad.md  (3 lines)  Caf\ufffd"


def test_list_docs_shows_a_title_changed_since_it_last_listed(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Old title\ntext\n")
    ctx = DocsContext(Corpus.open(docs))
    registry = docs_registry()
    assert registry.call("list_docs", "{}", [ctx]).output == "a.md  (2 lines)  Old title"
    (docs / "a.md").write_text("# New title\n\nmore text\n")
    assert registry.call("list_docs", "{}", [ctx]).output == "a.md  (3 lines)  New title"


def test_grep_and_read_doc_number_lines_alike_whatever_the_line_breaks(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "crlf.md").write_bytes(b"# Title\r\none\r\ntwo\rthree\x0cfour\r\n")
    ctx = DocsContext(Corpus.open(docs))
    registry = docs_registry()
    grep = registry.call("grep_docs", '{"keyword": "four"}', [ctx]).output
    assert grep == "crlf.md:4: three\x0cfour"  # a form feed breaks no line, as in an editor
    assert registry.call("read_doc", '{"path": "crlf.md"}', [ctx]).output == (
        "crlf.md lines 1-4 of 4\n   1| # Title\n   2| one\n   3| two\n   4| three\x0cfour"
    )
    assert registry.call("list_docs", "{}", [ctx]).output == "crlf.md  (4 lines)  Title"


def test_docs_with_bytes_not_utf8_are_searched_as_their_text_whatever_came_first(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_bytes(b"Caf\xc3\xa9 \xff au lait\nCAF\xc3\x89 noir\n")
    (docs / "b.md").write_bytes(b"5 \xe2\x84\xaa \xfe cold\n")  # the Kelvin sign, then not UTF-8
    ctx = DocsContext(Corpus.open(docs))
    registry = docs_registry()
    expected = {
        "lait": ["a.md:1: Café \ufffd au lait"],
        "café": ["a.md:1: Café \ufffd au lait", "a.md:2: CAFÉ noir"],
        "\ufffd": ["a.md:1: Café \ufffd au lait", "b.md:1: 5 \u212a \ufffd cold"],
        "k": ["b.md:1: 5 \u212a \ufffd cold"],
    }
    for keyword in ["lait", "café", "\ufffd", "k", "lait", "\ufffd"]:  # ASCII first, then not
        outcome = registry.call("grep_docs", json.dumps({"keyword": keyword}), [ctx])
        assert outcome.output.split("\n") == expected[keyword], keyword
