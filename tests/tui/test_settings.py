"""The settings file: read, written, and never a traceback when it is damaged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.commands.options import settings_file
from tui.statefiles.settings import Settings, load_settings, save_settings


def test_the_file_is_in_the_config_folder(tmp_path: Path) -> None:
    assert settings_file({"XDG_CONFIG_HOME": str(tmp_path)}) == (
        tmp_path / "docsagent" / "settings.json"
    )
    assert settings_file({"XDG_CONFIG_HOME": " "}) == (
        Path.home() / ".config" / "docsagent" / "settings.json"
    )


def test_no_file_gives_the_defaults_and_no_notice(tmp_path: Path) -> None:
    assert load_settings(tmp_path / "settings.json") == (Settings(), None)


def test_saved_settings_are_read_back_and_other_keys_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "new" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"later": 1}')
    assert save_settings(path, Settings(theme="nord")) is None
    assert json.loads(path.read_text()) == {"later": 1, "theme": "nord"}
    assert load_settings(path) == (Settings(theme="nord"), None)
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temporary left


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"theme": ', "not JSON: Expecting value at line 1"),
        ("[1, 2]", "not a JSON object"),
        ('{"theme": 3}', '"theme" is not a string'),
        (b"\xff\xfe", "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"),
    ],
)
def test_a_damaged_file_gives_the_defaults_and_one_line(
    tmp_path: Path, text: str | bytes, reason: str
) -> None:
    path = tmp_path / "settings.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    assert load_settings(path) == (
        Settings(),
        f"the settings file {path} cannot be used ({reason}); using the defaults",
    )


def test_a_folder_that_cannot_be_written_gives_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    path = blocker / "docsagent" / "settings.json"
    failure = save_settings(path, Settings(theme="nord"))
    assert failure is not None
    assert failure.startswith(f"cannot save the settings to {path}: ")
