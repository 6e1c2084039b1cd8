"""Which questions the offline model declines, on small docs folders the tests write: an
everyday word the best section lacks, a word found nowhere, a generic closing question,
and what the answer says about the words the docs lack."""

from __future__ import annotations

from pathlib import Path

from agent.models.policy import judge
from agent.models.quoting import cut_short, quote_range
from agent.models.weighing import Term, weigh
from agent.search import DocsIndex, Hit
from agent.tools.corpus import Corpus
from tests.agent.test_offline import converse

FILLER = "# Part {n}\n\nThe widget turns the spindle in part {n}.\n\nIt is made of steel.\n"


def write(folder: Path, pages: dict[str, str]) -> Path:
    """A docs folder of ten filler pages and `pages`."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(10):
        (folder / f"part{n}.md").write_text(FILLER.format(n=n))
    for name, text in pages.items():
        (folder / name).write_text(text)
    return folder


GEARS = """\
# Gears

## Sprocket noise

A sprocket rattles when its chain is loose. Tighten the chain with the tensioner bolt
until the sprocket runs quietly.

## Chain wear

Replace a worn chain before it damages the sprocket teeth.
"""


def test_an_everyday_word_the_best_section_lacks_does_not_decline(tmp_path: Path) -> None:
    """The word "stop" is in four sections, each using it once in passing: plain English,
    not what the question is about, so the section about the rest of the question answers."""
    docs = write(
        tmp_path / "docs",
        {
            "gears.md": GEARS,
            "intro.md": "# Intro\n\nRead the parts in order and stop at the end.\n",
            "safety.md": "# Safety\n\nAlways stop the motor first.\n\nWear gloves.\n",
            "tools.md": "# Tools\n\nA wrench will do. Stop when the bolt is snug.\n",
            "care.md": "# Care\n\nOil the parts; stop before they drip.\n\nWipe them.\n",
        },
    )
    index = DocsIndex(Corpus.open(docs))
    terms = {t.text: t for t in weigh("How do I stop a sprocket rattling?", index)}
    assert terms["stop"].sections == 4 and terms["stop"].everyday
    assert not terms["sprocket"].everyday  # in a heading, and said again and again
    answer, _ = converse(docs, "How do I stop a sprocket rattling?")
    assert answer.startswith("According to `gears.md` (Gears > Sprocket noise):")


def test_a_word_used_in_one_section_is_no_everyday_word_and_still_declines(
    tmp_path: Path,
) -> None:
    """One mention in passing says too little of how the docs use a word (`PASSING_MIN`):
    a question about it, answered only by sections about its other words, is declined."""
    docs = write(
        tmp_path / "docs",
        {"gears.md": GEARS, "shop.md": "# Shop\n\nWe also sell a derailleur.\n"},
    )
    index = DocsIndex(Corpus.open(docs))
    terms = {t.text: t for t in weigh("fit a derailleur on the sprocket chain", index)}
    assert terms["derailleur"].sections == 1 and not terms["derailleur"].everyday
    gears = Hit("gears.md", 3, 6, ("Gears",), 9.0, "", ("sprocket", "chain"))
    verdict = judge(list(terms.values()), [gears])
    assert verdict.reason == 'no section that matches the question holds "derailleur"'


def test_a_word_found_nowhere_weighs_toward_declining(tmp_path: Path) -> None:
    """Three words: a common one, the rarest the docs use, one they never use. The absent
    one weighs twice the rarest, so it carries more than half the question."""
    docs = write(tmp_path / "docs", {"gears.md": GEARS})
    index = DocsIndex(Corpus.open(docs))
    terms = weigh("widget tensioner troff", index)
    weights = {t.text: t.weight for t in terms}
    assert weights["troff"] == 2 * weights["tensioner"]
    hits = index.search("widget tensioner troff")
    assert judge(terms, hits).reason == 'the docs never mention "troff"'
    answer, _ = converse(docs, "widget tensioner troff")
    assert answer.startswith("The docs don't seem to cover this")


def test_a_generic_closing_question_is_searched_by_what_the_situation_says(
    tmp_path: Path,
) -> None:
    """The question "What am I missing?" holds only a word the docs use in passing: the
    words weigh by rarity over all its sentences, so the upload page answers, not CI's."""
    docs = write(
        tmp_path / "docs",
        {
            "uploads.md": "# Uploads\n\n## Upload size\n\nLarge uploads are refused unless "
            "you raise the upload limit with `max_upload_size`.\n",
            "ci.md": "# Continuous integration\n\nThe build fails when a step is missing.\n",
            **{
                f"note{n}.md": f"# Note {n}\n\nNothing is missing from kit {n}.\n" for n in range(3)
            },
        },
    )
    question = "My app blows up when I upload a big file. What am I missing?"
    answer, _ = converse(docs, question)
    assert answer.startswith("According to `uploads.md`")
    assert "The docs never mention" not in answer  # "blows" is the situation's word


def test_the_docs_never_mention_names_only_the_question_words_they_lack(tmp_path: Path) -> None:
    docs = write(tmp_path / "docs", {"gears.md": GEARS})
    question = "Our 12 bikes rattle on frosty mornings. How do I tighten the sprocket chain?"
    answer, _ = converse(docs, question)
    assert answer.startswith("According to `gears.md`")
    assert "never mention" not in answer  # not "12, bikes, frosty, mornings"


def test_a_quote_ending_on_a_colon_carries_the_block_that_follows() -> None:
    """The example after "as follows:" is quoted, short paragraphs before the best one
    giving way to it; without room for it, the quote says it stops short (`cut_short`)."""
    lines = [f"Filler {n}." if n % 2 == 0 else "" for n in range(22)]
    lines[10] = "The tensioner holds the chain."
    lines[20] = "Set the tensioner as follows:"
    lines += ["```", *(f"chain.step({n})" for n in range(16)), "```"]  # lines 22 to 39
    first, last = quote_range(lines, 0, [Term("tensioner", 1, 1.0)])
    assert (first, last) == (10, 39)
    lines[22:22] = ["# another line"] * 3  # the example no longer fits beside the best
    first, last = quote_range(lines, 0, [Term("tensioner", 1, 1.0)])
    assert lines[last].endswith(":") and cut_short(lines, last)


def test_a_quote_cut_on_a_colon_says_so() -> None:
    lines = ["Set it as follows:", "", "```", "code", "```"]
    assert cut_short(lines, 0)
    assert not cut_short(lines, 4)
    assert cut_short(["one", "two"], 0)  # inside a paragraph
    assert not cut_short(["one", "", ""], 0)
