"""`docsagent index PATH...`: build or refresh docs folders' search indexes ahead, with a
progress bar; and the same progress for `docsagent mcp`, which indexes while it serves.

On a terminal the bar is one line rewritten in place; elsewhere (an MCP client's log) a
line every tenth of the way, once indexing has taken a second, so a small folder writes
only its summary.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO, cast

from agent import DocsContext, IndexReport
from tui.terminal import visible

BAR_WIDTH = 24
QUIET_S = 1.0  # off a terminal, no progress lines for an index built faster than this


def folder_bytes(docs: DocsContext) -> int:
    """The bytes of the folder's docs, as the index will read them."""
    total = 0
    for rel in docs.corpus.paths():
        try:
            total += os.stat(docs.corpus.file(rel)).st_size
        except OSError:
            continue
    return total


class IndexBar:
    """Indexing progress on `err`: files done of all, the folder's MB, seconds so far."""

    def __init__(
        self,
        err: TextIO,
        *,
        label: str,
        size: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.err, self.label, self.size, self.clock = err, label, size, clock
        self.live = err.isatty()
        self.began = clock()
        self._shown = -1  # the last tenth (off a terminal) or percent (on one) written

    def __call__(self, done: int, total: int) -> None:
        fraction = done / max(total, 1)
        step = int(fraction * (100 if self.live else 10))
        seconds = self.clock() - self.began
        if step == self._shown or (not self.live and seconds < QUIET_S):
            return
        self._shown = step
        filled = int(fraction * BAR_WIDTH)
        bar = "█" * filled + "·" * (BAR_WIDTH - filled)
        line = (
            f"{self.label}: [{bar}] {done:,} of {total:,} files · {self.size / 1e6:.1f} MB · "
            f"{seconds:.1f} s"
        )
        line = visible(line)
        self.err.write(f"\r{line}\x1b[K" if self.live else f"{line}\n")
        self.err.flush()

    def close(self) -> None:
        """Clear the bar's line, if one was written on a terminal."""
        if self.live and self._shown >= 0:
            self.err.write("\r\x1b[K")
            self.err.flush()


def summary(label: str, report: IndexReport, size: int) -> str:
    """One line: what the index holds, what changed, how long it took, where it is."""
    changes = report.changes
    if changes.rebuilt or changes.added or changes.changed or changes.removed:
        what = f"{changes.added:,} added, {changes.changed:,} changed, {changes.removed:,} removed"
    else:
        what = "already up to date"
    where = f"; {report.location}" if report.location is not None else " (in memory)"
    return (
        f"{label}: {report.docs:,} docs ({size / 1e6:.1f} MB), {report.sections:,} sections: "
        f"{what} in {report.seconds:.1f} s{where}"
    )


def build_index(docs: DocsContext, err: TextIO, *, label: str) -> IndexReport:
    """Bring `docs`' index up to date with a progress bar on `err`, then its summary line."""
    size = folder_bytes(docs)
    bar = IndexBar(err, label=label, size=size)
    try:
        report = docs.search_index().prepare(bar)
    finally:
        bar.close()
    err.write(visible(summary(label, report, size)) + "\n")
    if report.notice:
        err.write(visible(f"docsagent: {report.notice}") + "\n")
    err.flush()
    return report


class IndexAhead:
    """The index built on a thread of its own while `docsagent mcp` serves.

    Started by the client's first request after `initialize`, so that reply never shares
    the processor with the build (on 10,000 files it came 1.4 s later when both ran).
    `ready` is set once the index is built, or once building it failed (a search then
    builds it itself).
    """

    def __init__(
        self, folders: Sequence[tuple[DocsContext, str]], err: TextIO | None = None
    ) -> None:
        self.folders = list(folders)  # each doc set's docs, and the label of its progress
        self.err = _Gate(err if err is not None else sys.stderr)
        self.ready = threading.Event()
        self._started = False
        self._lock = threading.Lock()

    def quiet(self) -> None:
        """Print no more progress: the session's last line stays the last one printed."""
        self.err.shut()

    def start(self) -> None:
        """Start building (once; later calls do nothing)."""
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._build, name="docsagent-index", daemon=True).start()

    def _build(self) -> None:
        try:
            for docs, label in self.folders:
                try:
                    build_index(docs, cast(TextIO, self.err), label=label)
                except Exception as exc:  # the server goes on; a search tries again
                    line = f"{label}: indexing failed: {type(exc).__name__}: {exc}"
                    self.err.write(visible(line) + "\n")
        finally:
            self.ready.set()


class _Gate:
    """A stream passing writes on until it is shut; once `shut` returns, none gets through."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._lock = threading.Lock()  # held across the check and the write
        self._shut = False

    def shut(self) -> None:
        with self._lock:
            self._shut = True

    def write(self, text: str) -> int:
        with self._lock:
            return len(text) if self._shut else self.out.write(text)

    def flush(self) -> None:
        with self._lock:
            if not self._shut:
                self.out.flush()

    def isatty(self) -> bool:
        return self.out.isatty()


def index_folders(folders: Sequence[Path]) -> int:
    """`docsagent index PATH...`: each folder's index built or refreshed; the exit code."""
    from agent import ConfigError, open_docs
    from tui.commands.asking import EXIT_OK, EXIT_USAGE, fail, warn
    from tui.commands.options import Options, explain, make_config
    from tui.terminal import Terminal

    terminal, code = Terminal(), EXIT_OK
    for folder in folders:
        try:
            config, _ = make_config(Options(docs=folder))
            docs = open_docs(config)
        except ConfigError as exc:
            warn(terminal, f"docsagent: {explain(exc)}")
            code = EXIT_USAGE
            continue
        label = os.path.abspath(config.docs.expanduser())
        try:
            build_index(docs, sys.stderr, label=label)
        except KeyboardInterrupt:  # Ctrl+C, or SIGTERM or SIGHUP (tui.commands.signals)
            raise fail(f"interrupted while indexing {label}", 130) from None
    return code
