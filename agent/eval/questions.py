"""The question-set format: one JSON object per line, read and checked before a run.

A line holds `question` and optionally `evidence` (`[{path, start, end}]`, the line
ranges that answer it), `must_mention` (terms a right answer contains), `answerable`
(false for a question the docs do not answer), `id`, `base` and `wording` (the
wordings of one base question share its `base`) and `note` (free text, ignored).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from agent.errors import ConfigError
from agent.files import NotRegularFile, open_regular
from agent.tools.corpus import Corpus
from agent.tools.folder import OutsideDocs

KEYS = ("question", "evidence", "must_mention", "answerable", "id", "base", "wording", "note")


@dataclass(frozen=True)
class Evidence:
    """A line range of a doc that answers a question."""

    path: str
    start: int
    end: int

    def overlaps(self, path: str, start: int, end: int) -> bool:
        """Whether the range `path:start-end` shares a line with this one."""
        return path == self.path and start <= self.end and self.start <= end

    def __str__(self) -> str:
        return f"{self.path}:{self.start}-{self.end}"


@dataclass(frozen=True, kw_only=True)
class Question:
    """One question of a set, with what a right answer looks like."""

    question: str
    id: str
    line: int = 0
    evidence: tuple[Evidence, ...] = ()
    must_mention: tuple[str, ...] = ()
    answerable: bool = True
    base: str = ""
    wording: str = ""

    @property
    def group(self) -> str:
        """The base question this is a wording of (itself when it names none)."""
        return self.base or self.id


class _BadLine(ValueError):
    """What is wrong with one line of a question set."""


def _text(data: dict[str, Any], key: str, *, required: bool = False) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise _BadLine(f'"{key}" must be a non-empty string')
    return value.strip()


def _evidence(value: Any) -> tuple[Evidence, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _BadLine('"evidence" must be a list of {"path", "start", "end"} objects')
    ranges = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            raise _BadLine('each "evidence" item needs a "path", a "start" and an "end"')
        path, start, end = item["path"], item.get("start"), item.get("end")
        if (
            not (isinstance(start, int) and isinstance(end, int))
            or isinstance(start, bool)
            or isinstance(end, bool)
            or not 1 <= start <= end <= MAX_LINE_NUMBER
        ):
            raise _BadLine(f'evidence in {path}: "start" and "end" must be lines, start <= end')
        ranges.append(Evidence(path.strip().removeprefix("./"), start, end))
    return tuple(ranges)


def _terms(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(t, str) and t.strip() for t in value):
        raise _BadLine('"must_mention" must be a list of non-empty strings')
    return tuple(t.strip() for t in value)


def parse_question(text: str, line: int) -> Question:
    """One line of a question set; ValueError saying what is wrong with it."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _BadLine(f"not valid JSON ({exc.msg}, column {exc.colno})") from None
    except RecursionError:
        raise _BadLine("not a question: nested too deeply") from None
    except ValueError:  # Python's limit on the digits of an integer
        raise _BadLine("not a question: a number is too long") from None
    if not isinstance(data, dict):
        raise _BadLine('expected a JSON object such as {"question": "..."}')
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise _BadLine(f'unknown key "{unknown[0]}" (keys are: {", ".join(KEYS)})')
    answerable = data.get("answerable", True)
    if not isinstance(answerable, bool):
        raise _BadLine('"answerable" must be true or false')
    question = Question(
        question=_text(data, "question", required=True),
        id=_text(data, "id") or f"line-{line}",
        line=line,
        evidence=_evidence(data.get("evidence")),
        must_mention=_terms(data.get("must_mention")),
        answerable=answerable,
        base=_text(data, "base"),
        wording=_text(data, "wording"),
    )
    if not answerable and (question.evidence or question.must_mention):
        raise _BadLine('an unanswerable question has no "evidence" or "must_mention"')
    return question


MAX_LINE_BYTES = 2**20
"""The longest question line read (1 MiB); a longer one is not a question."""

MAX_LINE_NUMBER = 10**9
"""Evidence past this line number is not a line of any doc."""


def _open_regular(file: Path) -> IO[bytes]:
    """`file` opened for reading if it is a regular file (a FIFO would block, a device
    never end); ConfigError otherwise."""
    try:
        return open_regular(file)
    except NotRegularFile as exc:
        if exc.folder:
            raise ConfigError(f"{file} is a folder, not a question file") from None
        raise ConfigError(f"{file} is not a regular file, so not a question file") from None
    except (FileNotFoundError, NotADirectoryError):
        raise ConfigError(f"no question file at {file}") from None
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"cannot read the question file {file}: {reason}") from None


def _lines(file: Path) -> Iterator[tuple[int, str]]:
    """The file's lines with their numbers, one at a time, each at most MAX_LINE_BYTES."""
    with _open_regular(file) as stream:
        number = 0
        while raw := stream.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise ConfigError(
                    f"{file}: line {number} is longer than {MAX_LINE_BYTES // 2**20} MiB, "
                    "so not a question"
                )
            try:
                yield number, raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise ConfigError(f"{file}: line {number} is not UTF-8 text") from None


def load_questions(path: Path | str) -> list[Question]:
    """The questions of a JSONL file; ConfigError naming the file and line of a problem."""
    file = Path(path)
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for number, text in _lines(file):
        if not text.strip():
            continue
        try:
            question = parse_question(text, number)
        except _BadLine as exc:
            raise ConfigError(f"{file}: line {number}: {exc}") from None
        if question.id in seen:
            raise ConfigError(
                f'{file}: line {number}: the id "{question.id}" is already used '
                f"on line {seen[question.id]}"
            )
        seen[question.id] = number
        questions.append(question)
    if not questions:
        raise ConfigError(f"no questions in {file}: expected one JSON object per line")
    return questions


def evidence_problems(questions: list[Question], corpus: Corpus) -> list[str]:
    """Each evidence range that is not a doc's lines, as `line N: path:a-b: why`."""
    problems = []
    for question in questions:
        for evidence in question.evidence:
            try:
                lines = corpus.line_count(corpus.resolve(evidence.path))
            except OutsideDocs as exc:
                problems.append(f"line {question.line}: evidence {evidence}: {exc}")
                continue
            if evidence.end > lines:
                problems.append(
                    f"line {question.line}: evidence {evidence} runs past the end of "
                    f"{evidence.path} ({lines} lines)"
                )
    return problems
