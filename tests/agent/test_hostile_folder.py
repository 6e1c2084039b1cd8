"""A docs folder of bad files: list_docs and grep_docs name what they skip and find the rest.

Built as the attack had it: unreadable, binary, Latin-1, UTF-16, corrupt and truncated
gzip, a gzip bomb, empty, a million CRs, a 10 MB line, 200,000 headings, broken HTML,
a 60-deep folder, a FIFO, a broken link and a link out of the folder, beside one good doc.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
from tests.permissions import binding


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bad") / "docs"
    root.mkdir()
    (root / "good.md").write_text("# Good\n\nThe timeout is five seconds.\n")
    unreadable = root / "unreadable.md"
    unreadable.write_text("# Unreadable\n\nThe timeout is secret.\n")
    unreadable.chmod(0)
    (root / "binary.md").write_bytes(bytes(range(256)) * 16)
    (root / "latin1.md").write_bytes("# Café\n\ntimeout café\n".encode("latin-1"))
    (root / "utf16.md").write_text("# UTF16\n\ntimeout here\n", encoding="utf-16")
    (root / "corrupt.md.gz").write_bytes(b"\x1f\x8b\x08\x00garbage" * 10)
    (root / "truncated.md.gz").write_bytes(gzip.compress(b"# T\n\ntimeout cut\n" * 100)[:50])
    (root / "bomb.md.gz").write_bytes(gzip.compress(b"\n" * (64 * 2**20)))
    (root / "empty.md").write_bytes(b"")
    (root / "crs.md").write_bytes(b"\r" * 1_000_000)
    (root / "longline.md").write_bytes(b"x" * 10_000_000)
    (root / "headings.md").write_text("# h\n" * 200_000)
    (root / "broken.html").write_text("<html><body><h1>Broken<p>timeout <b>unclosed <script>")
    deep = root.joinpath(*[f"d{n}" for n in range(60)])
    deep.mkdir(parents=True)
    (deep / "deep.md").write_text("# Deep\n\nThe timeout is deep.\n")
    os.mkfifo(root / "fifo.md")
    (root / "dangling.md").symlink_to("/nonexistent/x.md")
    (root / "outside.md").symlink_to("/etc/passwd")
    return root


def run(folder: Path, name: str, arguments: str) -> str:
    return docs_registry().call(name, arguments, [DocsContext(Corpus.open(folder))]).output


def test_list_docs_names_what_it_skipped_and_lists_the_good_doc(folder: Path) -> None:
    out = run(folder, "list_docs", "{}")
    assert "good.md  (3 lines)  Good" in out.splitlines()
    assert "it is not a regular file: fifo.md" in out
    assert "it leads outside the docs folder: outside.md" in out
    assert "binary: binary.md" in out


def test_grep_docs_finds_the_good_doc_and_the_deep_one(folder: Path) -> None:
    out = run(folder, "grep_docs", '{"keyword": "timeout"}')
    lines = out.splitlines()
    assert "good.md:3: The timeout is five seconds." in lines
    assert any(line.endswith("deep.md:3: The timeout is deep.") for line in lines)
    assert "could not be read" in lines[0]  # what it skipped is said first


def test_an_unreadable_doc_is_named_and_the_good_one_still_found(tmp_path: Path) -> None:
    (tmp_path / "good.md").write_text("# Good\n\nThe timeout is five seconds.\n")
    unreadable = tmp_path / "unreadable.md"
    unreadable.write_text("# Unreadable\n\nThe timeout is secret.\n")
    unreadable.chmod(0)
    with binding(unreadable):  # root too reads it as any user would
        listed = run(tmp_path, "list_docs", "{}").splitlines()
        found = run(tmp_path, "grep_docs", '{"keyword": "timeout"}').splitlines()
    assert listed[0].startswith("(skipped unreadable.md: ") and "good.md  (3 lines)  Good" in listed
    assert found[0].startswith("(skipped unreadable.md: ")
    assert "good.md:3: The timeout is five seconds." in found
