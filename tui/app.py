"""The Textual app: live questions (`run_tui`) and trace replay (`run_replay`).

`tui.cli` imports this module only inside the commands that open the TUI, so
`docsagent --help` does not import Textual.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.driver import Driver
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme

from agent import Config, DocsIndex, Session, Trace, TraceTail, build_agent, open_docs
from tui.commands import signals
from tui.screens.base import TraceScreen
from tui.screens.chat import ChatScreen
from tui.screens.help import HelpScreen
from tui.screens.replay import ReplayScreen
from tui.statefiles.history import History
from tui.statefiles.settings import Settings, load_settings, save_settings
from tui.terminal import visible

HELP_TIP = "Show this help (? only when not typing a question)"


class DocsAgentApp(App[int]):
    """The docsagent TUI; `first` builds the screen it opens on (live or replay).

    `notices` hold for the whole session and show under the header; `settings` is the
    file the chosen theme is remembered in (None: nothing is read or saved).
    """

    CSS_PATH = "app.tcss"
    TITLE = "docsagent"
    BINDINGS = [
        Binding("f1", "help", "Help", key_display="F1", priority=True, tooltip=HELP_TIP),
        # Not priority: the question box types `?` unless it is empty (QuestionInput), which
        # it can only know once it has taken the keys typed before (a fast typist, a paste).
        Binding("question_mark", "help", "Help", show=False, tooltip=HELP_TIP),
        Binding(
            "ctrl+q",
            "quit",
            "Quit",
            priority=True,
            tooltip="Quit (a running question is cancelled; its trace is kept)",
        ),
    ]

    def __init__(
        self,
        first: Callable[[], Screen[None]],
        *,
        notices: Sequence[str] = (),
        settings: Path | None = None,
    ) -> None:
        super().__init__()
        self._first = first
        self.notices = list(notices)
        self.settings_path = settings
        self.settings = Settings()

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this terminal; on Linux and macOS, one that quits at once."""
        driver = super().get_driver_class()
        if driver.__module__ == "textual.drivers.linux_driver":
            from tui.driver import QuickExitDriver

            return QuickExitDriver
        return driver

    def on_mount(self) -> None:
        self._load_settings()
        screen = self._first()
        if isinstance(screen, TraceScreen):
            screen.notices[:0] = self.notices
        self.push_screen(screen)

    def _load_settings(self) -> None:
        """Apply the remembered theme, then remember each theme chosen from now on."""
        if self.settings_path is None:
            return
        self.settings, notice = load_settings(self.settings_path)
        if notice:
            self.notices.append(notice)
        theme = self.settings.theme
        if theme is not None and theme in self.available_themes:
            self.theme = theme
        elif theme is not None:
            self.notices.append(f"the theme {theme!r} in {self.settings_path} is not available")
        self.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme: Theme) -> None:
        if self.settings_path is None or theme.name == self.settings.theme:
            return
        self.settings = Settings(theme=theme.name)
        failure = save_settings(self.settings_path, self.settings)
        if failure:
            self.notify(failure, severity="warning")

    def action_help(self) -> None:
        """Show the keys, what the status bar counts and where traces go (again: close it)."""
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
            return
        where = next(
            (
                s.where_traces_go()
                for s in reversed(self.screen_stack)
                if isinstance(s, TraceScreen)
            ),
            "",
        )
        self.push_screen(HelpScreen(traces=where))

    def action_show_help_panel(self) -> None:
        """Textual's key panel is replaced by docsagent's help."""
        self.action_help()

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

    def stop_signalled(self, number: int) -> None:
        """SIGTERM or SIGHUP (the terminal closed): quit as ctrl+q does, exit code 128 + N.

        The traces are closed first, as the terminal may be gone already; `tui.commands.signals`
        ends the process if the shutdown stalls on a terminal that hung up.
        """
        for screen in self.screen_stack:
            if isinstance(screen, TraceScreen):
                screen.stop()
        self.exit(return_code=128 + number)

    def run_until_stopped(self, *, closers: Sequence[Callable[[], None]] = ()) -> int:
        """Run the app; a stop signal quits it. `closers` end traces if the quitting stalls."""
        with contextlib.ExitStack() as stack:
            stack.enter_context(signals.handled_by(signals.on_running_loop(self.stop_signalled)))
            for close in closers:
                stack.enter_context(signals.closing(close))
            self.run()
        return self.return_code or 0

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        if isinstance(screen, TraceScreen):
            for title, help_text, callback in screen.commands():
                yield SystemCommand(title, help_text, callback)
        yield SystemCommand(
            "Keys", "Every key, the status bar, where traces go (F1)", self.action_help
        )
        for command in super().get_system_commands(screen):
            if command.title != "Keys":  # Textual's own panel: ours above replaces it
                yield command


def chat_app(
    session: Session,
    config: Config,
    *,
    question: str | None = None,
    notice: str | None = None,
    index: DocsIndex | None = None,
    settings: Path | None = None,
    history: Path | None = None,
) -> DocsAgentApp:
    """The app on the live screen for `session`; `index` is brought up to date as it opens.

    `notice` (the offline fallback's line, written for stderr) shows under the header.
    `history` is the file of earlier questions (None: they are kept for this launch only).
    """
    mode = "offline" if config.is_offline else ""

    def first() -> Screen[None]:
        return ChatScreen(
            session,
            docs=str(config.docs),
            model=session.agent.model.name,
            mode=mode,
            question=question,
            index=index,
            history=History(history),
        )

    notices = [notice.removeprefix("docsagent: ")] if notice else []
    return DocsAgentApp(first, notices=notices, settings=settings)


def replay_app(
    trace: Trace,
    *,
    path: Path,
    speed: float = 1.0,
    instant: bool = False,
    step: bool = False,
    settings: Path | None = None,
    follow: TraceTail | None = None,
    sessions: Path | None = None,
) -> DocsAgentApp:
    """The app on the replay screen for `trace` (following it as it grows, with `follow`;
    moving to each newer `docsagent mcp` session in the `sessions` folder)."""
    return DocsAgentApp(
        lambda: ReplayScreen(
            trace,
            path=path,
            speed=speed,
            instant=instant,
            step=step,
            follow=follow,
            sessions=sessions,
        ),
        settings=settings,
    )


def run_tui(
    config: Config,
    *,
    question: str | None = None,
    notice: str | None = None,
    trace: Path | None = None,
    replace_trace: bool = False,
    settings: Path | None = None,
    history: Path | None = None,
) -> int:
    """Open the TUI on a new conversation; start `question` at once if given.

    `trace` names the first question's trace file; later ones go to the trace folder.
    `history` is the file that keeps the questions asked, for Up and Down to recall.
    """
    docs = open_docs(config)
    agent = build_agent(config, docs=docs)
    session = Session(
        agent, trace_dir=config.trace_dir, trace_path=trace, replace_trace=replace_trace
    )
    app = chat_app(
        session,
        config,
        question=question,
        notice=notice,
        index=docs.index,
        settings=settings,
        history=history,
    )
    return _ended(app.run_until_stopped(closers=[lambda: session.close(wait_s=0)]))


def _ended(code: int) -> int:
    """End the process now that the app is closed: its traces are, and its terminal restored.

    What is left is the interpreter's teardown (freeing a long session's objects took
    seconds) and the agent's daemon thread, which may still be blocked on a hung endpoint:
    neither is worth the user's wait. Outside the real terminal (tests) it just returns.
    """
    if not sys.stdout.isatty():
        return code
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def run_replay(
    trace: Trace,
    *,
    path: Path,
    speed: float = 1.0,
    instant: bool = False,
    step: bool = False,
    settings: Path | None = None,
    follow: TraceTail | None = None,
    sessions: Path | None = None,
) -> int:
    """Replay `trace` (read from `path`) in the TUI; with `follow`, show it as it grows (and
    move on to newer sessions in `sessions`)."""
    app = replay_app(
        trace,
        path=path,
        speed=speed,
        instant=instant,
        step=step,
        settings=settings,
        follow=follow,
        sessions=sessions,
    )
    return _ended(app.run_until_stopped())
