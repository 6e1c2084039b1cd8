"""Where `ask` takes its question from: the argument, or stdin when it is `-` or left out."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

NO_QUESTION = 'no question: give one (docsagent ask "QUESTION") or pipe one in'


class QuestionMissing(Exception):
    """There is no question to ask; the message is one line for the user."""


def read_question(
    argument: str | None, stdin: TextIO | None, *, hint: Callable[[str], None]
) -> str:
    """The question: `argument`, or stdin's text when it is `-` or absent and stdin is piped.

    With `-` on a terminal, stdin is read to its end (Ctrl+D) after `hint` says so.
    Raises QuestionMissing when there is no question, or only blanks.
    """
    if argument is not None and argument != "-":
        if not argument.strip():
            raise QuestionMissing("the question is empty")
        return argument
    interactive = stdin is not None and stdin.isatty()
    if stdin is None or (argument is None and interactive):
        raise QuestionMissing(NO_QUESTION)
    if interactive:
        hint("docsagent: reading the question from stdin; end it with Ctrl+D")
    try:
        text = stdin.read().strip()
    except UnicodeDecodeError:
        raise QuestionMissing("the question on stdin cannot be read as text") from None
    if not text:
        raise QuestionMissing("the question on stdin is empty")
    return text
