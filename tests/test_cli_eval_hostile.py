"""`eval` on question files that are not question files: one line, exit 2, at once.

Each gave a traceback (a 5,000-digit number, nesting 100,000 deep, /dev/zero,
/dev/urandom or a link to them), hung (a FIFO) or took minutes (a 50 MB line).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.folders import docs_folder
from tui.cli import app

pytestmark = pytest.mark.usefixtures("cli_env")


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return docs_folder(tmp_path / "docs", {"a.md": "# A\n\nSome text.\n"})


def written(text: bytes) -> Callable[[Path], object]:
    return lambda path: path.write_bytes(text)


def linked(target: str) -> Callable[[Path], None]:
    return lambda path: path.symlink_to(target)


CASES: list[tuple[str, Callable[[Path], object], str]] = [
    (
        "a 5,000-digit number",
        written(b'{"question": "q?", "answerable": ' + b"9" * 5000 + b"}\n"),
        "line 1: not a question: a number is too long",
    ),
    (
        "nesting 100,000 deep",
        written(b'{"question": ' + b"[" * 100_000 + b"\n"),
        "line 1: not a question: nested too deeply",
    ),
    (
        "evidence at an absurd line",
        written(b'{"question": "q?", "evidence": [{"path": "a.md", "start": 1, "end": '
                + b"9" * 4000 + b"}]}\n"),
        'line 1: evidence in a.md: "start" and "end" must be lines, start <= end',
    ),
    ("/dev/zero", linked("/dev/zero"), "is not a regular file, so not a question file"),
    ("/dev/urandom", linked("/dev/urandom"), "is not a regular file, so not a question file"),
    ("a FIFO", os.mkfifo, "is not a regular file, so not a question file"),
    ("a 50 MB line", written(b'{"question": "' + b"x" * 50_000_000 + b'"}\n'),
     "line 1 is longer than 1 MiB, so not a question"),
    ("Latin-1", written(b'{"question": "caf\xe9?"}\n'), "line 1 is not UTF-8 text"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "make", "says"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_question_file_is_one_line_and_exit_2(
    docs: Path, tmp_path: Path, what: str, make: Callable[[Path], None], says: str
) -> None:
    questions = tmp_path / "questions.jsonl"
    make(questions)
    result = CliRunner().invoke(
        app, ["eval", str(questions), "--docs", str(docs), "--model", "offline"]
    )
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"docsagent: {questions}") and line.endswith(says), line
