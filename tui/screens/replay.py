"""The replay screen: a saved trace fed through the same reducer as a live run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.timer import Timer
from textual.widgets import Static

from agent import Trace, TraceError, TraceTail, newest_served
from tui.replayer import Replayer, Unit
from tui.screens.base import Command, TraceScreen
from tui.widgets.header_bar import HeaderBar
from tui.widgets.key_footer import KeyFooter
from tui.widgets.notice_bar import NoticeBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.transcript import Transcript

BATCH_GAP_S = 0.02  # events closer than this (after scaling) are shown together
FOLLOW_POLL_S = 0.25  # how often a followed trace is checked for new lines


def _warning(trace: Trace) -> str:
    """What the banner says about a trace that is not whole."""
    if trace.complete:
        return "⚠ the trace's last line is damaged and was left out"
    cut = " and its last line was cut off mid-write" if trace.damaged_tail else ""
    return (
        f"⚠ interrupted run: the trace ends without its final event{cut}; "
        "replayed to its last whole line"
    )


class ReplayScreen(TraceScreen):
    """Plays a `Trace` with its own timing; steps by event, model step, tool call, to the answer."""

    CSS_PATH = "replay.tcss"
    # Priority, so the focused message list does not take them for scrolling.
    BINDINGS = [
        Binding("space", "play_pause", "Play", priority=True),
        Binding("s", "next('step')", "Step", priority=True, tooltip="The next model step, whole"),
        Binding("t", "next('tool')", "Tool", priority=True, tooltip="The next tool call's result"),
        Binding("a", "next('answer')", "Answer", priority=True, tooltip="The answer (the end)"),
        Binding("right,l", "forward", "Event", priority=True, tooltip="One event (a word) forward"),
        Binding("left,h", "back", "Back", priority=True, show=False, tooltip="One event back"),
        Binding(
            "S",
            "previous('step')",
            "Step back",
            priority=True,
            show=False,
            tooltip="One model step back",
        ),
        Binding(
            "T",
            "previous('tool')",
            "Tool back",
            priority=True,
            show=False,
            tooltip="One tool call back",
        ),
        Binding("plus,equals_sign", "faster", "Faster", key_display="+", priority=True, show=False),
        Binding("minus", "slower", "Slower", key_display="-", priority=True, show=False),
        Binding("home", "start", "Start", priority=True, show=False),
        Binding("end", "end", "End", priority=True, show=False),
        Binding("ctrl+y", "copy", "Copy", show=False),
        Binding("ctrl+s", "export", "Export"),
        Binding(
            "q",
            "leave",
            "Quit",
            priority=True,
            show=False,
            tooltip="Quit docsagent (back to the chat when opened from it)",
        ),
        Binding("escape", "close", "Chat"),
    ]

    def __init__(
        self,
        trace: Trace,
        *,
        path: Path,
        speed: float = 1.0,
        instant: bool = False,
        step: bool = False,
        standalone: bool = True,
        follow: TraceTail | None = None,
        sessions: Path | None = None,
    ) -> None:
        super().__init__()
        self.follow = follow  # a trace still being written: shown as it grows
        self.sessions = sessions  # a trace folder: a newer served session there is followed
        self._after = path if follow is not None else None  # sessions up to this one are past
        self.trace = trace
        self.path = path
        whole = trace.complete or follow is not None  # a followed trace is not cut short
        self.replayer = Replayer(trace.events, trace.times, speed=speed, complete=whole)
        self.instant, self.step_mode = instant, step
        self.standalone = standalone
        self.playing = False
        self._timer: Timer | None = None
        self._poller: Timer | None = None

    def compose(self) -> ComposeResult:
        header = self.trace.header
        yield HeaderBar(
            docs=str(header.get("docs", "")), model=str(header.get("model", "")), mode="replay"
        )
        yield NoticeBar()
        if self.follow is None and (not self.trace.complete or self.trace.damaged_tail):
            yield Static(Text(_warning(self.trace)), id="interrupted")
        yield Transcript(id="messages")
        yield StatusBar()
        yield KeyFooter()

    def on_mount(self) -> None:
        if self.follow is not None or self.sessions is not None:
            self._go(self.replayer.total)
            if self.sessions is not None or (self.follow and not self.follow.finished):
                self._poller = self.set_interval(FOLLOW_POLL_S, self._read_on)
        elif self.instant:
            self._go(self.replayer.total)
        elif self.step_mode:
            self._go(0)
        else:
            self._go(0)
            self._play()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "close":
            return not self.standalone
        return True

    async def action_leave(self) -> None:
        """`q`: quit a replay started with `docsagent replay`; from the chat, go back to it,
        so a stray `q` never ends the conversation (ctrl+q still quits)."""
        if self.standalone:
            await self.app.action_quit()
        else:
            self.action_close()

    def _read_on(self) -> None:
        """Follow mode: show the lines written since the last look (at the end, if there);
        with `sessions`, move to a newer session's trace when one starts."""
        if self.sessions is not None and self._newer_session():
            return
        if self.follow is None:
            return
        try:
            events, times = self.follow.read()
        except TraceError as exc:
            self.notices = [*self.notices, f"stopped following: {exc}"]
            events, times = [], []
            self.follow.finished = True
        at_end = self.replayer.position == self.replayer.total
        if events:
            self.replayer.extend(events, times)
        if self.follow.finished and self._poller is not None and self.sessions is None:
            self._poller.stop()
            self._poller = None
        if at_end:
            self._go(self.replayer.total)
        elif events or self.follow.finished:
            self.schedule_render()

    def _newer_session(self) -> bool:
        """Whether a session newer than the one shown has started: if so, follow it instead."""
        assert self.sessions is not None
        newer = newest_served(self.sessions, after=self._after)
        if newer is None:
            return False
        tail = TraceTail(newer)
        try:
            events, times = tail.read()
        except TraceError as exc:
            self.notices = [*self.notices, f"not following {newer.name}: {exc}"]
            self.schedule_render()
            self._after = newer  # not tried again
            return False
        if tail.header is None:  # its first line is still being written
            return False
        if self._poller is not None:
            self._poller.stop()
            self._poller = None
        screen = ReplayScreen(
            Trace(tail.header, events, times),
            path=newer,
            standalone=self.standalone,
            follow=tail,
            sessions=self.sessions,
        )
        self.app.switch_screen(screen)
        return True

    def _go(self, position: int) -> None:
        self.state = self.replayer.seek(position)
        self.schedule_render()

    def _play(self) -> None:
        if self.replayer.position >= self.replayer.total:
            self._go(0)
        self.playing = True
        self._schedule_next()

    def _pause(self) -> None:
        self.playing = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.schedule_render()

    def _schedule_next(self) -> None:
        if self.replayer.position >= self.replayer.total:
            self._pause()
            return
        delay = self.replayer.next_delay()
        self._timer = self.set_timer(max(delay, 0.001), self._advance)

    def _advance(self) -> None:
        if not self.playing:
            return
        self.state = self.replayer.forward()
        while (
            self.replayer.position < self.replayer.total
            and self.replayer.next_delay() < BATCH_GAP_S
        ):
            self.state = self.replayer.forward()
        self.schedule_render()
        self._schedule_next()

    def action_play_pause(self) -> None:
        """Play or pause."""
        if self.playing:
            self._pause()
        else:
            self._play()

    def action_forward(self) -> None:
        """One event forward."""
        self._pause()
        self._go(self.replayer.position + 1)

    def action_next(self, unit: Unit) -> None:
        """Forward to the next step, tool call or the answer."""
        self._pause()
        self._go(self.replayer.next_stop(unit))

    def action_previous(self, unit: Unit) -> None:
        """Back to the previous step or tool call."""
        self._pause()
        self._go(self.replayer.previous_stop(unit))

    def action_back(self) -> None:
        """One event back."""
        self._pause()
        self._go(self.replayer.position - 1)

    def action_faster(self) -> None:
        """Play faster."""
        self.replayer.speed = min(self.replayer.speed * 2, 64.0)
        self.schedule_render()

    def action_slower(self) -> None:
        """Play slower."""
        self.replayer.speed = max(self.replayer.speed / 2, 0.125)
        self.schedule_render()

    def action_start(self) -> None:
        """Jump to the start."""
        self._pause()
        self._go(0)

    def action_end(self) -> None:
        """Jump to the end."""
        self._pause()
        self._go(self.replayer.total)

    def action_export(self) -> None:
        """Export the replayed trace (all of it) as Markdown beside it."""
        self.export_run()

    def export_source(self) -> tuple[Path | None, str]:
        return self.path, ""

    def action_close(self) -> None:
        """Back to the live screen."""
        self._pause()
        self.dismiss()

    def header_extra(self) -> str:
        if self.follow is None and self.sessions is not None:
            return f"waiting for a docsagent mcp session in {self.sessions}"
        if self.follow is not None:
            state = "ended" if self.follow.finished else "following ●"
            return f"{state} · event {self.replayer.position} / {self.replayer.total}"
        sign = "▶" if self.playing else "⏸"
        return (
            f"event {self.replayer.position} / {self.replayer.total} · "
            f"{self.replayer.speed:g}× {sign}"
        )

    def clock(self) -> float | None:
        return self.replayer.time()

    def trace_label(self) -> str | None:
        return str(self.path)

    def where_traces_go(self) -> str:
        return f"This replay plays {self.path}; replaying never writes a trace."

    def commands(self) -> Iterator[Command]:
        yield ("Play/pause", "Play or pause the replay (space)", self.action_play_pause)
        yield ("Next step", "The next model step, whole (s)", lambda: self.action_next("step"))
        yield ("Previous step", "Back one model step (S)", lambda: self.action_previous("step"))
        yield ("Next tool call", "The next call's result (t)", lambda: self.action_next("tool"))
        yield (
            "Previous tool call",
            "Back one tool call (T)",
            lambda: self.action_previous("tool"),
        )
        yield ("Answer", "Jump to the answer, the end (a)", lambda: self.action_next("answer"))
        yield ("Event forward", "One event (a word) forward (right, l)", self.action_forward)
        yield ("Event back", "One event back (left, h)", self.action_back)
        yield ("Faster", "Double the speed (+)", self.action_faster)
        yield ("Slower", "Halve the speed (-)", self.action_slower)
        yield ("Jump to start", "Back to the first event (home)", self.action_start)
        yield ("Jump to end", "The final state (end)", self.action_end)
        yield ("Copy", "Copy the answer or the focused card (ctrl+y)", self.action_copy)
        yield from self.export_commands()
        if not self.standalone:
            yield ("Back to chat", "Close the replay (escape)", self.action_close)
