"""The search index brought up to date on a thread of its own, its progress posted as messages."""

from __future__ import annotations

import threading
from collections.abc import Callable

from textual.message import Message

from agent import DocsIndex
from tui.messages import IndexProgressed, IndexReady


class _Closing(Exception):
    """Raised in the indexing thread when the screen goes away."""


class IndexPreparation:
    """Prepares `index` on a daemon thread: `IndexProgressed` at each new percent, then
    `IndexReady` with the notice and the example questions; `stop` ends it at its next file.

    A search waits for the index; the screen shows the progress from the messages.
    """

    def __init__(self, index: DocsIndex, post: Callable[[Message], object]) -> None:
        self._index = index
        self._post = post
        self._stop = threading.Event()
        self._shown = -1  # the percent posted last

    def start(self) -> None:
        """Start indexing; a daemon thread, as the run's: quitting does not wait for it."""
        threading.Thread(target=self._prepare, name="docsagent-index", daemon=True).start()

    def stop(self) -> None:
        """Give up at the next file (the app is quitting: the update rolls back)."""
        self._stop.set()

    def _progress(self, done: int, total: int) -> None:
        if self._stop.is_set():
            raise _Closing
        if done * 100 // total != self._shown:
            self._shown = done * 100 // total
            self._post(IndexProgressed(done, total))

    def _prepare(self) -> None:
        examples: tuple[str, ...] = ()
        try:
            report = self._index.prepare(self._progress)
            notice = "; ".join(line for line in (report.notice, report.skipped_line) if line)
            examples = tuple(self._index.example_questions())
        except _Closing:
            return
        except Exception as exc:  # a bug below us: one line, and searches will say more
            notice = f"the search index failed: {type(exc).__name__}: {exc}"
        self._post(IndexReady(notice, examples))
