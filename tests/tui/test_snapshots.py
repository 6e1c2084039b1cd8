"""Snapshots of key screens, replayed from fixture traces with `instant` (deterministic).

Update with `pytest tests/tui/test_snapshots.py --snapshot-update` after a deliberate change.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from _pytest.monkeypatch import MonkeyPatch
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input

from agent.trace import read_trace
from tests.tui.test_help_and_start import examples_shown, guide_app
from tui.app import DocsAgentApp, replay_app
from tui.widgets.transcript import Transcript

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SnapCompare = Callable[..., bool]


def steady_cursor(app: App[int]) -> None:
    """The question box's cursor shown without blinking: else a snapshot catches it on or off."""
    for field in app.screen.query(Input):
        field.cursor_blink = False


def fixture_app(name: str, *, instant: bool) -> DocsAgentApp:
    trace = read_trace(FIXTURES / f"{name}.jsonl")
    return replay_app(trace, path=Path(f"tests/fixtures/{name}.jsonl"), instant=instant)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_answered_run(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    assert snap_compare(fixture_app("answered", instant=True), terminal_size=size)


def test_expanded_error_card(snap_compare: SnapCompare) -> None:
    async def expand(pilot: Pilot[int]) -> None:
        view = pilot.app.screen.query_one(Transcript)
        view.focus()
        view.select(view.model.cards()[1])  # read_doc(missing.md): an error
        await pilot.press("enter")

    assert snap_compare(
        fixture_app("answered", instant=True), terminal_size=(120, 40), run_before=expand
    )


def test_interrupted_run(snap_compare: SnapCompare) -> None:
    assert snap_compare(fixture_app("interrupted", instant=True), terminal_size=(80, 24))


def test_failed_run(snap_compare: SnapCompare) -> None:
    assert snap_compare(fixture_app("error", instant=True), terminal_size=(80, 24))


NO_KEY = "docsagent: no API key set, so answering with the offline model (set LLM_API_KEY)"


@pytest.mark.parametrize("size", [(80, 24), (60, 15)])
def test_start_screen_with_the_notice_line(
    snap_compare: SnapCompare, size: tuple[int, int], tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the screen shows the docs and trace folders as given

    async def examples(pilot: Pilot[int]) -> None:
        await examples_shown(pilot, pilot.app)  # type: ignore[arg-type]
        steady_cursor(pilot.app)
        await pilot.pause()

    app = guide_app(tmp_path, notice=NO_KEY, relative=True)
    assert snap_compare(app, terminal_size=size, run_before=examples)


def test_help_screen(snap_compare: SnapCompare, tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)

    async def open_help(pilot: Pilot[int]) -> None:
        await examples_shown(pilot, pilot.app)  # type: ignore[arg-type]
        steady_cursor(pilot.app)
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(
        guide_app(tmp_path, relative=True), terminal_size=(100, 50), run_before=open_help
    )
