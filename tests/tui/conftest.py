"""Fixtures for the TUI tests: a small docs folder, sessions over scripted models."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.segment import Segment
from textual.app import App
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget

from agent.config import Config, build_agent
from agent.errors import ModelError
from agent.events import (
    Event,
    MessageAppended,
    ModelReplied,
    ModelRequested,
    RunFinished,
    RunStarted,
    RunStats,
    ToolCallFinished,
    ToolCallStarted,
    Usage,
)
from agent.messages import Message, assistant, system, tool_result, user
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.trace import Trace
from tui.screens.chat import ChatScreen
from tui.transcript.pieces import Blank
from tui.widgets.transcript import Transcript

TIMEOUTS = "\n".join(
    ["# Timeouts", "", "httpx times out after 5 seconds by default."]
    + [f"Line {n} about timeouts." for n in range(4, 31)]
)
CLIENTS = "# Clients\n\nUse a Client to reuse connections.\n"

SessionFactory = Callable[..., tuple[Session, ScriptedModel]]


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A docs folder with two small pages."""
    folder = tmp_path / "docs"
    (folder / "advanced").mkdir(parents=True)
    (folder / "advanced" / "timeouts.md").write_text(TIMEOUTS, encoding="utf-8")
    (folder / "clients.md").write_text(CLIENTS, encoding="utf-8")
    return folder


@pytest.fixture
def config(docs: Path, tmp_path: Path) -> Config:
    """A config over `docs` that saves traces under tmp_path."""
    return Config(docs=docs, model="script:test", trace_dir=tmp_path / "traces")


@pytest.fixture
def make_session(config: Config) -> SessionFactory:
    """Build a session over a scripted model: `make_session(turns, stream=..., gate=...)`."""

    def make(
        turns: Sequence[Message | ModelError], **options: object
    ) -> tuple[Session, ScriptedModel]:
        model = ScriptedModel(turns, **options)  # type: ignore[arg-type]
        return Session(build_agent(config, model=model), trace_dir=config.trace_dir), model

    return make


def timeout_script() -> list[Message | ModelError]:
    """Two parallel tool calls (one failing), a read, then an answer."""
    return [
        reply(
            "Let me search.",
            call("grep_docs", {"keyword": "timeout"}),
            call("read_doc", {"path": "missing.md"}),
        ),
        reply(None, call("read_doc", {"path": "advanced/timeouts.md", "start": 1, "end": 30})),
        reply("The default timeout is **5 seconds** (advanced/timeouts.md:3-3)."),
    ]


def big_trace(steps: int) -> Trace:
    """A synthetic trace of `steps` steps, each one tool call with a 10-line result."""
    events: list[Event] = [
        RunStarted(question="q", model="scripted", max_steps=steps, docs="docs"),
        MessageAppended(step=0, message=system("prompt")),
        MessageAppended(step=0, message=user("q")),
    ]
    for step in range(1, steps + 1):
        tool = call("read_doc", {"path": f"p{step}.md"}, id=f"c{step}")
        events += [
            ModelRequested(step=step, n_messages=2 * step),
            ModelReplied(
                step=step,
                usage=Usage(10, 5, True),
                total=Usage(10 * step, 5 * step, True),
                duration_s=0.01,
            ),
            MessageAppended(step=step, message=assistant(None, (tool,))),
            ToolCallStarted(
                step=step, tool_call_id=tool.id, name=tool.name, arguments=tool.arguments
            ),
            ToolCallFinished(
                step=step,
                tool_call_id=tool.id,
                name=tool.name,
                output="\n".join(["x"] * 10),
                error=False,
                duration_s=0.001,
            ),
            MessageAppended(step=step, message=tool_result(tool, "x")),
        ]
    events.append(
        RunFinished(
            stop_reason="max_steps",
            answer=None,
            stats=RunStats(steps=steps, tool_calls=steps),
            error="limit",
        )
    )
    return Trace(
        {"model": "scripted", "docs": "docs"}, events, [0.001 * i for i in range(len(events))]
    )


async def until(pilot: Pilot[Any], check: Callable[[], bool], *, limit_s: float = 60.0) -> None:
    """Let the app handle messages until `check()` holds (the limit only guards a hang)."""
    deadline = time.monotonic() + limit_s
    while not check():
        assert time.monotonic() < deadline, "the app never reached the expected state"
        await pilot.pause()


def chat(app: App[Any]) -> ChatScreen:
    screen = app.screen
    assert isinstance(screen, ChatScreen)
    return screen


async def settle(pilot: Pilot[int], runs: int = 1) -> None:
    """Wait until the screen has shown the end of its `runs`-th run."""
    screen = chat(pilot.app)
    await until(pilot, lambda: screen.state.runs >= runs and not screen.state.busy)
    await pilot.pause()


def rendered(widget: Widget) -> list[str]:
    """The lines `widget` (or, for a container, each of its children) shows, as plain text."""
    if widget.children:
        return [line for child in widget.children for line in rendered(child)]
    width, height = widget.size
    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, width, height))]


def transcript(app: App[Any]) -> Transcript:
    """The screen's transcript (the conversation's entries)."""
    return app.screen.query_one(Transcript)


def plain(line: Sequence[Segment]) -> str:
    return "".join(segment.text for segment in line).rstrip()


def transcript_lines(app: App[Any]) -> list[str]:
    """Every line of the conversation as plain text, on screen or scrolled away."""
    layout = transcript(app).model.layout
    return [plain(line) for line in layout.lines(0, layout.height)]


def entry_texts(app: App[Any]) -> list[str]:
    """The conversation as a user reads it: one item per entry, and one per tool card,
    their lines joined (the bars at their left edge left out)."""
    layout = transcript(app).model.layout
    out: list[str] = []
    for index in range(len(layout)):
        card = True
        for piece, start, end in layout.placed(index):
            lines = [plain(line[len(piece.bar) :]) for line in layout.lines(start, end)]
            if isinstance(piece, Blank):
                continue
            if piece.call_id is not None or card:
                out.append("\n".join(lines))
            else:
                out[-1] += "\n" + "\n".join(lines)
            card = piece.call_id is not None
    return out
