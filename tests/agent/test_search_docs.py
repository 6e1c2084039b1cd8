from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.config import Config, build_agent, open_docs
from agent.events import ToolCallFinished
from agent.loop import SYSTEM_PROMPT
from agent.testing import ScriptedModel, call, reply
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
from agent.tools.search import MAX_LIMIT


def search(ctx: DocsContext, **arguments: object) -> tuple[str, bool]:
    outcome = docs_registry().call("search_docs", json.dumps(arguments), [ctx])
    return outcome.output, outcome.error


def test_search_docs_shows_ranked_sections_with_trails_and_snippets(ctx: DocsContext) -> None:
    assert search(ctx, query="Where is the intro to request timeouts?") == (
        "2 best sections for intro, request, timeouts:\n"
        "1. guide.md:5-8  Guide > Timeouts  (matches request, timeouts; not intro)\n"
        "   Requests time out after five seconds by default. Set `timeout=None` to wait "
        "forever.\n"
        "2. guide.md:1-3  Guide  (matches intro; not request or timeouts)\n"
        "   Intro line.\n"
        "Read a section with read_doc before citing it; grep_docs finds exact strings.",
        False,
    )


def test_search_docs_says_which_words_no_doc_holds(ctx: DocsContext) -> None:
    output, error = search(ctx, query="timeouts in kubernetes", limit=1)
    assert not error
    assert output.splitlines()[0] == "1 best section for timeouts, kubernetes:"
    assert output.splitlines()[1] == "1. guide.md:5-8  Guide > Timeouts"
    assert output.splitlines()[-2] == "(no doc mentions kubernetes)"


def test_search_docs_says_which_words_also_find_their_pair(ctx: DocsContext) -> None:
    output, error = search(ctx, query="kinds of timeouts", limit=1)
    assert not error
    assert output.splitlines()[-2] == "(kinds also finds type)"
    plain, _ = search(ctx, query="timeouts", limit=1)
    assert "also finds" not in plain


def test_search_docs_says_a_quoted_c_plus_plus_also_finds_the_c_the_docs_write(
    tmp_path: Path,
) -> None:
    (tmp_path / "build.md").write_text("# Build\n\nAny C++ compiler will do.\n")
    output, _ = search(DocsContext(Corpus.open(tmp_path)), query='"C++ compiler"')
    assert output.splitlines()[1] == "1. build.md:1-3  Build"
    assert output.splitlines()[-2] == '("cxx compiler" also finds "c compiler")'


def test_search_docs_counts_the_question_above_the_context_around_it(tmp_path: Path) -> None:
    (tmp_path / "servers.md").write_text("# Notes\n\nEvery server is listed here.\n")
    (tmp_path / "timeouts.md").write_text("# Limits\n\nEvery timeout is listed here.\n")
    ctx = DocsContext(Corpus.open(tmp_path))
    for query, first in [
        ("My servers are slow. Which timeouts are there?", "timeouts.md"),
        ("My timeouts are short. Which servers are there?", "servers.md"),
    ]:
        output, _ = search(ctx, query=query)
        assert output.splitlines()[1].startswith(f"1. {first}:"), output


def test_no_match_says_what_was_searched_and_what_to_try(ctx: DocsContext) -> None:
    assert search(ctx, query='kubernetes "helm chart"') == (
        'no section of the docs mentions "helm chart" or kubernetes. Try other words (a '
        "synonym, a broader or a more specific term), grep_docs for an exact string, or "
        "list_docs to see the files.",
        False,
    )


@pytest.mark.parametrize(
    "query", ['" OR *', "NEAR(timeout, 2)", "timeout AND NOT intro", "title:timeout", "(((", "'"]
)
def test_fts_syntax_in_a_query_is_searched_as_words(ctx: DocsContext, query: str) -> None:
    output, error = search(ctx, query=query)
    assert not output.startswith("error: search_docs failed")
    assert error == (query in {"(((", "'"})  # no words at all


def test_bad_queries_and_limits_are_observations(ctx: DocsContext) -> None:
    assert search(ctx, query="?!") == (
        "error: no words to search for in '?!'; give a few key words, "
        'e.g. search_docs(query="pool timeout")',
        True,
    )
    assert search(ctx, query="timeout", limit=0) == (
        f"error: limit 0 is below 1; ask for 1 to {MAX_LIMIT} sections",
        True,
    )


def test_limit_is_capped(docs: Path) -> None:
    for n in range(15):
        (docs / f"page{n}.md").write_text(f"# Page {n}\n\ntimeout {n}\n")
    output, _ = search(DocsContext(Corpus.open(docs)), query="timeout", limit=50)
    assert output.splitlines()[0] == f"{MAX_LIMIT} best sections for timeout:"
    assert len(output) < 3000


def test_every_agent_offers_search_docs_first_and_the_prompt_says_so(
    docs: Path, tmp_path: Path
) -> None:
    config = Config(docs=docs, model="script:x", cache_dir=tmp_path / "cache")
    model = ScriptedModel([reply(None, call("search_docs", {"query": "timeouts"})), reply("done")])
    agent = build_agent(config, model=model)
    events = list(agent.run("what are the timeouts?"))
    assert agent.tools.names == ["search_docs", "list_docs", "grep_docs", "read_doc"]
    outputs = [e.output for e in events if isinstance(e, ToolCallFinished)]
    assert outputs[0].startswith("1 best section for timeouts:\n1. guide.md:5-8")
    assert "search_docs first" in SYSTEM_PROMPT  # the other tools' descriptions say their use
    assert "path:start-end" in SYSTEM_PROMPT and "say so plainly" in SYSTEM_PROMPT
    assert list((tmp_path / "cache").glob("docs-*.sqlite"))  # the config's cache folder


def test_open_docs_builds_a_lazy_index_in_the_cache_folder(docs: Path, tmp_path: Path) -> None:
    opened = open_docs(Config(docs=docs, cache_dir=tmp_path / "cache"))
    assert opened.index is not None and not (tmp_path / "cache").exists()  # nothing opened yet
    assert opened.index.prepare().docs == 2
    assert (tmp_path / "cache").is_dir()


def test_the_manual_shows_what_search_docs_really_prints() -> None:
    manual = Path(__file__).resolve().parents[2] / "data" / "manual"
    page = (manual / "formats-and-search.md").read_text()
    shown = page.split('Asked "How do I cancel a running\nquestion?" over this manual')[1]
    example = shown.split("```\n")[1]
    output, _ = search(
        DocsContext(Corpus.open(manual)), query="How do I cancel a running question?", limit=2
    )
    assert output + "\n" == example


def test_a_search_counts_words_anew_once_another_process_updated_the_index(
    tmp_path: Path,
) -> None:
    docs, cache = tmp_path / "docs", tmp_path / "cache"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nTimeouts are five seconds.\n")
    first = open_docs(Config(docs=docs, cache_dir=cache))
    output, _ = search(first, query="timeouts zebra")
    assert output.splitlines()[-2] == "(no doc mentions zebra)"
    (docs / "zoo.md").write_text("# Zoo\n\nA zebra has stripes.\n")
    open_docs(Config(docs=docs, cache_dir=cache)).search_index().prepare()  # another process
    output, _ = search(first, query="timeouts zebra")
    assert "(no doc mentions zebra)" not in output
    assert "zoo.md:1-3  Zoo" in output


def test_search_docs_prints_no_highlight_marks_and_keeps_identifiers_whole(tmp_path: Path) -> None:
    """The head line names the words matched: a snippet in plain text shows `flag_value`,
    never `**flag**_**value**`, in a TUI card, an MCP result or an export."""
    (tmp_path / "opts.md").write_text("# Options\n\nSet `flag_value` to true for **bold** flags.\n")
    output, _ = search(DocsContext(Corpus.open(tmp_path)), query="flag value")
    assert "`flag_value`" in output and "**" not in output


def test_search_docs_lists_at_most_two_sections_of_one_doc_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    long_page = "# Pool\n\n" + "".join(
        f"## Pool part {n}\n\nThe pool timeout, part {n}.\n\n" for n in range(6)
    )
    (tmp_path / "pool.md").write_text(long_page)
    (tmp_path / "other.md").write_text("# Other\n\nA pool timeout is mentioned here too.\n")
    output, _ = search(DocsContext(Corpus.open(tmp_path)), query="pool timeout", limit=5)
    listed = [line.split()[1] for line in output.splitlines() if line[:1].isdigit()]
    assert [path.split(":")[0] for path in listed].count("pool.md") == 2
    assert "other.md" in " ".join(listed)
    assert "   (5 more sections in this doc)" in output.splitlines()  # and its title's


@pytest.mark.parametrize("asked", ["maxRetries", "max_retries", "MaxRetries", "max retries"])
def test_an_identifier_finds_its_other_spellings_and_the_words_it_is_made_of(
    tmp_path: Path, asked: str
) -> None:
    (tmp_path / "camel.md").write_text("# Client\n\nSet `maxRetries` on the client.\n")
    (tmp_path / "snake.md").write_text("# Config\n\nThe `max_retries` key of the file.\n")
    (tmp_path / "prose.md").write_text("# Retrying\n\nThe max retries before giving up.\n")
    (tmp_path / "other.md").write_text("# Other\n\nThe max size; retries are counted.\n")
    output, _ = search(DocsContext(Corpus.open(tmp_path)), query=asked, limit=5)
    listed = {line.split()[1].split(":")[0] for line in output.splitlines() if line[:1].isdigit()}
    if asked == "max retries":  # plain words: the identifiers written as one word are not
        assert {"snake.md", "prose.md"} <= listed
    else:
        assert {"camel.md", "snake.md", "prose.md"} <= listed
        assert "other.md" not in listed  # the words apart are not the identifier


def test_a_comparison_word_matches_no_product_name(tmp_path: Path) -> None:
    (tmp_path / "editors.md").write_text("# Editors\n\nOpen the folder in VS Code.\n")
    (tmp_path / "compare.md").write_text("# Sync and async\n\nThe async client is faster.\n")
    output, _ = search(DocsContext(Corpus.open(tmp_path)), query="sync vs async client")
    assert "compare.md" in output and "editors.md" not in output
