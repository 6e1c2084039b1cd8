from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.errors import ConfigError
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry


def call(ctx: DocsContext, name: str, raw: str) -> tuple[str, bool]:
    outcome = docs_registry().call(name, raw, [ctx])
    return outcome.output, outcome.error


def test_list_docs_skips_licence_and_non_docs_and_counts_them(ctx: DocsContext) -> None:
    assert call(ctx, "list_docs", "{}") == (
        "(2 docs; 2 files skipped: 1 licence (LICENSE.md); 1 of unknown type (1 .png))\n"
        "advanced/long.md  (200 lines)\nguide.md  (8 lines)  Guide",
        False,
    )


def test_grep_is_case_insensitive_with_path_line_hits(ctx: DocsContext) -> None:
    assert call(ctx, "grep_docs", '{"keyword": "TIMEOUT"}') == (
        "guide.md:5: ## Timeouts\nguide.md:8: Set `timeout=None` to wait forever.",
        False,
    )


def test_grep_caps_hits_at_twenty_and_says_so(ctx: DocsContext) -> None:
    output, error = call(ctx, "grep_docs", '{"keyword": "line"}')
    lines = output.splitlines()
    assert len(lines) == 21
    assert lines[1] == "advanced/long.md:1: line 1"
    assert lines[0] == (
        "(20 of 201 matches shown; per doc: advanced/long.md 200, guide.md 1. Use a more "
        "specific keyword, pass path= to search one doc or folder, or read_doc)"
    )


def test_grep_can_be_scoped_to_a_doc_or_a_folder(ctx: DocsContext) -> None:
    assert call(ctx, "grep_docs", '{"keyword": "line", "path": "guide.md"}') == (
        "guide.md:3: Intro line.",
        False,
    )
    output, _ = call(ctx, "grep_docs", '{"keyword": "line 1", "path": "advanced/"}')
    assert output.splitlines()[1] == "advanced/long.md:1: line 1"
    assert call(ctx, "grep_docs", '{"keyword": "zzz", "path": "guide.md"}') == (
        "no matches for 'zzz' in 'guide.md'; try another keyword or call list_docs",
        False,
    )
    assert call(ctx, "grep_docs", '{"keyword": "x", "path": "../"}') == (
        "error: '../' is outside the docs folder; call list_docs to see the files",
        True,
    )


def test_grep_with_no_hits_suggests_what_to_do(ctx: DocsContext) -> None:
    assert call(ctx, "grep_docs", '{"keyword": "kubernetes"}') == (
        "no matches for 'kubernetes' in 2 docs; try another keyword or call list_docs",
        False,
    )


def test_read_doc_numbers_lines(ctx: DocsContext) -> None:
    output, error = call(ctx, "read_doc", '{"path": "guide.md", "start": 5, "end": 7}')
    assert not error
    assert output == (
        "guide.md lines 5-7 of 8\n"
        "   5| ## Timeouts\n"
        "   6| \n"
        "   7| Requests time out after five seconds by default."
    )


def test_read_doc_clips_to_eighty_lines_and_says_where_to_go_on(ctx: DocsContext) -> None:
    output, _ = call(ctx, "read_doc", '{"path": "advanced/long.md", "start": 1, "end": 200}')
    lines = output.splitlines()
    assert lines[0] == "advanced/long.md lines 1-80 of 200"
    assert lines[80] == "  80| line 80"
    assert lines[-1] == (
        "(clipped to lines 1-80 of 200: at most 80 lines or 2,800 characters per call; "
        "call read_doc with start=81 to read on)"
    )


def test_read_doc_past_the_end(ctx: DocsContext) -> None:
    assert call(ctx, "read_doc", '{"path": "guide.md", "start": 50}') == (
        "error: start 50 is past the end: guide.md has 8 lines",
        True,
    )


def test_misspelled_file_points_at_list_docs(ctx: DocsContext) -> None:
    assert call(ctx, "read_doc", '{"path": "guid.md"}') == (
        "error: no file 'guid.md' in the docs; call list_docs to see the files",
        True,
    )


@pytest.mark.parametrize(
    "path, reason",
    [
        ("../../etc/passwd", "is outside the docs folder"),
        ("/etc/passwd", "is an absolute path; paths are relative to the docs"),
        ("escape.md", "is outside the docs folder"),
        (
            "LICENSE.md",
            "is not a doc (docs are .md, .markdown, .mdx, .rst, .txt, .html, .htm, .pdf, .epub "
            "files, man pages (.1 to .9), gzipped or not)",
        ),
    ],
)
def test_paths_outside_the_docs_are_refused(
    docs: Path, tmp_path: Path, path: str, reason: str
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("top secret\n")
    os.symlink(secret, docs / "escape.md")
    ctx = DocsContext(Corpus.open(docs))
    output, error = call(ctx, "read_doc", f'{{"path": "{path}"}}')
    assert error
    assert output == f"error: '{path}' {reason}; call list_docs to see the files"
    assert "top secret" not in call(ctx, "grep_docs", '{"keyword": "secret"}')[0]


def test_missing_and_empty_folders_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="docs folder not found"):
        Corpus.open(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no docs in"):
        Corpus.open(tmp_path / "empty")


def test_read_doc_keeps_each_reply_under_the_observation_limit(docs: Path) -> None:
    (docs / "wide.md").write_text("\n".join(f"{n} " + "word " * 20 for n in range(1, 101)))
    (docs / "one-line.md").write_text("x" * 5000)
    ctx = DocsContext(Corpus.open(docs))
    output, error = call(ctx, "read_doc", '{"path": "wide.md"}')
    lines = output.splitlines()
    assert not error and len(output) <= 3000
    last = int(lines[-2].split("|")[0])
    assert lines[0] == f"wide.md lines 1-{last} of 100"
    assert last < 80
    assert lines[-1] == (
        f"(clipped to lines 1-{last} of 100: at most 80 lines or 2,800 characters per call; "
        f"call read_doc with start={last + 1} to read on)"
    )
    output, _ = call(ctx, "read_doc", '{"path": "one-line.md"}')
    assert output.splitlines()[1].endswith("…") and len(output) <= 3000


def test_a_long_path_still_keeps_the_reply_whole(docs: Path) -> None:
    folder = docs / ("deep-folder-name-" * 5).strip("-")
    folder.mkdir()
    (folder / "page.md").write_text("\n".join("word " * 12 for _ in range(100)))
    ctx = DocsContext(Corpus.open(docs))
    rel = f"{folder.name}/page.md"
    output, error = call(ctx, "read_doc", f'{{"path": "{rel}"}}')
    assert not error and len(output) <= 2800
    assert output.splitlines()[-1].startswith("(clipped to lines 1-")
