"""The terminal driver: quitting does not wait for Textual's input thread; suspending does.

Run in a subprocess: a driver puts signal handlers (SIGTSTP, SIGCONT) in place.
"""

from __future__ import annotations

import subprocess
import sys

STOP_INPUT = """
import asyncio, sys, threading
from tui.app import DocsAgentApp
from tui.driver import QuickExitDriver


class App:  # what the driver reads of its app: whether it is exiting
    _exit = sys.argv[1] == "exit"


async def main() -> None:
    driver = QuickExitDriver(App(), mouse=False)
    release = threading.Event()  # the input thread, between two polls of the terminal
    guard = threading.Timer(30.0, release.set)  # only guards a hang
    guard.start()
    driver._key_thread = threading.Thread(target=release.wait)
    driver._key_thread.start()
    driver.disable_input()
    waited = release.is_set()
    release.set()
    guard.cancel()
    print(DocsAgentApp(lambda: None).driver_class.__name__, waited, driver.exit_event.is_set())


asyncio.run(main())
"""


def stop_input(how: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", STOP_INPUT, how],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_quitting_does_not_wait_for_the_input_thread() -> None:
    # The thread is told to stop (the event stays set) and ends by itself at its next poll.
    assert stop_input("exit") == "QuickExitDriver False True"


def test_suspending_waits_for_the_input_thread() -> None:
    # Input resumes later with a new thread: the old one must be gone, the event clear.
    assert stop_input("suspend") == "QuickExitDriver True False"
