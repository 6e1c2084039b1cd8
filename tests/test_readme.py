"""The README's sample outputs are what the commands show now (`make docs` rewrites them)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.readme_samples import README, mask, samples, screen, stale

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")


def test_the_readme_samples_match_what_the_commands_show() -> None:
    assert samples(README.read_text(encoding="utf-8")), "the README has no marked sample"
    diff = stale()
    assert not diff, f"README.md's samples are stale; run `make docs`:\n{diff}"


def test_a_stale_sample_is_found(tmp_path: Path) -> None:
    page = tmp_path / "README.md"
    page.write_text('<!-- sample 60: docsagent ask "how do I replay?" -->\n```\nold\n```\n')
    diff = stale(page)
    assert "-old\n" in diff and "+[step 1] search_docs(" in diff


def test_the_screen_is_what_a_terminal_shows_and_masked(tmp_path: Path) -> None:
    data = b"\rwaiting \xc2\xb7 0.2 s\x1b[K\r\x1b[K\x1b[1mdone\x1b[0m\r\nnext  \r\n\r\n"
    assert screen(data) == "done\nnext\n"
    summary = f"answered · 12.3 s · trace: {tmp_path}/20250102-030405-678-q.jsonl\n"
    assert mask(summary, tmp_path) == (
        "answered · 0.0 s · trace: ~/.local/state/docsagent/traces/…-q.jsonl\n"
    )
    folded = f"≈9 tokens · 1.5 s\ntrace: {tmp_path}/20250102-030405-678-q.jsonl\n"
    assert mask(folded, tmp_path) == (
        "≈9 tokens · 0.0 s\ntrace: ~/.local/state/docsagent/traces/…-q.jsonl\n"
    )
    answer = "docsagent replay traces/20250314-093015-123-q.jsonl waits 1.5 s at most\n"
    assert mask(answer, tmp_path) == answer  # the docs' own text is left alone
