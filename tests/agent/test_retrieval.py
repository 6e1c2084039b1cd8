"""The offline model's pure helpers: query terms, observation parsing, weights, passages."""

from __future__ import annotations

from dataclasses import replace

from agent.evidence import (
    DocInfo,
    GrepResult,
    Hit,
    as_words,
    merge_scoped,
    parse_grep,
    parse_listing,
    parse_page,
)
from agent.models.offline import lead_sentence
from agent.passages import best_passage, split_blocks
from agent.retrieval import (
    plan_reads,
    plan_searches,
    rank_files,
    term_weights,
    uncovered,
)
from agent.textutil import count_terms, near, parse_query, stem, tokens


def test_stems_match_other_forms_by_prefix() -> None:
    words = ["timeouts", "proxies", "proxy", "verification", "disabled", "caches", "https"]
    assert [stem(w) for w in words] == [
        "timeout", "prox", "prox", "verif", "disabl", "cach", "https",
    ]  # fmt: skip


def test_query_keeps_content_words_phrases_and_framing() -> None:
    query = parse_query('What kinds of timeouts does "httpx.Client" have?')
    assert query.terms == ("timeout", "httpx.client")
    assert query.phrases == ("httpx.client",)
    assert query.soft == ("kind", "type", "sort") and query.wants_list
    assert parse_query("How can I disable SSL verification?").keywords == (
        "disabl", "ssl", "verif", "disable ssl", "ssl verif",
    )  # fmt: skip
    assert parse_query("What are event hooks?").wants_definition


def test_terms_match_at_word_starts_leniently() -> None:
    assert count_terms("Use HTTP2, or http/2; not xhttp/2", ("http/2",)) == {"http/2": 2}
    assert count_terms("set event_hooks here", ("event hook",)) == {"event hook": 1}
    assert count_terms("a ConnectTimeout", ("timeout",)) == {}
    assert near("four different types of timeouts", "type", "timeout")
    assert not near("timeouts come in many types", "type", "timeout")


def test_terms_match_their_inflections_not_longer_words() -> None:
    assert count_terms("use any capitalization", ("capital",)) == {}
    assert count_terms("the capital city", ("capital",)) == {"capital": 1}
    text = "timeouts, replayed runs, logging, verification, a lifespan, to replace"
    assert count_terms(text, ("timeout", "repla", "log", "verif", "life")) == {
        "timeout": 1, "repla": 1, "log": 1, "verif": 1,
    }  # fmt: skip
    assert tokens("Configurer un délai ?") == ["configurer", "un", "délai"]


def test_searches_keep_word_matches_and_tell_missing_terms() -> None:
    inside = as_words(_grep("capital", ("q.md", 3, "use any capitalization")))
    assert inside.hits == () and inside.total == 0
    hits = [("a.md", 1, "two timeouts"), ("a.md", 2, "timeoutless"), ("b.md", 1, "ReadTimeout")]
    assert [h.line for h in as_words(_grep("timeout", *hits)).hits] == [1, 1]
    fragments = tuple(Hit("a.md", n, "a lamp") for n in range(1, 21))
    capped = as_words(GrepResult("la", fragments, 134, per_doc=(("a.md", 20), ("b.md", 114))))
    assert capped.hits == () and capped.total == 114  # the cap hid them: words or not
    query = parse_query("What is the capital of France?")
    greps = {"capital": inside, "franc": _grep("franc")}
    assert uncovered(query, {"capital": 1.0, "franc": 1.0}, greps) == 1.0
    greps["capital"] = _grep("capital", ("a.md", 1, "a capital"))
    assert uncovered(query, {"capital": 1.0, "franc": 1.0}, greps) == 0.5


def test_parses_listing_grep_and_pages() -> None:
    assert parse_listing("a.md  (12 lines)  Alpha\nsub/b.rst  (3 lines)") == [
        DocInfo("a.md", 12, "Alpha"),
        DocInfo("sub/b.rst", 3, ""),
    ]
    grep = parse_grep("x", "a.md:3: an x\nb.md:10: x: y\n(2 of 9 matches shown; use ...)")
    assert grep == GrepResult("x", (Hit("a.md", 3, "an x"), Hit("b.md", 10, "x: y")), 9)
    none = parse_grep("zz", "no matches for 'zz' in 14 docs; try another keyword")
    assert none.hits == () and none.total == 0 and none.n_docs == 14
    page = parse_page("a.md lines 4-7 of 9\n   4| one\n   5|\n   6| two, cut\n[... truncated: 9]")
    assert page is not None and dict(page.lines) == {4: "one", 5: ""} and page.total == 9
    assert parse_page("error: no file 'x.md' in the docs") is None


def _grep(keyword: str, *hits: tuple[str, int, str], total: int = 0) -> GrepResult:
    found = tuple(Hit(*h) for h in hits)
    return GrepResult(keyword, found, max(total, len(found)))


def test_rare_terms_weigh_more_and_unseen_terms_like_the_rarest() -> None:
    greps = {
        "pool": _grep("pool", ("a.md", 1, "pool")),
        "client": _grep("client", *[(f"{c}.md", 1, "client") for c in "abcdefgh"], total=80),
        "bread": _grep("bread"),
    }
    weights = term_weights(["pool", "client", "bread"], greps, 10)
    assert weights["pool"] > weights["client"] and weights["bread"] == weights["pool"]
    assert term_weights(["other"], {}, 10) == {"other": 1.0}


def test_files_rank_by_hits_and_name_then_read_around_the_best_window() -> None:
    greps = {
        "retr": _grep("retr", ("faq.md", 40, "retries"), ("guide/retries.md", 150, "retry")),
        "limit": _grep("limit", ("guide/retries.md", 152, "limit retries")),
    }
    docs = [DocInfo("faq.md", 60), DocInfo("guide/retries.md", 300)]
    weights = term_weights(["retr", "limit"], greps, 2)
    assert [path for _, path in rank_files(weights, greps, docs)] == ["guide/retries.md", "faq.md"]
    assert plan_reads(weights, greps, docs) == [("guide/retries.md", 142, 181)]
    docs = [DocInfo("faq.md", 60), DocInfo("guide/retries.md", 30)]
    assert plan_reads(weights, greps, docs) == [("guide/retries.md", 1, 30)]


PAGE = dict(
    enumerate(
        [
            "## Limits",
            "",
            "Set limits on the client:",
            "",
            "```python",
            "client = Client(limits=5)",
            "```",
            "",
            "There are two kinds of limits:",
            "",
            "* `max` limits the connections.",
            "* `keepalive` limits the idle ones.",
            "",
            "Unrelated words.",
        ],
        start=10,
    )
)


def test_blocks_know_their_kind_heading_and_list() -> None:
    blocks = split_blocks(PAGE)
    assert [(b.start, b.end, b.kind, b.list_id) for b in blocks] == [
        (10, 10, "heading", None),
        (12, 12, "para", None),
        (14, 16, "code", None),
        (18, 18, "para", None),
        (20, 20, "item", 1),
        (21, 21, "item", 1),
        (23, 23, "para", None),
    ]
    assert {b.heading for b in blocks} == {"Limits"}
    inside = split_blocks({1: "x = 1", 2: "```", 3: "", 4: "Then some prose here."})
    assert [(b.kind, b.start) for b in inside] == [("code", 1), ("para", 4)]


def test_best_passage_takes_a_list_with_its_lead_in() -> None:
    query = parse_query("What kinds of limits are there?")
    weights = {"limit": 1.0}
    passage = best_passage({"a.md": PAGE}, query, weights)
    assert passage is not None and (passage.start, passage.end) == (18, 21)
    assert passage.coverage == 1.0 and passage.heading == "Limits"
    assert lead_sentence(passage, query, weights) == "There are two kinds of limits:"


def test_best_passage_for_how_to_brings_the_example() -> None:
    query = parse_query("How do I set limits?")
    passage = best_passage({"a.md": PAGE}, query, {"set": 1.0, "limit": 1.0})
    assert passage is not None and (passage.start, passage.end) == (12, 16)
    assert best_passage({"a.md": PAGE}, query, {"bread": 1.0}) is None


CAPPED = (
    "a.md:3: a hit\n"
    "(20 of 70 matches shown; per doc: advanced/timeouts.md 25, quickstart.md 8, api.md 3, "
    "and 4 more docs. Use a more specific keyword, pass path= to search one doc or folder, "
    "or read_doc)"
)


def test_parses_the_per_doc_counts_past_the_cap() -> None:
    grep = parse_grep("x", CAPPED)
    assert grep.total == 70 and grep.more_docs == 4 and not grep.cut
    assert grep.per_doc == (("advanced/timeouts.md", 25), ("quickstart.md", 8), ("api.md", 3))
    assert grep.counts() == {"a.md": 1, "advanced/timeouts.md": 25, "quickstart.md": 8, "api.md": 3}
    assert grep.shown() == {"a.md": 1}
    few = CAPPED.replace(", and 4 more docs", "")
    assert parse_grep("x", few).more_docs == 0 and len(parse_grep("x", few).per_doc) == 3
    scoped = parse_grep("x", "api.md:9: x", path="api.md")
    assert scoped.path == "api.md" and scoped.per_doc == ()


def test_a_truncated_search_is_marked_cut() -> None:
    grep = parse_grep(
        "x", "a.md:1: x\nb.md:2: x\nc.md:3: x, cut\n[... truncated: 9,000 characters]"
    )
    assert grep.cut and grep.total == 2 and grep.hits[-1].path == "b.md"


def test_per_doc_counts_weigh_terms_and_rank_files() -> None:
    hits = [("a.md", n, "token") for n in range(1, 21)]
    capped = GrepResult("token", tuple(Hit(*h) for h in hits), 40, per_doc=(("a.md", 20),))
    spread = replace(capped, per_doc=(("a.md", 20), ("b.md", 12), ("c.md", 8)), more_docs=2)
    assert (
        term_weights(["token"], {"token": spread}, 10)["token"]
        < (term_weights(["token"], {"token": capped}, 10)["token"])
    )
    greps = {"token": spread, "rare": _grep("rare", ("b.md", 3, "rare"))}
    weights = term_weights(["token", "rare"], greps, 10)
    ranked = [path for _, path in rank_files(weights, greps, [])]
    assert ranked[:2] == ["b.md", "a.md"] and "c.md" in ranked


def test_searches_again_in_the_top_file_for_its_hidden_hits() -> None:
    tokens = tuple(Hit("a.md", n, "token") for n in range(1, 21))
    refreshes = tuple(Hit("b.md", n, "refresh") for n in range(1, 21))
    greps = {
        "token": GrepResult("token", tokens, 34, per_doc=(("a.md", 20), ("z.md", 14))),
        "refresh": GrepResult("refresh", refreshes, 26, per_doc=(("b.md", 20), ("z.md", 6))),
    }
    docs = [DocInfo("a.md", 300, "Alpha"), DocInfo("z.md", 200, "Tokens")]
    weights = {"token": 1.0, "refresh": 2.0}
    assert rank_files(weights, greps, docs)[0][1] == "z.md"
    assert plan_searches(weights, greps, docs) == [("refresh", "z.md"), ("token", "z.md")]
    found = GrepResult("token", (Hit("z.md", 70, "## Refreshing a token"),), 1, path="z.md")
    merged = merge_scoped(greps, [found])
    assert merged["token"].hits[-1] == Hit("z.md", 70, "## Refreshing a token")
    assert merged["token"].path is None and merged["token"].total == 34
    short = [DocInfo("a.md", 300, "Alpha"), DocInfo("z.md", 60, "Tokens")]
    assert plan_searches(weights, greps, short) == []


def test_headings_that_name_the_task_lift_their_section() -> None:
    page = {
        1: "## Monitoring progress",
        2: "",
        3: "For large payloads you can stream the payload and watch it.",
        4: "",
        5: "## Streaming payloads",
        6: "",
        7: "Stream a large payload with `send(stream=True)`.",
    }
    query = parse_query("How do I stream a large payload?")
    weights = {"stream": 1.0, "larg": 2.0, "payload": 1.0}
    passage = best_passage({"a.md": page}, query, weights)
    assert passage is not None and passage.heading == "Streaming payloads"


def test_lead_for_how_to_prefers_the_instruction_and_its_example() -> None:
    page = {
        1: "## Enabling turbo",
        2: "",
        3: "Turbo is not enabled by default. A future version may enable turbo by default.",
        4: "",
        5: "And then create a client with turbo enabled:",
        6: "",
        7: "```python",
        8: ">>> client = Client(turbo=True)  # fast",
        9: "```",
    }
    query = parse_query("How do I enable turbo?")
    weights = {"enabl": 1.0, "turbo": 1.0, "enable turbo": 1.0}
    passage = best_passage({"a.md": page}, query, weights)
    assert passage is not None
    assert lead_sentence(passage, query, weights) == (
        "Create a client with turbo enabled: `client = Client(turbo=True)`"
    )
