"""Finding an answer's citations in its prose, on big and hostile answers (`make bench`).

`find_citations` parses the answer's Markdown (markdown-it-py) to leave out code and
quotes. Measured in one run, as ratios (the machine's load moves absolute times): at
200 KB it costs no more than 1.5x one markdown-it parse of the same answer (which
showing the answer as Markdown costs anyway); and each shape timed at 200 KB and at
800 KB costs about 4x when linear, about 16x when it rescans (target < 8x). Each time
is the fastest of three runs.
"""

from __future__ import annotations

import time

import pytest
from markdown_it import MarkdownIt

from agent.tools.citations import find_citations

UNITS = {
    "an offline answer": (
        "According to `guide.md` (Guide):\n\n> quoted text guide.md:3 here\n> ```\n"
        "> code.md:1\n> ```\n\nSource: guide.md:1-5\n\nSee also: a.md:2-3 (A).\n\n"
    ),
    "inline citations": "Timeouts default to 5 s (advanced/timeouts.md:45-61), `x.md:1`. ",
    "backtick runs": "` `` ``` a.md:1 ",
    "quoted lines": "> a.md:1-2\n",
    "fenced blocks": "```\na.md:1\n```\n",
    "list items": "- see a.md:1\n",
    "table rows": "| a.md:1 | `b.md:2` |\n",
    "absurd ranges": "a.md:1-99999999999999999999 ",
}


ROUNDS = 3  # each time is the fastest of these: one run swings with the machine's load


def seconds(text: str) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.perf_counter()
        find_citations(text, None)
        best = min(best, time.perf_counter() - started)
    return best


def parse_seconds(text: str) -> float:
    parser = MarkdownIt("commonmark").enable("table")
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.perf_counter()
        parser.parse(text)
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.parametrize("name", UNITS)
def test_citations_are_found_in_linear_time(name: str) -> None:
    unit = UNITS[name]
    head = "| a | b |\n|---|---|\n" if name == "table rows" else ""
    text = head + unit * (200_000 // len(unit))
    small = seconds(text)
    parse = parse_seconds(text)
    large = seconds(head + unit * (800_000 // len(unit)))
    print(
        f"\ncitations in {name}: 200 KB {small:.3f} s = {small / parse:.2f}x one markdown-it "
        f"parse (target < 1.5x); 800 KB {large:.3f} s, ratio {large / small:.1f} (target < 8)"
    )
    assert small / parse < 1.5
    assert large / small < 8
