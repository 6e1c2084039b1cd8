"""Long answers through Pilot: keys are taken mid-stream, quitting closes the trace,
and a text past the Markdown limit says where it turns to plain text."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Input

from agent import Config, Delta, Message, Reply, RunFinished, Usage, build_agent, read_trace
from agent.messages import assistant
from agent.session import Session
from tests.tui.conftest import chat, transcript, transcript_lines, until
from tests.tui.test_layout import layout, text
from tui.app import chat_app
from tui.persistent import TextParts
from tui.transcript.chunks import MARKDOWN_CHARS
from tui.transcript.entries import TurnEntry

pytestmark = pytest.mark.asyncio

ANSWER = "".join(f"## Part {n}\n\nSome **words** about part {n}.\n\n" for n in range(1_000))


class HeldModel:
    """Streams the first half of `answer` in small pieces, waits for `go`, then the rest."""

    name = "held"

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.go = threading.Event()
        self._stop = threading.Event()

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, object]],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Delta | Reply]:
        half = len(self.answer) // 2
        for start in range(0, len(self.answer), 7):
            if start >= half:
                while not self.go.wait(0.01):
                    if self._stop.is_set() or (cancel is not None and cancel.is_set()):
                        return
            yield Delta(self.answer[start : start + 7])
        yield Reply(assistant(self.answer), Usage(10, 10, True), "stop")

    def cancel(self) -> None:
        self._stop.set()


def held_app(config: Config) -> tuple[HeldModel, Session]:
    model = HeldModel(ANSWER)
    return model, Session(build_agent(config, model=model), trace_dir=config.trace_dir)


def streamed(app: App[int]) -> str:
    """The text of the newest entry the transcript was given."""
    entries = transcript(app).entries
    last = entries[-1] if entries else None
    return last.text if isinstance(last, TurnEntry) else ""


async def test_keys_are_taken_while_a_long_answer_streams_and_after(config: Config) -> None:
    model, session = held_app(config)
    app = chat_app(session, config, question="tell me everything")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: len(streamed(app)) >= len(ANSWER) // 2)
        box = app.screen.query_one("#question", Input)
        await pilot.press("h", "i")
        assert box.value == "hi" and chat(app).state.busy  # typed while it streams
        model.go.set()
        await until(pilot, lambda: not chat(app).state.busy)
        assert chat(app).state.run == "read_nothing"  # an answer, from a model that read nothing
        view = transcript(app)
        await until(pilot, lambda: view.settled and streamed(app) == ANSWER)
        assert "▌ Some **words** about part 999." in transcript_lines(app)[-8:]  # plain text
        await pilot.press("!")
        assert box.value == "hi!"


async def test_quitting_mid_stream_closes_the_trace(config: Config) -> None:
    _, session = held_app(config)
    app = chat_app(session, config, question="tell me everything")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: len(streamed(app)) >= len(ANSWER) // 2)
        await pilot.press("ctrl+q")
    (path,) = Path(config.trace_dir).glob("*.jsonl")
    trace = read_trace(path)
    final = trace.events[-1]
    assert trace.complete and isinstance(final, RunFinished) and final.stop_reason == "cancelled"


async def test_a_text_past_the_markdown_limit_says_where_it_turns_plain() -> None:
    made = layout()
    made.update([TurnEntry(step=1, body=TextParts(ANSWER), streaming=False, answer=True)])
    made.layout.measure(10**9)
    lines = text(made)
    said = " ".join(lines)
    assert f"past {MARKDOWN_CHARS:,} characters the text is shown as plain text" in said
    # a heading, drawn as one (rich before 15 centres it)
    assert ["▌", "Part", "0"] in [line.split() for line in lines[2:4]]
    assert "▌ ## Part 0" not in lines
    assert "▌ ## Part 999" in lines  # plain text, as written
