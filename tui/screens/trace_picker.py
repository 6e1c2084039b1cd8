"""A modal list of recent traces; picking one returns its path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from agent import AgentError, TraceSummary, read_trace, recent_traces
from tui.outcomes import outcome_label
from tui.render import elide_left, shown

DOCS_WIDTH = 32


class TracePicker(ModalScreen[Path | None]):
    """Lists the traces in a folder, newest first; Enter replays, Escape closes."""

    CSS_PATH = "trace_picker.tcss"
    BINDINGS = [Binding("escape", "dismiss_none", "Close")]

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder
        self.traces = recent_traces(folder)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(shown(f"Recent traces in {self.folder}"), id="title")
            if not self.traces:
                yield Label("no traces yet: ask a question first", id="empty")
            options = [
                Option(
                    Text.assemble(
                        shown(trace.question, "bold"), "\n", shown(_details(trace), "dim")
                    ),
                    id=str(index),
                )
                for index, trace in enumerate(self.traces)
            ]
            yield OptionList(*options, id="traces")
            yield Label("Enter replays the trace · Escape closes", id="hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        index = int(event.option.id or 0)
        self.dismiss(self.traces[index].path)

    def action_dismiss_none(self) -> None:
        """Close without picking."""
        self.dismiss(None)


def replay_picked(app: App[Any], path: Path | None) -> None:
    """Replay the trace picked (if any) over the live screen; a trace that cannot be read
    is named in a notification."""
    if path is None:
        return
    from tui.screens.replay import ReplayScreen

    try:
        trace = read_trace(path)
    except AgentError as exc:
        app.notify(str(exc), title="cannot replay", severity="error")
        return
    app.push_screen(ReplayScreen(trace, path=path, standalone=False))


def _details(trace: TraceSummary) -> str:
    """The trace's file, model, docs folder (its end, where runs differ) and how it ended."""
    docs = f" · {_folder(trace.docs, DOCS_WIDTH)}" if trace.docs else ""
    return f"{trace.path.name} · {trace.model}{docs} · {outcome_label(trace.outcome)}"


def _folder(path: str, width: int) -> str:
    """`path` within `width` characters, keeping its last whole parts: `…/corpora/httpx-docs`."""
    if len(path) <= width:
        return path
    parts = path.replace("\\", "/").rstrip("/").split("/")
    kept = parts[-1]
    for part in reversed(parts[:-1]):
        if len(f"…/{part}/{kept}") > width:
            break
        kept = f"{part}/{kept}"
    return elide_left(f"…/{kept}", width)
