"""The terminal driver: Textual's, except that quitting does not wait for the input thread.

Textual's input thread polls the terminal every 0.1 s, and after it is told to stop it
polls once more; the driver waits for it, so every quit paid 0.1 to 0.2 s (most of what
ctrl+q took: tests/bench/bench_quit.py). When the app is exiting, the thread is told to
stop and left to end by itself at its next poll: nothing reads its input any more, and
the process ends right after the app (`tui.app`). Suspending the app (to run an editor)
still waits for it, as the thread must be gone before input resumes.

Imported only on a platform whose driver is Textual's `LinuxDriver`.
"""

from __future__ import annotations

from textual.drivers.linux_driver import LinuxDriver


class QuickExitDriver(LinuxDriver):
    """`LinuxDriver`, but stopping input on exit does not wait for the input thread."""

    def disable_input(self) -> None:
        """Stop taking input; on exit, without waiting for the input thread's last poll."""
        if not getattr(self._app, "_exit", False) or self.exit_event.is_set():
            super().disable_input()
            return
        self._key_thread = None  # so Textual's own method does not join it
        super().disable_input()
        self.exit_event.set()  # Textual clears it for a thread to come; none will
