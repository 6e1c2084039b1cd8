"""SIGTERM and SIGHUP end docsagent within a second, whatever it is doing, traces closed.

A closed terminal sends SIGHUP; `kill` and service managers send SIGTERM. Either must end
every command (`ask`, `eval`, `replay`, the TUI, and any command to come) with exit code
128 + N, the trace of a run under way ending `cancelled`.

Python runs a signal's handler only between bytecodes of the main thread, so a main thread
blocked in C (SQLite indexing, a read that the kernel retries) would not see it for a long
time. So each signal also wakes a watcher thread (`signal.set_wakeup_fd`): the program has
STOP_GRACE_S to end by itself, then the watcher runs the registered closers (each ends a
trace still open; CLOSE_WAIT_S for all of them, since one can block on a hung endpoint),
hands the terminal back its modes if the TUI had it, and ends the process with 128 + N.

Ending by itself: in the main thread the handler raises `Stopped`, a KeyboardInterrupt, so
every path that ends a run on Ctrl+C ends it the same way, and the command turns it into one
line and 128 + N (`DocsGroup` in `tui.commands.command`, for any command that does not itself). The
TUI takes the signal instead (`handled_by`) and quits as ctrl+q does.

The handlers are process-wide by nature, so their state is too: `install` (from `main`)
makes it; without it (tests calling the commands in-process) the helpers do nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

STOP_SIGNALS = {"SIGTERM": "terminated", "SIGHUP": "hung up"}
"""The signals that stop docsagent, and how its last line names them."""

STOP_GRACE_S = 0.7
"""After a stop signal, how long the program may take to end by itself before it is ended."""

CLOSE_WAIT_S = 0.2
"""Then how long the closers (each ends a trace still open) may take before the process ends."""


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived; raised in the main thread like Ctrl+C's KeyboardInterrupt."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def code(self) -> int:
        """The exit code: 128 + the signal's number."""
        return 128 + self.signum

    @property
    def line(self) -> str:
        """What stopped the program, e.g. "terminated (SIGTERM)"."""
        return describe(self.signum)


def describe(signum: int) -> str:
    """ "terminated (SIGTERM)" or "hung up (SIGHUP)"."""
    name = signal.Signals(signum).name
    return f"{STOP_SIGNALS.get(name, 'stopped')} ({name})"


LEAVE_SCREEN = (
    "\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\x1b[?2004l"
)
"""What a full-screen app ends with: main screen, cursor shown, mouse and paste modes off."""


def _saved_terminal() -> list[Any] | None:
    """The terminal's modes now (None when stdin is not a terminal)."""
    try:
        import termios

        return termios.tcgetattr(0)
    except Exception:  # no termios, or not a terminal
        return None


def _restore_terminal(modes: list[Any]) -> None:
    """Give a terminal the TUI did not get to hand back its modes (if it is still there)."""
    with contextlib.suppress(Exception):
        import termios

        fd = os.open("/dev/tty", os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
        try:
            os.write(fd, LEAVE_SCREEN.encode())
            termios.tcsetattr(fd, termios.TCSANOW, modes)
        finally:
            os.close(fd)


def _numbers() -> list[int]:
    return [getattr(signal, name) for name in STOP_SIGNALS if hasattr(signal, name)]


class _Guard:
    """The handlers, the watcher thread and what they call; one per process."""

    def __init__(self, grace_s: float) -> None:
        self.grace_s = grace_s
        self.signum: int | None = None
        self.targets: list[Callable[[int], None]] = []
        self.closers: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        self._armed = False
        self.terminal: list[Any] | None = None  # the terminal's modes before the TUI

    def handle(self, signum: int, frame: object) -> None:
        """The Python-level handler (main thread): hand the signal on, or raise `Stopped`."""
        if self.signum is not None:
            return  # a second signal must not cut short the first one's clean-up
        self.signum = signum
        if self.targets:
            self.targets[-1](signum)
            return
        raise Stopped(signum)

    def watch(self, fd: int) -> None:
        """The watcher thread: each stop signal's number arrives here at once."""
        numbers = set(_numbers())
        while True:
            try:
                data = os.read(fd, 64)
            except InterruptedError:
                continue
            except OSError:
                return
            if not data:
                return
            for number in data:
                if number in numbers:
                    self.arm(number)

    def arm(self, signum: int) -> None:
        """End the process with 128 + `signum` after the grace period, traces closed first."""
        with self._lock:
            if self._armed:
                return
            self._armed = True
        timer = threading.Timer(self.grace_s, self.end, (signum,))
        timer.daemon = True
        timer.name = "docsagent-stop"
        timer.start()

    def end(self, signum: int) -> None:
        # The closers name the signal (`received`) even when the main thread never ran a
        # handler of ours (blocked in C, or a command's own handler took it and stalled).
        with self._lock:
            if self.signum is None:
                self.signum = signum
        # A closer can block (a session whose model call hangs on a dead endpoint): the
        # closers get CLOSE_WAIT_S in all, on a thread of their own, then the process ends.
        closing = threading.Thread(target=self._close_all, daemon=True, name="docsagent-closing")
        closing.start()
        closing.join(CLOSE_WAIT_S)
        if self.targets and self.terminal is not None:  # the TUI had the terminal
            _restore_terminal(self.terminal)
        os._exit(128 + signum)

    def _close_all(self) -> None:
        for close in list(reversed(self.closers)):
            with contextlib.suppress(Exception):
                close()


_guard: _Guard | None = None


def install(*, grace_s: float = STOP_GRACE_S) -> None:
    """Make SIGTERM and SIGHUP stop this process (from the main thread, before any other)."""
    global _guard
    if _guard is not None or threading.current_thread() is not threading.main_thread():
        return
    guard = _Guard(grace_s)
    guard.terminal = _saved_terminal()
    for number in _numbers():
        signal.signal(number, guard.handle)
    _guard = guard
    if os.name != "posix":  # no SIGHUP, and the wakeup fd must be a socket: handlers only
        return
    read, write = os.pipe()
    os.set_blocking(write, False)
    signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    watcher = threading.Thread(target=guard.watch, args=(read,), daemon=True)
    watcher.name = "docsagent-signals"
    watcher.start()


def received() -> int | None:
    """The stop signal received so far, if any."""
    return _guard.signum if _guard is not None else None


INTERRUPTED = 130
"""The exit code of a command stopped by Ctrl+C."""


def exit_if_stopped(code: int | str | None) -> None:
    """After a stop signal (or Ctrl+C: exit `code` 130), end the process now, output flushed.

    The command has closed its traces; the interpreter's own teardown (collecting what
    64 eval runs left, say) can take seconds, so it is skipped.
    """
    signum = received()
    if signum is not None:
        status = 128 + signum
    elif code == INTERRUPTED:
        status = INTERRUPTED
    else:
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


def exit_code(exc: BaseException, default: int) -> int:
    """128 + N for a `Stopped`, else `default` (Ctrl+C's code, say)."""
    return exc.code if isinstance(exc, Stopped) else default


@contextlib.contextmanager
def closing(close: Callable[[], None]) -> Iterator[None]:
    """Within the block, a stop that outlasts the grace period calls `close` (a trace's end)."""
    guard = _guard
    if guard is None:
        yield
        return
    guard.closers.append(close)
    try:
        yield
    finally:
        guard.closers.remove(close)


@contextlib.contextmanager
def handled_by(target: Callable[[int], None]) -> Iterator[None]:
    """Within the block a stop signal calls `target(signum)` in the main thread, not raising."""
    guard = _guard
    if guard is None:
        yield
        return
    guard.targets.append(target)
    try:
        yield
    finally:
        guard.targets.remove(target)


def on_running_loop(callback: Callable[[int], None]) -> Callable[[int], None]:
    """A `handled_by` target that calls `callback` soon on the asyncio loop running now.

    With no loop running (before the app starts, after it ends) it raises `Stopped`.
    """

    import asyncio  # here, not at the top: `docsagent --help` does not pay for it

    def target(signum: int) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise Stopped(signum) from None
        loop.call_soon_threadsafe(callback, signum)

    return target
