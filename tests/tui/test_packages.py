"""`tui/`'s packages keep to their parts: the state files, the MCP server and the transcript
need no Textual, and the state files nothing else of the front end."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_layering import imported_modules

TUI = Path(__file__).resolve().parents[2] / "tui"


def offenders(package: str, *, banned: tuple[str, ...]) -> list[str]:
    return [
        f"{path.relative_to(TUI.parent)}: {name}"
        for path in sorted((TUI / package).rglob("*.py"))
        for name in imported_modules(path)
        if any(name == ban or name.startswith(f"{ban}.") for ban in banned)
    ]


@pytest.mark.parametrize("package", ["statefiles", "mcp", "transcript", "commands"])
def test_a_package_outside_the_app_needs_no_textual(package: str) -> None:
    """`follow` opens the replay screen through `tui.app`, never by importing Textual itself."""
    assert offenders(package, banned=("textual",)) == []


def test_the_state_files_import_nothing_else_of_the_front_end() -> None:
    front_end = ("tui.commands", "tui.mcp", "tui.transcript", "tui.screens", "tui.widgets")
    top = tuple(f"tui.{p.stem}" for p in TUI.glob("*.py") if p.stem != "__init__")
    assert offenders("statefiles", banned=(*front_end, *top, "rich", "typer")) == []


def test_the_mcp_server_opens_no_screen() -> None:
    screens = ("tui.app", "tui.screens", "tui.widgets", "tui.transcript", "tui.state")
    assert offenders("mcp", banned=screens) == []
