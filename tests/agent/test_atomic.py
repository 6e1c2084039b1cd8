"""A file of ours is replaced whole or not at all, and a link at its name is replaced, not
followed: the helper the state files and the endpoints cache write through."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from agent import write_atomic
from tests.test_full_disk import small_disk

__all__ = ["small_disk"]  # a 64 KiB tmpfs, shared with tests/test_full_disk.py


def test_the_text_replaces_the_file_and_only_the_user_may_read_it(tmp_path: Path) -> None:
    path = tmp_path / "state" / "deeper" / "history"  # its folders made on the way
    write_atomic(path, "first\n")
    write_atomic(path, "second, ünïcode\n")
    assert path.read_bytes() == "second, ünïcode\n".encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["history"]


def test_a_full_disk_midway_keeps_the_old_file_whole_and_no_temporary(small_disk: Path) -> None:
    path = small_disk / "history"
    path.write_text("old\n")
    with pytest.raises(OSError, match="No space left"):
        write_atomic(path, "question\n" * 20_000)  # 180 KB on a 64 KiB disk
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in small_disk.iterdir()) == ["history"]


def test_text_that_cannot_be_written_keeps_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.write_text("old\n")
    with pytest.raises(UnicodeEncodeError):  # not an OSError: every failure is cleaned up
        write_atomic(path, "lone surrogate \ud800")
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history"]


def test_a_failure_at_the_rename_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.mkdir()  # a folder at the name: the rename fails after the text is written and synced
    (path / "inside").write_text("kept\n")
    with pytest.raises(IsADirectoryError):
        write_atomic(path, "new\n")
    assert (path / "inside").read_text() == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]


@pytest.mark.parametrize("dangling", [False, True], ids=["to-a-file", "dangling"])
def test_a_link_at_the_name_is_replaced_not_followed(tmp_path: Path, dangling: bool) -> None:
    theirs = tmp_path / "theirs.txt"
    if not dangling:
        theirs.write_text("not ours\n")
    path = tmp_path / "endpoints.json"
    path.symlink_to(theirs)
    write_atomic(path, "ours\n")
    assert not path.is_symlink()
    assert path.read_text() == "ours\n"
    if dangling:
        assert sorted(p.name for p in tmp_path.iterdir()) == ["endpoints.json"]
    else:
        assert theirs.read_text() == "not ours\n"
