"""The PDF reader's child process from the parent's side: started once for many PDFs.

Starting the child costs more than reading a short PDF (about 0.15 s of CPU for Python
and PDFium; 50 one-page PDFs took 18 s to index the first time), so the PDFs read inside
`batch()` (an index build) share one child, each within its own bounds: the child sets
its CPU limit afresh for each PDF and holds its address space to `Limits.memory`, and
the parent gives each PDF its own deadline. A child that ends mid-PDF (a bomb, a hang)
costs that PDF only; the next one starts a new child. Outside a batch a PDF gets a child
of its own, as before. The protocol: the PDF's length on a line, then its bytes; the
answer's length on a line, then its JSON (`agent.readers.pdfium`).
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from agent.readers.base import NotText


@dataclass(frozen=True)
class Limits:
    """How much of a PDF is read at most, and what its reading may take."""

    pages: int = 10_000
    """Pages of one PDF; a longer one is skipped, named as too big."""
    chars: int = 32_000_000
    """Characters of text (what a gzipped doc may unzip to, in bytes)."""
    marks: int = 10_000
    """Bookmarks of its outline."""
    depth: int = 12
    """Levels of its outline (headings go to six; deeper ones sit at the sixth)."""
    memory: int = 1 << 30
    """Bytes of address space the child reading it may take (a decompression bomb ends it)."""
    cpu_seconds: int = 60
    """CPU seconds the child may take for one PDF; twice as many seconds of wall time
    end it too."""


LIMITS = Limits()

HOME = str(Path(__file__).resolve().parents[2])
"""The folder this docsagent's `agent` package is in."""

CHILD = f"import sys; sys.path.insert(0, {HOME!r}); from agent.readers.pdfium import main; main()"
"""What the child runs: this docsagent's worker, never a module of the same name in the
folder docsagent was started from (`python -m` would look there first)."""

OUT_OF_MEMORY = {signal.SIGABRT, getattr(signal, "SIGKILL", signal.SIGABRT)}
"""How the child ends when it runs out of memory: PDFium aborts when an allocation fails
(measured on a bomb), and a system out of memory kills."""

STDERR_TAIL = 64 * 1024
"""Bytes of what the child wrote to stderr about a PDF read to tell why it ended (its end)."""

_SHARED: ContextVar[Worker | None] = ContextVar("pdf_worker", default=None)
"""The child of the innermost `batch()` around this code, if any: a context variable, so
that a batch is seen only by the code it wraps (an index build in its own thread)."""


@contextmanager
def batch(limits: Limits = LIMITS) -> Iterator[None]:
    """PDFs read inside (with `limits`) share one child process, started on the first."""
    worker = Worker(limits)
    token = _SHARED.set(worker)
    try:
        yield
    except BaseException:
        worker.close(kill=True)  # interrupted: not a moment longer for the PDF it reads
        raise
    finally:
        _SHARED.reset(token)
        worker.close()


def extract(data: bytes, limits: Limits = LIMITS) -> dict[str, Any]:
    """The child's findings for a PDF's bytes (`agent.readers.pdfium`); NotText on an error."""
    shared = _SHARED.get()
    if shared is not None and shared.limits == limits:
        return shared.extract(data)
    worker = Worker(limits)
    try:
        return worker.extract(data)
    finally:
        worker.close()


class Worker:
    """One child reading PDFs in turn, started when first needed and again after it ends."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._child: subprocess.Popen[bytes] | None = None
        self._errors: IO[bytes] | None = None  # the child's stderr, read when it ends
        self._replies: queue.Queue[bytes | None] = queue.Queue()

    def extract(self, data: bytes) -> dict[str, Any]:
        """The child's findings for one PDF; NotText on an error, the child's end among them."""
        child, errors = self._started()
        said = errors.seek(0, 2)  # what the child writes to stderr from here is about this PDF
        try:
            assert child.stdin is not None
            child.stdin.write(b"%d\n" % len(data) + data)
            child.stdin.flush()
            reply = self._replies.get(timeout=2 * self.limits.cpu_seconds)
        except queue.Empty:
            self.close(kill=True)
            raise NotText(f"too slow: more than {self.limits.cpu_seconds} s to read") from None
        except OSError:  # it ended before it read the whole PDF
            reply = None
        if reply is None:
            raise NotText(_ended(*self._ended(said), self.limits))
        return _found(reply)

    def _started(self) -> tuple[subprocess.Popen[bytes], IO[bytes]]:
        """The running child and its stderr file, started now if none runs."""
        if self._child is not None and self._errors is not None:
            return self._child, self._errors
        limits = self.limits
        bounds = (limits.memory, limits.cpu_seconds, limits.pages, limits.chars, limits.marks)
        self._errors = errors = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close)
        self._child = child = subprocess.Popen(
            [sys.executable, "-c", CHILD, *map(str, (*bounds, limits.depth))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
        )
        replies: queue.Queue[bytes | None] = queue.Queue()
        self._replies = replies
        threading.Thread(target=_read_replies, args=(child.stdout, replies), daemon=True).start()
        return child, errors

    def _ended(self, said: int) -> tuple[int, bytes]:
        """The exit code of a child that ended (waited for, and forgotten) and what it
        wrote to stderr from `said` on."""
        child, errors = self._child, self._errors
        code = 0
        if child is not None:
            try:
                code = child.wait(timeout=5)
            except subprocess.TimeoutExpired:  # it closed stdout but lives on: ended here
                child.kill()
                code = child.wait()
        stderr = b""
        if errors is not None:
            end = errors.seek(0, 2)  # it has ended: nothing writes to the file any more
            errors.seek(max(said, end - STDERR_TAIL))
            stderr = errors.read()
        self.close()
        return code, stderr

    def close(self, *, kill: bool = False) -> None:
        """End the child, if one runs: asked to (its stdin closed), or killed."""
        child, errors, self._child, self._errors = self._child, self._errors, None, None
        if child is not None:
            if kill:
                child.kill()
            try:
                if child.stdin is not None:
                    child.stdin.close()
            except OSError:  # it ended with the PDF half written
                pass
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
            if child.stdout is not None:
                child.stdout.close()
        if errors is not None:
            errors.close()


def _read_replies(stdout: IO[bytes] | None, replies: queue.Queue[bytes | None]) -> None:
    """Each reply the child writes, in turn, then None when it ends (its reader thread)."""
    assert stdout is not None
    try:
        while (header := stdout.readline().strip()).isdigit():
            reply = stdout.read(int(header))
            if len(reply) < int(header):
                break
            replies.put(reply)
    except (OSError, ValueError):  # closed under it: the child was ended
        pass
    replies.put(None)


def _found(reply: bytes) -> dict[str, Any]:
    """A reply's findings; NotText for the error it names, or for a reply not understood."""
    try:
        found = json.loads(reply.decode("utf-8", "replace"))
    except ValueError:
        raise NotText("damaged: not a PDF that can be read") from None
    if not isinstance(found, dict) or "error" in found:
        raise NotText(str(found.get("error", "damaged")) if isinstance(found, dict) else "damaged")
    return found


def _ended(code: int, stderr: bytes, limits: Limits) -> str:
    """Why the child ended without an answer, in a skip note's words."""
    if b"MemoryError" in stderr or -code in OUT_OF_MEMORY:
        return f"too big: more than {limits.memory >> 20:,} MB to read"
    if -code == getattr(signal, "SIGXCPU", None):
        return f"too slow: more than {limits.cpu_seconds} s to read"
    if b"No module named 'pypdfium2'" in stderr:
        return "PDF needs pypdfium2: pip install pypdfium2"
    last = stderr.decode("utf-8", "replace").strip().rpartition("\n")[2]
    if code > 0 and last:  # an error of the reader's own, not of the PDF
        return f"the PDF reader failed: {' '.join(last.split())[:120]}"
    return "damaged: not a PDF that can be read"
