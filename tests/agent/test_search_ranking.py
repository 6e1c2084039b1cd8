"""The ranking rules beyond plain BM25, each on a small corpus the test writes."""

from __future__ import annotations

from pathlib import Path

from agent.models.policy import judge
from agent.models.weighing import weigh
from agent.search import DocsIndex
from agent.search.query import (
    ASKED_WEIGHT,
    MAX_TERMS,
    acronyms,
    alternatives,
    match_expression,
    query_terms,
    term_weights,
)
from agent.search.rank import changelog_weight, page, title_share, without_twins
from agent.tools.corpus import Corpus


def index_of(root: Path, files: dict[str, str]) -> DocsIndex:
    for rel, text in files.items():
        (root / rel).write_text(text)
    return DocsIndex(Corpus.open(root))


def test_words_of_the_question_count_more_than_the_context_before_it() -> None:
    text = "My scraper hangs on slow servers. What kinds of timeouts are there?"
    weights = term_weights(text)
    assert weights["timeouts"] == weights["kinds"] == ASKED_WEIGHT
    assert weights["scraper"] == weights["servers"] == 1


def test_one_sentence_or_no_question_mark_counts_every_word_once() -> None:
    assert set(term_weights("What kinds of timeouts are there?").values()) == {1}
    assert set(term_weights("Slow servers. Timeouts. Pools.").values()) == {1}
    assert set(term_weights("timeouts in main.c? or v1.2?").values()) == {1}


def test_a_long_context_never_crowds_the_question_out_of_the_terms_searched() -> None:
    context = " ".join(f"word{n}" for n in range(MAX_TERMS + 8)) + "."
    terms = query_terms(f"{context} How do I set a proxy?")
    assert len(terms) == MAX_TERMS and terms[-2:] == ["set", "proxy"]
    assert terms[: MAX_TERMS - 2] == [f"word{n}" for n in range(MAX_TERMS - 2)]
    assert term_weights(f"{context} How do I set a proxy?")["proxy"] == ASKED_WEIGHT
    assert query_terms(context)[-1] == f"word{MAX_TERMS - 1}"  # no question: the first ones


def test_a_weighted_term_is_repeated_in_the_match_expression() -> None:
    assert match_expression(["pool", "slow"], {"pool": 2}) == '"pool" OR "pool" OR "slow"'
    assert match_expression(["pool", "pool"]) == '"pool"'


def test_the_question_outranks_the_context_in_the_search(tmp_path: Path) -> None:
    index = index_of(
        tmp_path,
        {
            "servers.md": "# Notes\n\nEvery server is listed here.\n",
            "timeouts.md": "# Limits\n\nEvery timeout is listed here.\n",
        },
    )
    hits = index.search("My servers are slow. Which timeouts are there?")
    assert [h.path for h in hits] == ["timeouts.md", "servers.md"]
    hits = index.search("My timeouts are short. Which servers are there?")
    assert [h.path for h in hits] == ["servers.md", "timeouts.md"]


OTHERS = {
    f"other{n}.md": f"# Other {n}\n\nSomething else entirely, number {n}.\n" for n in range(8)
}
"""Docs that hold none of the query words, so that those words are rare."""


def test_a_heading_made_of_the_query_words_moves_its_section_up(tmp_path: Path) -> None:
    index = index_of(
        tmp_path,
        {
            **OTHERS,
            "guide.md": "# Notes\n\nPass the toolchain file; the toolchain file names the "
            "compiler.\n",
            "toolchain.md": "# TOOLCHAIN_FILE\n\nThe path of the toolchain file to use, read on "
            "the first run to set up the compilers and their flags for this build.\n",
        },
    )
    hits = index.search("toolchain file")
    assert [h.path for h in hits] == ["toolchain.md", "guide.md"]
    assert hits[0].score > hits[1].score  # BM25 alone puts guide.md first: the words twice


def test_release_notes_count_half_unless_the_query_asks_about_releases(tmp_path: Path) -> None:
    (tmp_path / "guide").mkdir()
    index = index_of(
        tmp_path,
        {
            "CHANGES.md": "# Changes\n\n## 2.1\n\n- Fixed: a warning message was an error.\n",
            "guide/build.md": "# Building\n\nPass `-W` to turn every warning message into an "
            "error, so that the build stops at the first one. Use it in CI, where a new "
            "warning should not go unseen, and leave it off while you write.\n",
        },
    )
    weights = {h.path: h.score for h in index.search("warning message error")}
    assert list(weights) == ["guide/build.md", "CHANGES.md"]
    assert weights["CHANGES.md"] * 2 > weights["guide/build.md"]  # BM25 alone: the changelog
    assert index.search("warning message error changed")[0].path == "CHANGES.md"


def test_release_notes_are_known_by_their_file_or_top_heading() -> None:
    for path in [
        "CHANGES.md",
        "docs/changelog.rst",
        "release/3.12.rst",
        "version8.txt",
        "whatsnew/3.11.rst",
        "about/release-notes.html",
        "HISTORY.txt",
        "NEWS",
    ]:
        assert changelog_weight(path, (), ["build"]) == 0.5, path
    assert changelog_weight("index.html", ("Changelog", "Release 7.1"), ["build"]) == 0.5
    assert changelog_weight("index.html", ("Release Notes",), ["build"]) == 0.5
    for path in ["guide/build.md", "changing-things.md", "newsletter.md", "versioning.md"]:
        assert changelog_weight(path, ("Guide",), ["build"]) == 1.0, path
    assert changelog_weight("CHANGES.md", (), ["version", "build"]) == 1.0
    for word in ["released", "deprecation", "upgraded"]:  # other forms of the words
        assert changelog_weight("CHANGES.md", (), [word, "build"]) == 1.0, word


def test_release_notes_named_with_their_release_number_are_known_too() -> None:
    for path in [
        "release-15.html",  # PostgreSQL's manual: one page per release
        "release-15-1.html",
        "docs/release-notes-1.2.md",
        "CHANGELOG-2.x.md",
        "changes_v3.rst",
        "NEWS-2020",
    ]:
        assert changelog_weight(path, (), ["build"]) == 0.5, path
    for top in ["E.18. Release 15.1", "Release 2.0", "1.2. Changes", "What\u2019s New"]:
        assert changelog_weight("ch05.html", (top,), ["build"]) == 0.5, top
    for path in ["release-process.html", "release-1-checklist.md", "news-feed.md", "history2x.md"]:
        assert changelog_weight(path, ("Guide",), ["build"]) == 1.0, path
    for top in ["2. A Brief History of PostgreSQL", "Release Process", "A Changelog Tool"]:
        assert changelog_weight("guide.html", (top,), ["build"]) == 1.0, top


def test_release_notes_called_a_release_history_or_a_change_log_are_known_too() -> None:
    # Requests' manual: community/updates.html, whose top heading is "Release History"
    for top in ["Release History", "Version History", "Change Log"]:
        assert changelog_weight("community/updates.html", (top, "2.4.0"), ["build"]) == 0.5, top
    for path in ["release-history.md", "docs/release_history.rst", "CHANGE_LOG.md"]:
        assert changelog_weight(path, (), ["build"]) == 0.5, path
    for path in ["history-of-releasing.md", "change-logging.md", "version-history-api.md"]:
        assert changelog_weight(path, ("Guide",), ["build"]) == 1.0, path


def test_a_heading_share_counts_its_words_plus_one() -> None:
    assert (
        title_share(
            ("Guide", "TOOLCHAIN_FILE"), ["toolchain", "file"], 7, {"toolchain": {7}, "file": {7}}
        )
        == 2 / 3
    )
    assert title_share(("Timeouts",), ["timeouts", "types"], 7, {"timeouts": {7}}) == 1 / 2
    assert title_share(("The 2. timeouts",), ["timeouts"], 7, {"timeouts": {7}}) == 1 / 2
    assert title_share(("Timeouts",), ["timeouts"], 8, {"timeouts": {7}}) == 0
    assert title_share((), ["timeouts"], 7, {"timeouts": {7}}) == 0


def test_c_plus_plus_is_searched_as_the_cxx_that_build_docs_write() -> None:
    assert query_terms("set C++ standard") == ["set", "cxx", "standard"]
    assert query_terms("c++17 features") == ["cxx", "17", "features"]
    assert query_terms("libc++ headers") == ["libc", "headers"]  # a name of its own
    assert query_terms('What is "C++ standard"?') == ["cxx standard"]  # no stray stopwords


def test_c_plus_plus_finds_the_cxx_page_and_declines_nothing_without_one(tmp_path: Path) -> None:
    (tmp_path / "CXX_STANDARD.rst").write_text("CXX_STANDARD\n============\n\nThe standard.\n")
    (tmp_path / "LANG.rst").write_text("LANG\n====\n\nEach language has a standard.\n")
    hits = DocsIndex(Corpus.open(tmp_path)).search("set C++ standard")
    assert hits[0].path == "CXX_STANDARD.rst"
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "build.md").write_text("# Standards\n\nC++ code follows the 2017 standard.\n")
    index = DocsIndex(Corpus.open(plain))
    terms = weigh("Which C++ standard is used?", index)
    assert judge(terms, index.search(" ".join(t.text for t in terms))).hits


def test_a_quoted_phrase_with_c_plus_plus_finds_either_spelling(tmp_path: Path) -> None:
    prose = "# Language\n\nPick the C++ standard you need.\n"
    build = "# Build\n\nSet CMAKE_CXX_STANDARD to 17.\n"
    index = index_of(tmp_path, {"prose.md": prose, "build.md": build, **OTHERS})
    assert {h.path for h in index.search('"C++ standard"')} == {"prose.md", "build.md"}
    plain = tmp_path / "plain"
    plain.mkdir()
    index = index_of(plain, {"prose.md": prose, **OTHERS})  # the docs never write CXX
    assert [h.path for h in index.search('"C++ standard"')] == ["prose.md"]
    assert judge(weigh('Which "C++ standard" is it?', index), index.search('"C++ standard"')).hits


def test_an_everyday_word_also_finds_the_word_the_docs_write(tmp_path: Path) -> None:
    index = index_of(
        tmp_path,
        {
            "limits.md": "# Limits\n\nThere are four types of limit: size, time, count, depth.\n",
            "cli.md": "# Command line\n\nThe key has no option on the command line.\n",
            "other.md": "# Other\n\nA limit, of a kind, on the keys.\n",
        },
    )
    kinds = index.search("kinds of limits")
    assert [h.path for h in kinds][:2] == ["limits.md", "other.md"]
    assert kinds[0].matched_terms == ("kinds", "limits")  # held, though written "types"
    assert index.term_counts(["flag"]) == {"flag": 1}
    assert index.search("key flag")[0].path == "cli.md"
    assert "**types**" in kinds[0].snippet


def test_a_synonym_group_counts_once_however_the_word_is_inflected() -> None:
    assert match_expression(["kinds"]) == '("kinds" OR "type")'
    assert match_expression(["option"]) == '("option" OR "flag")'
    assert match_expression(["timeouts"]) == '"timeouts"'


def test_a_section_writing_both_words_of_a_pair_is_not_counted_twice(tmp_path: Path) -> None:
    index = index_of(
        tmp_path,
        {
            "both.md": "# Paths\n\nA folder or directory holds the files.\n",
            "one.md": "# Paths\n\nA folder of folders holds the files.\n",
            "traces.md": "# Trace folder\n\nTraces go to the trace folder.\n",
            **{f"f{n}.md": f"# Page {n}\n\nThe docs folder {n}.\n" for n in range(6)},
        },
    )
    assert index.search("trace folder")[0].path == "traces.md"
    scores = {h.path: h.score for h in index.search("folder", limit=10)}
    assert scores["both.md"] < 1.2 * scores["one.md"]  # counted twice, it would be ~2x


def test_plural_words_find_their_pair_too() -> None:
    assert match_expression(["directories"]) == '("directories" OR "folder")'
    assert match_expression(["searches"]) == '("searches" OR "find")'


def test_a_snippet_marks_no_match_inside_a_link_target(tmp_path: Path) -> None:
    index = index_of(tmp_path, {"a.md": "# A\n\nSee [timeouts](guide.md#timeouts) first.\n"})
    assert index.search("timeouts")[0].snippet == "See [**timeouts**](guide.md#timeouts) first."


def test_a_snippet_marks_no_match_inside_a_titled_link_or_an_angle_bracket_target(
    tmp_path: Path,
) -> None:
    index = index_of(
        tmp_path,
        {
            "a.md": '# A\n\nSee [timeouts](guide.md#timeouts "Timeouts") or <https://x.org/timeouts>.\n',
            "b.rst": "B\n=\n\nSee `timeouts <https://x.org/timeouts>`_, Pool<Timeouts>.\n",
        },
    )
    snippets = sorted(h.snippet for h in index.search("timeouts"))
    assert snippets == [
        "B = See `**timeouts** <https://x.org/timeouts>`_, Pool<**Timeouts**>.",
        'See [**timeouts**](guide.md#timeouts "Timeouts") or <https://x.org/timeouts>.',
    ]


def test_a_page_kept_as_html_and_as_its_source_is_found_once(tmp_path: Path) -> None:
    page = "Stash your changes with `git stash`, untracked files too with `-u`."
    index = index_of(
        tmp_path,
        {
            "git-stash.html": f"<html><body><h1>git-stash</h1><p>{page}</p></body></html>",
            "git-stash.txt": f"git-stash(1)\n============\n\n{page}\n",
            "git-add.txt": "git-add(1)\n==========\n\nAdd files; `git stash` keeps the rest.\n",
        },
    )
    paths = [h.path for h in index.search("stash untracked files")]
    assert len(paths) == 2 and "git-add.txt" in paths
    assert {"git-stash.html", "git-stash.txt"} & set(paths)  # one of the twins, not both


def test_a_page_is_its_path_without_doc_suffixes() -> None:
    assert page("howto/git-reset.html") == page("howto/git-reset.txt") == "howto/git-reset"
    assert page("library/csv.rst.txt") == page("library/csv.html.gz") == "library/csv"
    assert page("v1.2/notes") == "v1.2/notes" and page("README") == "README"
    assert without_twins(["a.html", "a.txt", "b.md", "a.html", "b.rst"]) == [0, 2, 3]


def test_an_acronym_a_section_holds_only_as_the_stemmers_plural_is_not_matched(
    tmp_path: Path,
) -> None:
    index = index_of(
        tmp_path,
        {
            "endings.md": "# Line endings\n\nBinary files keep their LF endings.\n",
            "lfs.md": "# Storage\n\nSome tools store binary files elsewhere (LFS).\n",
        },
    )
    held = {h.path: h.matched_terms for h in index.search("binary files LFS")}
    assert "lfs" in held["lfs.md"] and "lfs" not in held["endings.md"]
    assert (
        "lfs" in {h.path: h.matched_terms for h in index.search("binary files lfs")}["endings.md"]
    )  # written in lower case, it is an ordinary word, stemmed as ever
    assert index.written_counts(["lfs", "lf"]) == {"lfs": 1, "lf": 2}  # "LF", and "LFS"


def test_words_of_quantity_and_whenever_are_not_searched() -> None:
    terms = query_terms("Log every query that runs longer than a couple of seconds")
    assert "couple" not in terms and {"log", "query", "seconds"} <= set(terms)
    assert query_terms("fail the build whenever several warnings appear") == [
        "fail",
        "build",
        "warnings",
        "appear",
    ]


def test_a_past_tense_the_stemmer_leaves_apart_finds_the_participle_the_docs_write(
    tmp_path: Path,
) -> None:
    index = index_of(
        tmp_path,
        {
            "log.md": "# Log formats\n\n`%D` is the time taken to serve the request.\n",
            "other.md": "# Requests\n\nA request is served once.\n",
            **{f"page{n}.md": f"# Page {n}\n\nNothing to see.\n" for n in range(6)},
        },
    )
    hits = index.search("how long each request took")
    assert hits[0].path == "log.md" and "took" in hits[0].matched_terms
    assert alternatives("took") == ["take", "taken"] and alternatives("given") == []


def test_an_acronym_held_only_as_the_stemmers_plural_adds_nothing_to_the_score(
    tmp_path: Path,
) -> None:
    index = index_of(
        tmp_path,
        {
            "endings.md": "# Line endings\n\nGit turns CRLF into LF: LF endings, LF only.\n",
            "lfs.md": "# Storage\n\nLFS keeps large files out of the repository's history.\n",
            **{f"page{n}.md": f"# Page {n}\n\nGit, and nothing else.\n" for n in range(3)},
        },
    )
    hits = index.search("Git LFS")
    assert hits[0].path == "lfs.md"  # not the page that says "LF" most, and "Git"
    assert {h.path: h.matched_terms for h in hits}["endings.md"] == ("git",)
    assert [h.path for h in index.search("LFS")] == ["lfs.md"]


def test_a_question_written_all_in_capitals_is_searched_as_if_it_were_not(
    tmp_path: Path,
) -> None:
    index = index_of(
        tmp_path,
        {
            "timeout.md": "# Client timeout\n\nSet a timeout on the client.\n",
            "pool.md": "# Pool\n\nThe pool holds connections.\n",
        },
    )
    shouted, asked = index.search("HOW DO I SET TIMEOUTS?"), index.search("How do I set timeouts?")
    assert [(h.path, h.matched_terms) for h in shouted] == [("timeout.md", ("set", "timeouts"))]
    assert shouted == asked  # no word stands out as an acronym when every word is in capitals
    assert acronyms("HOW DO I USE GIT LFS?") == set() and acronyms("GIT LFS") == {"git", "lfs"}


def test_a_section_repeated_word_for_word_on_another_page_is_found_once(tmp_path: Path) -> None:
    text = "# busy_timeout\n\nSet a busy handler that sleeps while a table is locked.\n"
    index = index_of(
        tmp_path,
        {
            "busy_timeout.md": text,
            "capi3ref.md": "# C API\n\nEvery function.\n\n" + text.replace("# ", "## "),
            "locking.md": "# Locking\n\nA table is locked while a writer works.\n",
        },
    )
    paths = [h.path for h in index.search("busy handler table locked")]
    assert len(paths) == 2 and "locking.md" in paths
