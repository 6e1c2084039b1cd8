"""The HTML export's Markdown renderer (markdown-it-py) on hostile answers (`make bench`).

Each input is rendered at 100 KB and at 400 KB: linear time costs about 4x, a pattern
that backtracks would cost about 16x. markdown-it-py is pure Python (about 20 KB/s on
lazy list lines, the slowest unit here), so the sizes are an answer's, not a book's.
The 400 KB times are printed for a person to judge.
"""

from __future__ import annotations

import time

import pytest

from agent.markdown import markdown_html

UNITS = {
    "emphasis runs": "*a _b **c ",
    "emphasis skipped by the rule of 3": "**a*b*",
    "open brackets and links": "[a](b [c](",
    "backtick runs": "` `` ``` x ",
    "list items": "- x\n",
    "lazy list lines": "- a\nb\n",
    "quoted lines": "> x\n",
    "table rows": "| x | y |\n",
    "escapes": "\\*\\",
    "plain lines": "words and more words\n",
}


def seconds(text: str) -> float:
    started = time.perf_counter()
    markdown_html(text)
    return time.perf_counter() - started


@pytest.mark.parametrize("name", UNITS)
def test_rendering_time_is_linear(name: str) -> None:
    unit = UNITS[name]
    head = "| a | b |\n|---|---|\n" if name == "table rows" else ""
    small = seconds(head + unit * (100_000 // len(unit)))
    large = seconds(head + unit * (400_000 // len(unit)))
    print(
        f"\nmarkdown {name}: 100 KB {small:.2f} s, 400 KB {large:.2f} s, ratio {large / small:.1f}"
    )
    assert large / small < 8
