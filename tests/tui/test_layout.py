"""The transcript's layout on its own: entries to lines at a width, without an app."""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from rich.console import Console, RenderableType
from rich.markdown import Markdown
from rich.style import Style
from rich.text import Text

from agent.events import (
    Event,
    MessageAppended,
    ModelRequested,
    RunFinished,
    RunStarted,
    RunStats,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
)
from agent.messages import system, user
from tests.tui.conftest import plain
from tui.state import ViewState, reduce
from tui.transcript.model import TranscriptModel
from tui.transcript.pieces import Line, MarkdownChunk, Pen, PlainChunk
from tui.transcript.plain import wrap

WIDTH = 60


@dataclass(frozen=True)
class CountingPen(Pen):
    """A pen that notes what it draws (the renderable's class)."""

    drawn: list[str] = field(default_factory=list)

    def render(
        self, renderable: RenderableType, width: int, *, style: Style | None = None
    ) -> list[Line]:
        self.drawn.append(type(renderable).__name__)
        return super().render(renderable, width, style=style)


def layout(cache_lines: int = 3_000) -> TranscriptModel:
    console = Console(file=io.StringIO(), width=WIDTH, color_system=None)
    made = TranscriptModel(CountingPen(console, console.options), cache_lines=cache_lines)
    made.layout.set_width(WIDTH)
    return made


def drawn(made: TranscriptModel) -> list[str]:
    pen = made.layout.pen
    assert isinstance(pen, CountingPen)
    return pen.drawn


def text(made: TranscriptModel, start: int = 0, end: int | None = None) -> list[str]:
    end = made.layout.height if end is None else end
    return ["".join(s.text for s in line).rstrip() for line in made.layout.lines(start, end)]


def run_events(steps: int, *, answer: str = "All done.") -> list[Event]:
    """A run of `steps` steps, each streaming a little text, then one tool call."""
    events: list[Event] = [
        RunStarted(question="q", model="m", max_steps=steps + 1),
        MessageAppended(step=0, message=system("prompt")),
        MessageAppended(step=0, message=user("q")),
    ]
    for step in range(1, steps + 1):
        events += [
            ModelRequested(step=step, n_messages=step),
            TextDelta(step=step, text=f"step {step}"),
            TextDelta(step=step, text=" thinks"),
            ToolCallStarted(step=step, tool_call_id=f"c{step}", name="list_docs", arguments="{}"),
            ToolCallFinished(
                step=step,
                tool_call_id=f"c{step}",
                name="list_docs",
                output=f"result {step}",
                error=False,
                duration_s=0.01,
            ),
        ]
    events += [
        ModelRequested(step=steps + 1, n_messages=steps + 1),
        TextDelta(step=steps + 1, text=answer),
        RunFinished(
            stop_reason="answered", answer=answer, stats=RunStats(steps=steps + 1, tool_calls=steps)
        ),
    ]
    return events


def states(events: Sequence[Event]) -> Iterator[ViewState]:
    state = ViewState()
    for event in events:
        state = reduce(state, event)
        yield state


def final(events: Sequence[Event]) -> ViewState:
    return list(states(events))[-1]


def test_a_run_is_laid_out_as_a_user_reads_it() -> None:
    made = layout()
    made.update(final(run_events(1)).entries)
    assert made.layout.measure(10**9)
    assert text(made) == [
        "system prompt",
        "",
        "you q",
        "",
        "assistant · step 1  …",
        "step 1 thinks",
        "  │ ▸ list_docs()  10 ms",
        "  │   result 1",
        "",
        "▌ assistant · step 2",
        "▌ All done.",
        "▌ declined: the answer cites none of the docs (they do not",
        "▌ seem to cover this)",
    ]


def test_a_line_number_finds_its_entry_and_every_entry_is_reachable() -> None:
    made = layout()
    entries = final(run_events(50)).entries
    made.update(entries)
    made.layout.measure(10**9)
    seen = set()
    for y in range(made.layout.height):
        found = made.layout.locate(y)
        assert found is not None
        seen.add(found[0])
    assert seen == set(range(len(entries)))
    assert made.layout.locate(made.layout.height) is None
    assert text(made, made.layout.start(len(entries) - 1))[2] == "▌ All done."


def test_updates_made_event_by_event_end_as_a_fresh_layout() -> None:
    events = run_events(5)
    made = layout()
    for state in states(events):
        first = made.update(state.entries)
        assert first >= len(state.entries) - 2  # only the newest entries changed
        made.layout.measure(10**9)
    fresh = layout()
    fresh.update(final(events).entries)
    fresh.layout.measure(10**9)
    assert text(made) == text(fresh)


def test_a_growing_answer_draws_only_its_last_chunk_again() -> None:
    made = layout()
    state = reduce(ViewState(), MessageAppended(step=0, message=user("q")))
    state = reduce(state, ModelRequested(step=1, n_messages=1))
    paragraph = "word " * 250 + "\n\n"
    for _ in range(4):
        state = reduce(state, TextDelta(step=1, text=paragraph))
    made.update(state.entries)
    made.layout.measure(10**9)
    state = reduce(state, TextDelta(step=1, text="more"))
    made.update(state.entries)
    made.layout.measure(10**9)
    pieces = made.layout.pieces(1)
    drawn(made).clear()
    state = reduce(state, TextDelta(step=1, text=" and more"))
    made.update(state.entries)
    now = made.layout.pieces(1)
    kept = [piece for piece in now if isinstance(piece, MarkdownChunk) and piece in pieces]
    assert len(kept) == 4 and all(any(piece is old for old in pieces) for piece in kept)
    assert [piece for piece in now if piece not in pieces] == [
        MarkdownChunk("more and more", gap=True)
    ]
    assert not made.layout.settled and made.layout.measure(2_000) and made.layout.settled
    assert drawn(made) == ["WarnedMarkdown"]  # the last chunk, no other piece
    assert text(made)[-1] == "more and more"


def test_a_turn_that_turns_out_to_be_the_answer_keeps_its_lines() -> None:
    made = layout()
    state = reduce(ViewState(), MessageAppended(step=0, message=user("q")))
    state = reduce(state, ModelRequested(step=1, n_messages=1))
    answer = "word " * 200 + "\n\nThe end."
    state = reduce(state, TextDelta(step=1, text=answer))
    made.update(state.entries)
    made.layout.measure(10**9)
    text(made)  # every piece drawn
    drawn(made).clear()
    ended = reduce(
        state,
        RunFinished(stop_reason="answered", answer=answer, stats=RunStats(steps=1, tool_calls=0)),
    )
    made.update(ended.entries)
    made.layout.measure(10**9)
    lines = text(made)
    assert lines[3] == "▌ assistant · step 1" and lines[4].startswith("▌ word word")
    assert "▌ The end." in lines
    assert "WarnedMarkdown" not in drawn(made)  # the label and notes drawn, no chunk


def test_drawn_lines_are_kept_for_a_bounded_number_and_drawn_again_when_seen() -> None:
    made = layout(cache_lines=40)
    entries = final(run_events(100)).entries
    made.update(entries)
    made.layout.measure(10**9)
    assert made.layout.kept_lines <= 40
    before = text(made)  # every line, drawn again as it is read
    assert made.layout.kept_lines <= 40
    assert before[4:6] == ["assistant · step 1  …", "step 1 thinks"]
    assert text(made) == before


def test_a_width_change_lays_out_again_and_estimates_until_measured() -> None:
    made = layout()
    made.update(final(run_events(1, answer="word " * 30)).entries)
    made.layout.measure(10**9)
    narrow = made.layout.height
    made.layout.set_width(120)
    assert not made.layout.settled
    made.layout.measure(10**9)
    assert made.layout.height < narrow
    assert text(made)[-2].startswith("▌ word word")


def test_a_card_expands_and_its_lines_are_known() -> None:
    made = layout()
    made.update(final(run_events(2)).entries)
    made.layout.measure(10**9)
    assert made.cards() == ["c1", "c2"]
    span = made.card_span("c2")
    assert span is not None and text(made, *span)[0] == "  │ ▸ list_docs()  10 ms"
    made.toggle("c2")
    made.layout.measure(10**9)
    span = made.card_span("c2")
    assert span is not None and text(made, *span)[0] == "  │ ▾ list_docs()  10 ms"
    piece = made.layout.line(span[0])[1]
    assert piece is not None and piece.call_id == "c2"
    card = made.card("c2")
    assert card is not None and card.output == "result 2"


def test_plain_text_is_wrapped_as_rich_wraps_it() -> None:
    made = layout()
    pen = made.layout.pen
    samples = [
        "short\n\ttabbed\n",
        "word " * 40 + "\n" + "x" * 130 + " tail\n",
        "héllo 世界 " * 20,
        "  indented  with  doubled  spaces " * 5,
        "\n\n",
        "0123456789 \n" + "x" * 36 + " \n",  # a space just past the width
        ("word " * 40).strip()
        + "\n"
        + "0123456789 abcdefghij 0123456789abcdefghijklmnopqrstuvwxyz0",
        " ".join("x" * n for n in range(1, 30)),  # words of every length up to past the width
    ]
    for sample in samples:
        for width in (9, 10, 37, 60):
            mine = wrap(pen.console, pen.options, sample, width)
            theirs = pen.render(Text(sample), width)
            assert [plain(line) for line in mine] == [plain(line) for line in theirs]
    chunk = PlainChunk(samples[1])
    assert (
        chunk.height(pen, 40)
        == len(chunk.lines(pen, 40))
        == len(wrap(pen.console, pen.options, samples[1], 38))
    )


def test_preparing_a_view_draws_only_the_pieces_in_it() -> None:
    made = layout()
    paragraphs = "".join(f"Paragraph {n}: " + "word " * 220 + "\n\n" for n in range(16))
    made.update(final(run_events(0, answer=paragraphs)).entries)
    made.layout.measure(10**9)
    index = len(made.blocks) - 1
    chunks = [
        start for piece, start, _ in made.layout.placed(index) if isinstance(piece, MarkdownChunk)
    ]
    top = chunks[12] + 1
    assert text(made, top, top + 1)[0].startswith("▌ Paragraph 12")
    made.layout.set_width(WIDTH + 2)  # every piece to draw again
    drawn(made).clear()
    made.layout.prepare(top, 10)
    assert drawn(made) == ["WarnedMarkdown"]  # the 10 lines from the top of paragraph 12, no more


def test_an_answer_cut_in_chunks_is_drawn_as_it_would_be_whole() -> None:
    made = layout()
    unit = (
        "Some prose about timeouts, long enough to wrap at this width, twice over "
        "(see the docs).\n\n## Timeouts\n\nMore prose.\n\n- connect\n- read\n\n"
        "```python\nclient = httpx.Client(timeout=10.0)\n```\n\n"
    )
    answer = unit * 30  # about 6,000 characters: several chunks of Markdown
    made.update(final(run_events(0, answer=answer)).entries)
    made.layout.measure(10**9)
    spans = [
        (start, end)
        for piece, start, end in made.layout.placed(len(made.blocks) - 1)
        if isinstance(piece, MarkdownChunk)
    ]
    assert len(spans) > 3
    drawn_lines = [line[2:] for line in text(made, spans[0][0], spans[-1][1])]  # after the bar
    pen = made.layout.pen
    whole = pen.render(Markdown(answer), WIDTH - 2)
    assert drawn_lines == [plain(line) for line in whole]
