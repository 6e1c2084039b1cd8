"""A command stopped by docsagent itself, and what its `--json` prints then.

Light on purpose: `tui.commands.command` catches `Failed` around every command, and `--help` must
not pay for the printing modules (tests/bench/test_bench_startup.py).
"""

from __future__ import annotations

import typer

JSON_FAILURE_FIELDS: dict[str, dict[str, None]] = {
    "ask": {"answer": None},
    "eval": {"summary": None, "results": None},
}
"""By command: what its `--json` object holds, null, when the command fails before any run,
beside `error` and `exit_code` (so a script tells a failure from a result by its `error`)."""


class Failed(typer.Exit):
    """A command stopped by docsagent itself: the line said on stderr, and the exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(code)
        self.message = message


def say_json_failure(failure: Failed, command: str) -> None:
    """Print `failure` as `command`'s `--json` object (`JSON_FAILURE_FIELDS`) on stdout."""
    from tui.terminal import Terminal, json_line

    fields = {**JSON_FAILURE_FIELDS[command], "error": failure.message}
    Terminal().say(json_line({**fields, "exit_code": failure.exit_code}))
