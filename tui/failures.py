"""A command stopped by docsagent itself, and `--json` commands that say so on stdout too.

Light on purpose: `tui.cli` applies `json_failures` at import, and `--help` must not pay
for the printing modules (tests/bench/test_bench_startup.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec

import typer

P = ParamSpec("P")


class Failed(typer.Exit):
    """A command stopped by docsagent itself: the line said on stderr, and the exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(code)
        self.message = message


def json_failures(command: Callable[P, None]) -> Callable[P, None]:
    """A command whose `--json` (its `as_json`) also prints a failure of its own as JSON.

    A script that reads stdout then gets one object whichever way the command stopped:
    `{"answer": null, "error": "...", "exit_code": 2}` when it stopped before any run.
    """

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            command(*args, **kwargs)
        except Failed as exc:
            if kwargs.get("as_json"):
                from tui.terminal import Terminal, json_line

                failure = {"answer": None, "error": exc.message, "exit_code": exc.exit_code}
                Terminal().say(json_line(failure))
            raise

    return run
