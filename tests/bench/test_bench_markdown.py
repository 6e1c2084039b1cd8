"""The HTML export's Markdown renderer on hostile answers (`make bench`).

Each input is rendered at 1 MB and at 5 MB: linear time costs about 5x, a pattern that
backtracks would cost about 25x. The 5 MB times are printed for a person to judge.
"""

from __future__ import annotations

import time

import pytest

from agent.markdown_html import markdown_html

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
    small = seconds(head + unit * (1_000_000 // len(unit)))
    large = seconds(head + unit * (5_000_000 // len(unit)))
    print(f"\nmarkdown {name}: 1 MB {small:.2f} s, 5 MB {large:.2f} s, ratio {large / small:.1f}")
    assert large / small < 10
