"""The questions asked earlier, recalled with Up and Down in the question box as in a shell.

The history is kept across launches in a small file (one JSON string a line, newest
last). Each question asked rewrites it whole through a temporary file and a rename, so
a crash or a second docsagent never leaves half a file; what another docsagent added in
the meantime is read back first and kept.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent import write_atomic
from tui.statefiles.statefile import StateFileError, read_state

MAX_QUESTIONS = 500
MAX_HISTORY_BYTES = 8 * 2**20
"""A history file larger than this (8 MiB) is not one docsagent wrote; it is left unread."""


class History:
    """Earlier questions, oldest first, and where Up and Down have got to among them.

    `path` is the file that keeps them (None: this launch only). Like a shell, Up from
    the question being typed keeps it as a draft, and Down past the newest brings it back.
    """

    def __init__(self, path: Path | None = None, *, limit: int = MAX_QUESTIONS) -> None:
        self.path = path
        self.limit = limit
        self.notice: str | None = None  # why the file could not be read, if it could not
        self.questions: list[str] = []
        if path is not None:
            try:
                self.questions = _read(path)
            except StateFileError as exc:
                self.notice = f"the question history {path} cannot be used ({exc}); starting empty"
        self._position = len(self.questions)  # len(questions): at the draft
        self._draft = ""

    def add(self, question: str) -> str | None:
        """Remember `question` (not twice in a row); a line for the user if it cannot be saved."""
        self._position, self._draft = len(self.questions), ""
        question = question.strip()
        if not question:
            return None
        kept = self.path is not None and self.notice is None  # a file refused is left alone
        try:
            questions = _read(self.path) if kept else list(self.questions)
        except StateFileError:
            questions = list(self.questions)
        if not questions or questions[-1] != question:
            questions.append(question)
        self.questions = questions[-self.limit :]
        self._position = len(self.questions)
        if self.path is None or not kept:
            return None
        try:
            _write(self.path, self.questions)
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            return f"the question history was not saved: {reason}: {self.path}"
        return None

    def previous(self, current: str) -> str | None:
        """The question before the one shown (`current` kept as the draft); None at the oldest."""
        if self._position == 0:
            return None
        if self._position == len(self.questions):
            self._draft = current
        self._position -= 1
        return self.questions[self._position]

    def next(self) -> str | None:
        """The question after the one shown, or the draft past the newest; None at the draft."""
        if self._position >= len(self.questions):
            return None
        self._position += 1
        if self._position == len(self.questions):
            return self._draft
        return self.questions[self._position]


def _read(path: Path | None) -> list[str]:
    """The questions in `path`; a missing file is an empty history.

    Raises StateFileError when it is not a regular file, or too large, or cannot be read.
    """
    if path is None:
        return []
    data = read_state(path, limit=MAX_HISTORY_BYTES)
    if data is None:
        return []
    questions: list[str] = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            question = json.loads(line)
        except (ValueError, RecursionError):  # too deep, or a number too long, is damage too
            continue  # a damaged line is skipped, the rest still recalled
        if isinstance(question, str) and question.strip():
            questions.append(question)
    return questions


def _write(path: Path, questions: list[str]) -> None:
    """Replace `path` with `questions` at once (mode 0600: the questions are the user's own)."""
    write_atomic(path, "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions))
