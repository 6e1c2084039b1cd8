"""Hostile state files (settings, question history): refused or read at once, never a hang.

Each case would hang the start-up (a FIFO nobody writes, an endless device) or end it
with a traceback (nesting past the recursion limit, a number too long to read) before
the state files were opened as the trace reader opens traces.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tui.statefiles.history import MAX_HISTORY_BYTES, History
from tui.statefiles.settings import MAX_SETTINGS_BYTES, Settings, load_settings, save_settings


def fifo(path: Path) -> None:
    os.mkfifo(path)


def to_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def to_urandom(path: Path) -> None:
    path.symlink_to("/dev/urandom")


def folder(path: Path) -> None:
    path.mkdir()


NOT_REGULAR: list[tuple[Callable[[Path], None], str]] = [
    (fifo, "it is a FIFO, not a regular file"),
    (to_zero, "it is a device, not a regular file"),
    (to_urandom, "it is a device, not a regular file"),
    (folder, "it is a folder"),
]


@pytest.mark.parametrize(("make", "reason"), NOT_REGULAR)
def test_settings_that_are_not_a_regular_file_give_the_defaults_at_once(
    tmp_path: Path, make: Callable[[Path], None], reason: str
) -> None:
    path = tmp_path / "settings.json"
    make(path)
    notice = f"the settings file {path} cannot be used ({reason}); using the defaults"
    assert load_settings(path) == (Settings(), notice)
    assert save_settings(path, Settings(theme="nord")) == (
        f"cannot save the settings to {path}: {reason}"
    )


@pytest.mark.parametrize(("make", "reason"), NOT_REGULAR)
def test_a_history_that_is_not_a_regular_file_starts_empty_with_one_notice(
    tmp_path: Path, make: Callable[[Path], None], reason: str
) -> None:
    path = tmp_path / "history"
    make(path)
    history = History(path)
    assert history.questions == []
    assert history.notice == (
        f"the question history {path} cannot be used ({reason}); starting empty"
    )
    assert history.add("one") is None  # kept for this launch, the file left alone
    assert history.previous("") == "one"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"theme": ' + "[" * 100_000, "nested too deeply"),
        ('{"theme": ' + "9" * 5000 + "}", "Exceeds the limit (4300 digits)"),
    ],
)
def test_settings_nested_too_deep_or_with_a_huge_number_give_the_defaults(
    tmp_path: Path, text: str, reason: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text)
    settings, notice = load_settings(path)
    assert settings == Settings()
    assert notice is not None and reason in notice
    assert save_settings(path, Settings(theme="nord")) is None  # a damaged file is replaced


def test_a_huge_settings_file_is_left_unread(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b" " * (MAX_SETTINGS_BYTES + 1))
    assert load_settings(path) == (
        Settings(),
        f"the settings file {path} cannot be used (larger than 1 MiB); using the defaults",
    )


def test_history_lines_nested_too_deep_or_with_huge_numbers_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "history"
    lines = ['"one"', "[" * 100_000 + "]" * 100_000, "9" * 5000, '"two"']
    path.write_text("\n".join(lines) + "\n")
    assert History(path).questions == ["one", "two"]


def test_a_huge_history_is_left_unread(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.write_bytes(b'"x"\n' * (MAX_HISTORY_BYTES // 4 + 1))
    history = History(path)
    assert history.questions == []
    assert history.notice == (
        f"the question history {path} cannot be used (larger than 8 MiB); starting empty"
    )
