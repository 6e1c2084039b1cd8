"""The one cache of what was read of each doc: its two bounds, and a changed file's entry."""

from __future__ import annotations

from agent.tools.doccache import DocCache, DocText, folded

KEY = (1, 2, 3, 4, 5)
OTHER = (1, 2, 3, 4, 6)
ABCD = DocText("abcd", KEY)


def test_texts_past_their_bound_go_oldest_first_and_their_entries_keep_the_rest() -> None:
    cache = DocCache(cache_bytes=1000, text_chars=10)
    for rel in ("a.md", "b.md", "c.md"):
        entry = cache.add(rel, KEY, rel.encode())
        entry.title = rel.upper()
        cache.keep_doc(rel, entry, folded("1234", KEY, rel.encode()))
        cache.keep_text(rel, entry, ABCD)
    texts = {rel: e.text for rel, e in cache.entries.items()}
    assert texts == {"a.md": None, "b.md": ABCD, "c.md": ABCD}
    a = cache.get("a.md", KEY)
    assert a is not None and a.title == "A.MD" and a.doc is not None
    assert cache.size == 12
    cache.keep_text("a.md", a, ABCD)  # read again: now b's text is the oldest
    assert [rel for rel, e in cache.entries.items() if e.text] == ["c.md", "a.md"]
    cache.keep_text(
        "c.md", cache.entries["c.md"], DocText("x" * 11, KEY)
    )  # over the bound on its own
    assert cache.entries["c.md"].text is None and cache.entries["a.md"].text == ABCD


def test_docs_past_the_bytes_bound_go_least_recently_used_first() -> None:
    cache = DocCache(cache_bytes=10, text_chars=100)
    for rel in ("a.md", "b.md"):
        cache.keep_doc(rel, cache.add(rel, KEY, b""), folded("12345", KEY, b""))
    assert cache.get("a.md", KEY) is not None  # used: b.md is now the least recent
    cache.keep_doc("c.md", cache.add("c.md", KEY, b""), folded("123", KEY, b""))
    assert list(cache.entries) == ["a.md", "c.md"] and cache.size == 8
    big = cache.add("d.md", KEY, b"")
    cache.keep_doc("d.md", big, folded("x" * 11, KEY, b""))  # over the bound on its own
    assert big.doc is None and cache.size == 8


def test_an_entry_for_another_version_of_the_file_is_dropped_with_all_it_held() -> None:
    cache = DocCache(cache_bytes=100, text_chars=100)
    entry = cache.add("a.md", KEY, b"a.md")
    cache.keep_doc("a.md", entry, folded("# A\ntext\n", KEY, b"a.md"))
    cache.keep_text("a.md", entry, DocText("# A\ntext\n", KEY))
    assert cache.get("a.md", OTHER) is None and cache.get("a.md", KEY) is None
    assert cache.size == 0 and not cache.entries
    fresh = cache.add("a.md", OTHER, b"a.md")
    text = DocText("y" * 100, OTHER)
    cache.keep_text("a.md", fresh, text)  # the old text's characters were given back
    assert fresh.text == text
