"""The Textual app: live questions (`run_tui`) and trace replay (`run_replay`).

`tui.cli` imports this module only inside the commands that open the TUI, so
`docsagent --help` does not import Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterable
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen

from agent import Config, DocsIndex, Session, Trace, build_agent, open_docs
from tui.screens.base import TraceScreen
from tui.screens.chat import ChatScreen
from tui.screens.replay import ReplayScreen
from tui.terminal import visible


class DocsAgentApp(App[int]):
    """The docsagent TUI; `first` builds the screen it opens on (live or replay)."""

    CSS_PATH = "app.tcss"
    TITLE = "docsagent"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]

    def __init__(self, first: Callable[[], Screen[None]], *, notice: str | None = None) -> None:
        super().__init__()
        self._first = first
        self._notice = notice

    def on_mount(self) -> None:
        self._on_stop_signals(self._stop_signalled)
        self.push_screen(self._first())
        if self._notice:
            self.notify(self._notice, timeout=8)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Show a notification, its text as typed: never markup, control characters visible.

        Notifications carry server errors and file paths, so `markup` is ignored: every
        notification of the app (screens and widgets call this one) is plain text.
        """
        super().notify(
            visible(message), title=visible(title), severity=severity, timeout=timeout, markup=False
        )

    def on_unmount(self) -> None:
        self._on_stop_signals(None)

    def _stop_signalled(self, number: int) -> None:
        self.exit(return_code=128 + number)

    def _on_stop_signals(self, handler: Callable[[int], None] | None) -> None:
        """SIGTERM and SIGHUP (the terminal closed) quit as ctrl+q does: a run's trace is closed."""
        loop = asyncio.get_running_loop()
        for name in ("SIGTERM", "SIGHUP"):
            number = getattr(signal, name, None)
            if number is None:
                continue
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                if handler is None:
                    loop.remove_signal_handler(number)
                else:
                    loop.add_signal_handler(number, handler, number)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        if isinstance(screen, TraceScreen):
            for title, help_text, callback in screen.commands():
                yield SystemCommand(title, help_text, callback)
        yield from super().get_system_commands(screen)


def chat_app(
    session: Session,
    config: Config,
    *,
    question: str | None = None,
    notice: str | None = None,
    index: DocsIndex | None = None,
) -> DocsAgentApp:
    """The app on the live screen for `session`; `index` is brought up to date as it opens."""
    mode = "offline" if config.is_offline else ""

    def first() -> Screen[None]:
        return ChatScreen(
            session,
            docs=str(config.docs),
            model=session.agent.model.name,
            mode=mode,
            question=question,
            index=index,
        )

    return DocsAgentApp(first, notice=notice)


def replay_app(
    trace: Trace, *, path: Path, speed: float = 1.0, instant: bool = False, step: bool = False
) -> DocsAgentApp:
    """The app on the replay screen for `trace`."""
    return DocsAgentApp(
        lambda: ReplayScreen(trace, path=path, speed=speed, instant=instant, step=step)
    )


def run_tui(
    config: Config,
    *,
    question: str | None = None,
    notice: str | None = None,
    trace: Path | None = None,
) -> int:
    """Open the TUI on a new conversation; start `question` at once if given.

    `trace` names the first question's trace file; later ones go to the trace folder.
    """
    docs = open_docs(config)
    session = Session(build_agent(config, docs=docs), trace_dir=config.trace_dir, trace_path=trace)
    app = chat_app(session, config, question=question, notice=notice, index=docs.index)
    app.run()
    return app.return_code or 0


def run_replay(
    trace: Trace, *, path: Path, speed: float = 1.0, instant: bool = False, step: bool = False
) -> int:
    """Replay `trace` (read from `path`) in the TUI."""
    replay_app(trace, path=path, speed=speed, instant=instant, step=step).run()
    return 0
