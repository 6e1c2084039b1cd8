"""The offline model's pure helpers: query terms, observation parsing, weights, passages."""

from __future__ import annotations

from agent.passages import best_passage, lead_sentence, split_blocks
from agent.retrieval import (
    DocInfo,
    GrepResult,
    Hit,
    parse_grep,
    parse_listing,
    parse_page,
    plan_reads,
    rank_files,
    term_weights,
)
from agent.textutil import count_terms, near, parse_query, stem


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
