"""Times that `make test` once asserted, measured here instead (`make bench`).

Each was a bug: a reader that took 34-39 s on a hostile line or page, an export made inert
in time quadratic in its length, an eval whose Ctrl+C waited for the requests the server
held. `make test` checks what each returns; this checks how long it takes.
"""

from __future__ import annotations

import time
from pathlib import Path

from agent.markdown_inert import inert
from agent.readers.asciidoc import is_asciidoc
from agent.readers.registry import doc_lines
from agent.trace import read_trace
from tests.agent.test_eval_runner import docs, two_held  # noqa: F401 (a fixture)
from tests.chatserver import ChatServer


def test_a_page_of_link_tags_that_never_close_is_read_in_milliseconds() -> None:
    for tag in ("<a href='#x' ", "<a class='x' ", "<a title='x' "):
        page = f"<html><body><h2>Broken</h2><p>{tag * 2000}</p><p>After.</p></body></html>"
        began = time.perf_counter()
        doc_lines(page.encode(), "broken.html")
        took = time.perf_counter() - began
        print(f"\nhtml: 2,000 unclosed {tag.strip()!r} tags read in {took * 1000:.1f} ms")
        assert took < 5  # 39 s, 4.5 s and 3.2 s once


def test_a_huge_line_of_brackets_after_a_directive_is_read_in_milliseconds() -> None:
    line = "include::" + "[" * 200_000
    began = time.perf_counter()
    is_asciidoc(["", line, "", "Text."])
    took = time.perf_counter() - began
    print(f"\nasciidoc: 200,000 open brackets read in {took * 1000:.1f} ms")
    assert took < 5  # 34 s once: every "[" tried as the opening one


def test_inert_is_linear() -> None:
    def took(n: int) -> float:
        text = "](javascript:" * n + "<" * n + "\n```\n" * (n // 10)
        best = float("inf")
        for _ in range(3):
            began = time.perf_counter()
            inert(text)
            best = min(best, time.perf_counter() - began)
        return best

    took(1000)
    small, large = took(4_000), took(40_000)
    print(f"\ninert: 4,000 in {small * 1000:.1f} ms, 40,000 in {large * 1000:.1f} ms")
    assert large < 40 * small + 0.5


def test_stopping_an_eval_early_cuts_held_requests_at_once(
    chat_server: ChatServer,
    docs: Path,  # noqa: F811 (the fixture imported above)
    tmp_path: Path,
) -> None:
    results, _ = two_held(chat_server, docs, tmp_path / "t")
    began = time.monotonic()
    results.close()
    took = time.monotonic() - began
    print(f"\neval: two held requests cut in {took * 1000:.0f} ms")
    assert took < 2.0  # not the time the server holds them
    assert all(read_trace(path).complete for path in (tmp_path / "t").iterdir())
