"""docsagent's help: the keys of the live view and of replay, the status bar, where traces go."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from tui.keys import KeyRow, key_name, key_rows
from tui.render import shown
from tui.screens.chat import ChatScreen
from tui.screens.replay import ReplayScreen
from tui.widgets.question_input import QuestionInput
from tui.widgets.transcript import Transcript

STATUS_BAR: list[KeyRow] = [
    ("step 2/10", "the model call under way, and the step limit (--max-steps)"),
    ("3 tool calls", "the tools the agent has called for this question"),
    (
        "1,204 in + 96 out = 1,300 tokens",
        "tokens sent to the model and received, in all so far (on a narrow screen "
        "1,204+96=1,300 tok); ≈ means estimated",
    ),
    ("1 repeated call", "calls the model made again with the same arguments (not run again)"),
    ("compacted: 3 results, −2,400 tok", "old tool results shortened to one-line stubs"),
    ("≈$0.0012", "the estimated cost, when the model's prices are known"),
    ("4.2 s", "time since the question was asked"),
    ("…/run.jsonl", "the trace of the latest question"),
]
"""What each part of the status bar says, left to right."""


class HelpScreen(ModalScreen[None]):
    """The keys for asking and for replay, what the status bar counts, where traces go."""

    CSS_PATH = "help.tcss"
    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(self, *, traces: str) -> None:
        super().__init__()
        self.traces = traces

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("docsagent help", id="title")
            with VerticalScroll(id="body"):
                yield Static(self.help_text(), id="text")
            yield Label("Escape closes · ↑/↓ scroll", id="hint")

    def on_mount(self) -> None:
        self.query_one("#body").focus()

    def help_text(self) -> Group:
        """The whole help: a table of keys per section, then where traces go."""
        palette = key_name(self.app.COMMAND_PALETTE_BINDING)
        everywhere = [
            *key_rows(type(self.app)),
            (palette, "Open the command palette: every action by name, and the theme"),
        ]
        asking = [
            ("Enter", "Ask the question typed in the box (a follow-up continues the chat)"),
            *key_rows(QuestionInput, where=" in the box"),
            *key_rows(ChatScreen),
            (
                "Tab",
                "Move the focus from the question box to the conversation "
                "(the cursor on the first tool card in view, if any)",
            ),
            *key_rows(Transcript, where=" in the conversation"),
        ]
        return Group(
            *_section("Everywhere", everywhere),
            *_section("Asking questions", asking),
            *_section("Playing back a run", key_rows(ReplayScreen)),
            *_section("The status bar", STATUS_BAR),
            Text("Traces", "bold underline"),
            shown(self.traces),
        )

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)


def _section(title: str, rows: Sequence[KeyRow]) -> list[RenderableType]:
    """A title and a two-column table; long descriptions wrap beside their keys."""
    table = Table.grid(padding=(0, 2), pad_edge=True)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(ratio=1)
    for keys, what in rows:
        table.add_row(keys, what)
    return [Text(title, "bold underline"), table, Text("")]
