"""View state and the pure reducer that folds core events into it.

The live app and replay both call `reduce(state, event)` for every event, so a
replayed trace ends in exactly the state the live run ended in. The state keeps
everything (full tool results, every entry); the widgets decide how much to mount.

Reducing costs O(1) per event however long the run: the entries are a `Log` and a
turn's text is `TextParts`, which grow without copying what came before and share it
with earlier states (replay keeps checkpoints of those). An entry that did not change
is the same object in the next state, so the view can skip it by identity.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Literal

from agent import (
    ContextCompacted,
    Event,
    Message,
    MessageAppended,
    ModelNotice,
    ModelRequested,
    RetryScheduled,
    RunFinished,
    RunStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    Totals,
    Usage,
    find_citations,
    is_served,
    run_outcome,
)
from tui.outcomes import ending_notice
from tui.persistent import Log, TextParts
from tui.transcript.entries import Card, Entry, NoticeEntry, SystemEntry, TurnEntry, UserEntry

RunState = Literal[
    "idle",
    "thinking",
    "running tool",
    "answered",
    "truncated",
    "empty",
    "declined",
    "read_nothing",
    "cancelled",
    "error",
    "max_steps",
    "budget",
    "repeated",
    "disconnected",
    "ended",
    "interrupted",
]


@dataclass(frozen=True)
class ViewState:
    """Everything the screen shows, derived from events only."""

    entries: Log[Entry] = Log()
    run: RunState = "idle"
    question: str = ""
    model: str = ""
    docs: str = ""
    max_steps: int = 0
    totals: Totals = field(default_factory=Totals)  # steps, tool calls, tokens: the core's fold
    elapsed_s: float | None = None
    answer: str | None = None
    error: str | None = None
    runs: int = 0
    results: Log[ToolCallFinished] = Log()
    """The run's tool results: what it read, for checking the answer's citations."""
    compacted: int = 0
    """Tool results of the run's context replaced by stubs so far."""
    tokens_saved: int = 0
    """Prompt tokens those stubs saved (an estimate)."""
    calls_running: int = 0
    """Tool calls started and not yet finished."""
    tool: str = ""
    """The tool of the call started last."""

    @property
    def busy(self) -> bool:
        return self.run in ("thinking", "running tool")

    @property
    def served(self) -> bool:
        """Whether this is a `docsagent mcp` session: an outside client's look-ups, no model."""
        return is_served(self.model, self.max_steps)

    @property
    def step(self) -> int:
        return self.totals.steps

    @property
    def tool_calls(self) -> int:
        return self.totals.tool_calls

    @property
    def usage(self) -> Usage:
        return self.totals.usage

    @property
    def cost_usd(self) -> float | None:
        return self.totals.cost_usd

    @property
    def repeats(self) -> int:
        return self.totals.repeats

    @property
    def last_answer(self) -> str | None:
        """The newest answer on screen, also after a later run ended without one."""
        for index in range(len(self.entries) - 1, -1, -1):
            entry = self.entries[index]
            if isinstance(entry, TurnEntry) and entry.answer:
                return entry.text
        return None


def reduce(state: ViewState, event: Event) -> ViewState:
    """The state after `event`; never mutates `state`."""
    totals = state.totals.add(event)
    if totals is not state.totals:
        state = replace(state, totals=totals)
    if isinstance(event, RunStarted):
        return _run_started(state, event)
    if isinstance(event, MessageAppended):
        return _message(state, event)
    if isinstance(event, ModelRequested):
        return replace(state, run="thinking")
    if isinstance(event, TextDelta):
        turn = _open_turn(state, event.step)
        return _set_turn(state, replace(turn, body=turn.body + event.text))
    if isinstance(event, ModelNotice):
        return _add(state, NoticeEntry(event.text, "warning"))
    if isinstance(event, RetryScheduled):
        text = f"retry {event.attempt} in {event.delay_s:g} s: {event.reason}"
        return _add(state, NoticeEntry(text, "warning"))
    if isinstance(event, ToolCallStarted):
        card = Card(event.tool_call_id, event.name, event.arguments)
        turn = _open_turn(state, event.step)
        if not any(c.call_id == card.call_id for c in turn.cards):
            turn = replace(turn, cards=(*turn.cards, card))
        running = state.calls_running + 1
        state = replace(state, run="running tool", calls_running=running, tool=event.name)
        return _set_turn(state, turn)
    if isinstance(event, ToolCallFinished):
        running = max(state.calls_running - 1, 0)
        # A served session waits for its client's next call: no model is about to be asked.
        idle = state.served and not running and state.run == "running tool"
        state = replace(
            state,
            results=state.results.append(event),
            calls_running=running,
            run="idle" if idle else state.run,
        )
        return _tool_finished(state, event)
    if isinstance(event, ContextCompacted):
        return _compacted(state, event)
    if isinstance(event, RunFinished):
        return _run_finished(state, event)
    return state


def reduce_all(events: Iterable[Event], state: ViewState | None = None) -> ViewState:
    """Fold many events, starting from `state` (or an empty view).

    A run of text deltas of one step is folded as one delta of their joined text: the
    same view, at the cost of one event (a stream of a million pieces replays in a second).
    """
    state = state if state is not None else ViewState()
    texts: list[str] = []
    step = 0
    for event in events:
        if isinstance(event, TextDelta) and (event.step == step or not texts):
            step = event.step
            texts.append(event.text)
            continue
        if texts:
            state = reduce(state, TextDelta(step=step, text="".join(texts)))
            texts.clear()
        if isinstance(event, TextDelta):
            step = event.step
            texts.append(event.text)
        else:
            state = reduce(state, event)
    if texts:
        state = reduce(state, TextDelta(step=step, text="".join(texts)))
    return state


def _run_started(state: ViewState, event: RunStarted) -> ViewState:
    entries = state.entries
    if event.history and not entries:
        entries = Log(_earlier_turns(event.history))
    served = is_served(event.model, event.max_steps)  # no model to think
    return replace(
        state,
        entries=entries,
        run="idle" if served else "thinking",
        question=event.question,
        model=event.model,
        docs=event.docs,
        max_steps=event.max_steps,
        elapsed_s=None,
        answer=None,
        error=None,
        runs=state.runs + 1,
        results=Log(),
        compacted=0,
        tokens_saved=0,
        calls_running=0,
    )


def _earlier_turns(history: tuple[Message, ...]) -> list[Entry]:
    """A replayed follow-up's earlier questions and answers (its trace has no events for them)."""
    questions = sum(1 for m in history if m.role == "user")
    earlier = f"{questions} earlier question{'s' if questions != 1 else ''}"
    entries: list[Entry] = [NoticeEntry(f"continues a conversation of {earlier}")]
    for message in history:
        if message.role == "system":
            entries.append(SystemEntry(message.content or ""))
        elif message.role == "user":
            entries.append(UserEntry(message.content or ""))
        elif message.role == "assistant" and message.content and not message.tool_calls:
            entries.append(TurnEntry(0, TextParts(message.content), streaming=False, answer=True))
    return entries


def _message(state: ViewState, event: MessageAppended) -> ViewState:
    message = event.message
    if message.role == "system":
        return _add(state, SystemEntry(message.content or ""))
    if message.role == "user":
        return _add(state, UserEntry(message.content or ""))
    if message.role == "assistant":
        turn = _open_turn(state, event.step)
        cards = {c.call_id: c for c in turn.cards}
        merged = tuple(
            cards.get(call.id) or Card(call.id, call.name, call.arguments)
            for call in message.tool_calls
        )
        extra = tuple(c for c in turn.cards if c.call_id not in {m.call_id for m in merged})
        body = TextParts(message.content) if message.content else turn.body
        whole = replace(turn, body=body, cards=merged + extra, streaming=False)
        return _set_turn(state, whole)
    return state  # tool messages: the cards already hold the whole result


def _tool_finished(state: ViewState, event: ToolCallFinished) -> ViewState:
    finished = Card(
        event.tool_call_id,
        event.name,
        "",
        event.output,
        event.error,
        event.duration_s,
        event.repeat_of,
    )
    for index in range(len(state.entries) - 1, -1, -1):
        entry = state.entries[index]
        if isinstance(entry, TurnEntry) and entry.step == event.step:
            cards = tuple(
                replace(finished, arguments=c.arguments) if c.call_id == event.tool_call_id else c
                for c in entry.cards
            )
            if not any(c.call_id == event.tool_call_id for c in entry.cards):
                cards = (*cards, finished)
            turn = replace(entry, cards=cards)
            return replace(state, entries=state.entries.with_item(index, turn))
        if not isinstance(entry, (TurnEntry, NoticeEntry)):
            break
    return _set_turn(state, TurnEntry(event.step, cards=(finished,)))


def _run_finished(state: ViewState, event: RunFinished) -> ViewState:
    stats = event.stats
    state = replace(
        state,
        run=event.stop_reason,
        elapsed_s=stats.elapsed_s,
        answer=event.answer,
        error=event.error,
    )
    last = state.entries[-1] if state.entries else None
    if isinstance(last, TurnEntry) and (last.streaming or any(c.running for c in last.cards)):
        # A cancel does not wait for the call in flight: its card ends without a result.
        state = _set_turn(
            state, _closed(last, "(no result: the run ended before this call finished)")
        )
        last = state.entries[-1]
    if event.stop_reason == "answered" and event.answer is not None:
        # Only the run's events are at hand (a replay may have no docs), so this checks
        # what was read, not whether the lines exist today: that is `docsagent rerun`'s work.
        citations = find_citations(event.answer, None, state.results)
        unread = tuple(c.label for c in citations if not c.read)
        pages = tuple(c.shown for c in citations if c.page)
        outcome = run_outcome(event, citations)
        state = replace(state, run=outcome)
        if isinstance(last, TurnEntry) and not last.cards and last.text == event.answer:
            done = replace(
                last, answer=True, partial=False, unread=unread, pages=pages, outcome=outcome
            )
            return _set_turn(state, done)
        answer = TurnEntry(
            stats.steps,
            TextParts(event.answer),
            streaming=False,
            answer=True,
            unread=unread,
            pages=pages,
            outcome=outcome,
        )
        return _add(state, answer)
    return _add(state, NoticeEntry(*ending_notice(event.stop_reason, event.error)))


def _compacted(state: ViewState, event: ContextCompacted) -> ViewState:
    """Count the stubs and say in the transcript what was shortened."""
    count = len(event.stubs)
    state = replace(
        state,
        compacted=state.compacted + count,
        tokens_saved=state.tokens_saved + event.tokens_saved,
    )
    return _add(state, NoticeEntry(compaction_note(event)))


def compaction_note(event: ContextCompacted, shown: int = 3) -> str:
    """The transcript line for a shortening: `context shortened before step 7: 3 earlier
    results replaced by stubs (≈−2,400 tok): read a.md:1-80 at step 1; …` (at most `shown`)."""
    count = len(event.stubs)
    firsts = [stub.partition("\n")[0] for stub in event.stubs[:shown]]  # a cut result's head
    what = [first.strip("[]").removesuffix(" — shortened") for first in firsts]
    more = f"; {count - shown} more" if count > shown else ""
    results = f"{count} earlier result{'s' if count != 1 else ''}"
    when = f"before step {event.step}" if event.step else "before the first step"  # follow-up
    return (
        f"context shortened {when}: {results} replaced by "
        f"{'stubs' if count != 1 else 'a stub'} "
        f"(≈−{event.tokens_saved:,} tok): {'; '.join(what)}{more}"
    )


def _add(state: ViewState, entry: Entry) -> ViewState:
    return replace(state, entries=state.entries.append(entry))


def _open_turn(state: ViewState, step: int) -> TurnEntry:
    """The turn of `step` if it is the last entry, else a new one."""
    last = state.entries[-1] if state.entries else None
    if isinstance(last, TurnEntry) and last.step == step and not last.answer:
        return last
    return TurnEntry(step)


def _set_turn(state: ViewState, turn: TurnEntry) -> ViewState:
    """Replace the last entry with `turn` if it is that step's turn, else append it."""
    last = state.entries[-1] if state.entries else None
    if isinstance(last, TurnEntry) and last.step == turn.step and not last.answer:
        return replace(state, entries=state.entries.with_last(turn))
    return _add(state, turn)


def _closed(turn: TurnEntry, note: str) -> TurnEntry:
    """The turn done streaming, its unfinished cards ended with `note` as an error.

    Text without tool calls that is not the answer is a reply cut short, whether it was
    still streaming or had arrived whole before the run's final event: it is shown as
    Markdown, as the answer it was becoming would have been.
    """
    cards = tuple(replace(c, output=note, error=True) if c.running else c for c in turn.cards)
    partial = turn.partial or (bool(turn.body) and not turn.cards and not turn.answer)
    return replace(turn, streaming=False, cards=cards, partial=partial)


def cut_short(state: ViewState) -> ViewState:
    """The view at the end of a trace that stops without its final event."""
    note = "(no result: the trace ends before this call finished)"
    entries = Log(
        _closed(entry, note) if isinstance(entry, TurnEntry) else entry for entry in state.entries
    )
    ending = NoticeEntry(*ending_notice("interrupted", None))
    return replace(state, run="interrupted", entries=entries.append(ending))
