from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.tools.sandbox import PROC_FD, Unreadable, escape_name, printable, read_inside, walk

# Linux shows each open descriptor's path; elsewhere the real path is checked instead.
BOTH_CHECKS = pytest.mark.parametrize(
    "descriptors", [PROC_FD, "/nonexistent"], ids=["proc", "realpath"]
)


def read(root: Path, rel: str, descriptors: str, limit: int = 1000) -> bytes:
    real = os.path.realpath(root)
    return read_inside(
        real, os.path.join(real, rel), name=rel, limit=limit, descriptors=descriptors
    )[0]


def refusal(root: Path, rel: str, descriptors: str, limit: int = 1000) -> str:
    with pytest.raises(Unreadable) as caught:
        read(root, rel, descriptors, limit)
    assert caught.value.name == rel
    return caught.value.reason


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "page.md").write_text("inside\n")
    (tmp_path / "away").mkdir()
    (tmp_path / "away" / "page.md").write_text("outside\n")
    return root


@BOTH_CHECKS
def test_regular_files_and_symlinks_that_stay_inside_are_read(
    folder: Path, descriptors: str
) -> None:
    (folder / "link.md").symlink_to(folder / "sub" / "page.md")
    assert read(folder, "sub/page.md", descriptors) == b"inside\n"
    assert read(folder, "link.md", descriptors) == b"inside\n"


@BOTH_CHECKS
def test_anything_leading_outside_is_refused(folder: Path, descriptors: str) -> None:
    (folder / "out.md").symlink_to(folder.parent / "away" / "page.md")
    assert refusal(folder, "out.md", descriptors) == "it leads outside the docs folder"
    (folder / "sub").rename(folder.parent / "sub-moved")
    (folder / "sub").symlink_to(folder.parent / "away")  # a folder on the way
    assert refusal(folder, "sub/page.md", descriptors) == "it leads outside the docs folder"


@BOTH_CHECKS
def test_what_is_not_a_regular_file_is_refused_unopened(folder: Path, descriptors: str) -> None:
    os.mkfifo(folder / "pipe.md")
    assert refusal(folder, "pipe.md", descriptors) == "it is not a regular file"
    assert refusal(folder, "sub", descriptors) == "it is a folder now"
    assert refusal(folder, "gone.md", descriptors) == "it no longer exists"


@BOTH_CHECKS
def test_reads_stop_at_the_limit(folder: Path, descriptors: str) -> None:
    (folder / "big.md").write_bytes(b"x" * 1001)
    (folder / "fits.md").write_bytes(b"x" * 1000)
    assert refusal(folder, "big.md", descriptors) == (
        "it is larger than the 1,000-byte limit for one doc"
    )
    assert read(folder, "fits.md", descriptors) == b"x" * 1000


def test_the_walk_skips_hidden_entries_and_symlinked_folders(folder: Path) -> None:
    (folder / ".hidden").mkdir()
    (folder / ".hidden" / "secret.md").write_text("x")
    (folder / ".dot.md").write_text("x")
    (folder / "linked").symlink_to(folder / "sub")
    (folder / "top.md").write_text("x")
    (folder / "top.png").write_text("x")
    found = walk(str(folder), lambda name: name.endswith(".md"))
    assert sorted(found.files) == ["sub/page.md", "top.md"]
    assert found.skipped == []


@pytest.mark.parametrize(
    "name, shown",
    [
        ("plain.md", "plain.md"),
        ("café.md", "café.md"),
        ("caf\udce9.md", "caf\\xe9.md"),  # the byte 0xE9, not UTF-8
        ("caf\x85.md", "caf\\u0085.md"),  # the character U+0085, which is UTF-8
        ("tab\there.md", "tab\\x09here.md"),
        ("rtl\u202eevil.md", "rtl\\u202eevil.md"),
        ("back\\slash.md", "back\\\\slash.md"),
        ("wide\U000e0001.md", "wide\\U000e0001.md"),
    ],
)
def test_names_are_shown_printable_and_distinct(name: str, shown: str) -> None:
    assert escape_name(name) == shown
    assert printable(name) == shown.replace("\\\\", "\\")


def test_the_walk_counts_links_and_special_files_named_like_docs(
    folder: Path, tmp_path: Path
) -> None:
    (folder / "away.md").symlink_to(tmp_path / "away" / "page.md")
    (folder / "gone.md").symlink_to(tmp_path / "nowhere.md")
    (folder / "near.md").symlink_to(folder / "sub" / "page.md")
    os.mkfifo(folder / "pipe.md")
    os.mkfifo(folder / "pipe.sock")  # not a doc by its name: not counted here
    found = walk(str(folder), lambda name: name.endswith(".md"))
    assert sorted(found.files) == ["near.md", "sub/page.md"]
    assert sorted((s.name, s.reason) for s in found.skipped) == [
        ("away.md", "it leads outside the docs folder"),
        ("gone.md", "it is a broken link"),
        ("pipe.md", "it is not a regular file"),
    ]
