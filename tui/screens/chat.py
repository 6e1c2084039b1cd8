"""The live screen: ask questions, watch the run, cancel it, start over."""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Key
from textual.widgets import Input

from agent import DocsIndex, RunFinished, Session, TextDelta
from tui.collector import keep_long_lived as keep_long_lived  # tests import it from here
from tui.conversation import Conversation
from tui.messages import (
    ConversationReset,
    EventsArrived,
    IndexProgressed,
    IndexReady,
    RunBegan,
    RunFailed,
)
from tui.preparation import IndexPreparation
from tui.render import indexing_label
from tui.screens.base import Command, TraceScreen
from tui.state import ViewState
from tui.statefiles.history import History
from tui.widgets.example_line import ExampleLine
from tui.widgets.header_bar import HeaderBar
from tui.widgets.key_footer import KeyFooter
from tui.widgets.notice_bar import NoticeBar
from tui.widgets.question_input import QuestionInput
from tui.widgets.status_bar import StatusBar
from tui.widgets.transcript import Transcript
from tui.widgets.welcome import Welcome

TEXT_REDRAW_S = 0.05  # streamed text is drawn at most this often, however small its pieces
NEW_AFTER_CANCEL = "cancelled the running question; new conversation"


class ChatScreen(TraceScreen):
    """Shows the events of a `Conversation` whose worker thread owns the session.

    The view follows the events only: what it shows is what a replay of the trace shows.
    """

    CSS_PATH = "chat.tcss"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel run"),
        Binding("ctrl+n", "new", "New chat"),
        Binding("ctrl+o", "open_trace", "Traces"),
        Binding("ctrl+y", "copy", "Copy"),
        Binding("ctrl+s", "export", "Export"),
        # Not priority: a key reaches these only once the question box has taken every key
        # typed before it, and passed this one on because it was empty (QuestionInput).
        Binding("1", "example(0)", "Example", show=False),
        Binding("2", "example(1)", "Example", show=False),
        Binding("3", "example(2)", "Example", show=False),
        # Priority, so a focused card or code block does not scroll itself instead; not
        # while typing, where they move the cursor.
        Binding("home", "top", "Top", show=False, priority=True),
        Binding("end", "bottom", "Bottom", show=False, priority=True),
        # Not priority: the focused conversation pages itself; the question box has no use
        # for them, so they page the conversation while a question is typed or streams.
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
    ]

    def __init__(
        self,
        session: Session,
        *,
        docs: str,
        model: str,
        mode: str,
        question: str | None = None,
        index: DocsIndex | None = None,
        history: History | None = None,
    ) -> None:
        super().__init__()
        self.history = history if history is not None else History()
        if self.history.notice:  # its file could not be read: said once, under the header
            self.notices.append(self.history.notice)
        self.conversation = Conversation(session, self.post_message)
        self.trace_dir = session.trace_dir
        self.trace: Path | None = None  # the trace of the latest run
        self.max_steps = session.agent.max_steps
        self.docs, self.model, self.mode = docs, model, mode
        self.question = question
        self.preparation = IndexPreparation(index, self.post_message) if index is not None else None
        self.indexing: tuple[int, int] | None = None  # files done and to do, while indexing
        self._started = 0.0
        self.failure: str | None = None  # why the latest question failed, for the notice line
        self.examples: tuple[str, ...] = ()
        self.reset_note: str | None = None  # a run cancelled by ctrl+n, until the next question
        self.state = ViewState(max_steps=self.max_steps)

    def compose(self) -> ComposeResult:
        yield HeaderBar(docs=self.docs, model=self.model, mode=self.mode)
        yield NoticeBar()
        yield Welcome(docs=self.docs, model=self.model)
        yield Transcript(id="messages")
        yield StatusBar()
        yield QuestionInput(
            placeholder="Ask a question about the docs and press Enter",
            id="question",
            history=self.history,
        )
        yield KeyFooter()

    def on_mount(self) -> None:
        inputs = self.query(Input)
        if not inputs:  # a stop signal quit the app while the screen was being built
            return
        inputs.first().focus()
        self.render_state()
        self.set_interval(0.2, self._tick)
        self.call_after_refresh(keep_long_lived)  # the app itself, once its first frame is up
        self.conversation.start()
        if self.preparation is not None:  # once the first frame is drawn: it does not wait
            self.call_after_refresh(self.preparation.start)
        if self.question:
            self.ask(self.question)

    def on_index_progressed(self, message: IndexProgressed) -> None:
        self.indexing = (message.done, message.total)
        self.schedule_render()

    def on_index_ready(self, message: IndexReady) -> None:
        self.indexing = None
        if message.notice:
            self.notices.append(message.notice)
        self.examples = message.examples
        self.query_one(Welcome).show_examples(self.examples)
        self.schedule_render()

    def header_extra(self) -> str:
        return indexing_label(*self.indexing) if self.indexing else ""

    def standing_notices(self) -> list[str]:
        failure = [f"the last question failed: {self.failure}"] if self.failure else []
        reset = [self.reset_note] if self.reset_note else []
        return [*self.notices, *failure, *reset]

    def render_state(self) -> None:
        super().render_state()
        welcome = not self.state.entries
        self.query_one(Welcome).display = welcome
        self.query_one(Transcript).display = not welcome
        shortcuts = {"?", *(str(n) for n in range(1, len(self.examples) + 1))} if welcome else {"?"}
        self.query_one(QuestionInput).shortcuts = frozenset(shortcuts)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "example":
            (number,) = parameters
            return (
                not self.state.entries and isinstance(number, int) and number < len(self.examples)
            )
        if action in ("top", "bottom"):  # in the question box they move the cursor
            return not isinstance(self.focused, Input)
        return True

    def on_key(self, event: Key) -> None:
        """A character typed with the conversation focused (a card under the cursor) goes to
        the question box, which takes the focus: typing a question never gets lost."""
        if event.is_printable and event.character and isinstance(self.focused, Transcript):
            box = self.query_one("#question", Input)
            box.focus()
            box.insert_text_at_cursor(event.character)
            event.stop()
            event.prevent_default()

    def action_example(self, number: int) -> None:
        """Ask the start screen's example question with that number."""
        self.ask(self.examples[number])

    def on_example_line_picked(self, message: ExampleLine.Picked) -> None:
        self.ask(message.question)

    def stop(self) -> None:
        if self.preparation is not None:
            self.preparation.stop()
        self.conversation.close()  # the worker thread ends and the run's trace is closed

    @on(Input.Submitted, "#question")
    def _submitted(self, event: Input.Submitted) -> None:
        question = event.value.strip()
        if question:
            self.ask(question)

    def ask(self, question: str) -> None:
        """Start a run of `question`, continuing the conversation."""
        if self.state.busy:
            self.notify("a run is in progress: press Escape to cancel it", severity="warning")
            return
        self.query_one(Input).clear()
        self.failure = self.reset_note = None
        problem = self.history.add(question)
        if problem and problem not in self.notices:  # said once; the box still recalls them
            self.notices.append(problem)
        self._started = time.monotonic()
        self.query_one(Transcript).to_bottom()
        self.conversation.ask(question)

    def on_run_began(self, message: RunBegan) -> None:
        self.trace = message.trace

    async def on_events_arrived(self, message: EventsArrived) -> None:
        self.state, events = await self.conversation.reduce(self.state)
        if not events:
            return
        if any(isinstance(event, RunFinished) for event in events):
            self.call_after_refresh(keep_long_lived)
        if all(isinstance(event, TextDelta) for event in events):
            self.schedule_render(within=TEXT_REDRAW_S)
        else:
            self.schedule_render()

    def on_run_failed(self, message: RunFailed) -> None:
        self.failure = message.error
        self.render_state()

    def on_conversation_reset(self, message: ConversationReset) -> None:
        self.reset_note = NEW_AFTER_CANCEL if message.cancelled else None
        self.state = ViewState(max_steps=self.max_steps)
        self.trace = None  # the bar shows the trace folder again, not the last run's file
        self.query_one(Transcript).clear_entries()
        self.render_state()
        self.call_after_refresh(partial(keep_long_lived, thaw=True))

    def action_cancel(self) -> None:
        """Cancel the running question: what it did stays on screen and in its trace."""
        if self.state.busy:
            self.conversation.cancel()

    def action_new(self) -> None:
        """Start a fresh conversation (a running question is cancelled, and the notice says so)."""
        busy = self.state.busy
        self.action_cancel()
        self.conversation.reset(cancelled=busy)
        self.query_one(Input).focus()

    def action_open_trace(self) -> None:
        """Pick a recent trace and replay it."""
        from tui.screens.trace_picker import TracePicker, replay_picked

        self.app.push_screen(TracePicker(self.trace_dir), partial(replay_picked, self.app))

    def action_export(self) -> None:
        """Export the latest run as Markdown beside its trace."""
        self.export_run()

    def export_source(self) -> tuple[Path | None, str]:
        if self.state.busy:
            return None, "a run is in progress: export it once it ends (Escape cancels it)"
        if self.trace is None:
            return None, "nothing to export yet: ask a question first"
        return self.trace, ""

    def _tick(self) -> None:
        if self.state.busy:
            self.render_state()

    def clock(self) -> float | None:
        return time.monotonic() - self._started if self.state.busy else None

    def trace_label(self) -> str | None:
        return str(self.trace) if self.trace is not None else f"traces in {self.trace_dir}"

    def where_traces_go(self) -> str:
        return (
            f"Every question is saved as a trace in {self.trace_dir} as it runs. "
            "ctrl+o lists the recent ones; docsagent replay FILE plays one back."
        )

    def commands(self) -> Iterator[Command]:
        yield ("Ask", "Move to the question box", self.query_one(Input).focus)
        yield ("Cancel run", "Stop the running question (Escape)", self.action_cancel)
        yield ("New conversation", "Forget the earlier turns (ctrl+n)", self.action_new)
        yield ("Open recent trace", "Replay a saved run (ctrl+o)", self.action_open_trace)
        yield ("Copy", "Copy the answer or the focused card (ctrl+y)", self.action_copy)
        yield from self.export_commands()
