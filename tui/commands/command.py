"""The Click classes behind the commands: plain argument names and sensible suggestions.

Typer shows a required argument as `{QUESTION}` on the usage line and as
`QUESTION <str>` in the help, and Click suggests any option whose name shares the
leading `--` with a mistyped one (`--bogus` → `--docs`). These classes show arguments by
their names alone and suggest only options whose names are close to what was typed.
"""

from __future__ import annotations

import contextlib
import difflib
import sys
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

try:  # recent Typer carries its own copy of Click
    from typer._click.exceptions import NoSuchOption
except ImportError:  # pragma: no cover - an older Typer, on Click itself
    from click.exceptions import NoSuchOption  # type: ignore[no-redef, import-not-found, assignment]

SIMILAR = 0.6
"""How alike (difflib's ratio, 0 to 1) a mistyped option's name must be to suggest one."""


def similar_options(typed: str, options: list[str]) -> list[str]:
    """The long options `typed` starts, else up to three it nearly spells (dashes aside)."""
    word = typed.lstrip("-").split("=", 1)[0].lower()
    if not word:
        return []
    names = {option.lstrip("-").lower(): option for option in options if option.startswith("--")}
    started = sorted(option for name, option in names.items() if name.startswith(word))
    close = difflib.get_close_matches(word, list(names), cutoff=SIMILAR)
    return started[:3] or [names[name] for name in close]


def _long_options(ctx: Any) -> list[str]:
    return [
        name
        for param in ctx.command.get_params(ctx)
        if param.param_type_name == "option"
        for name in [*param.opts, *param.secondary_opts]
    ]


class _Suggesting:
    """An unknown option is answered with the close names, if any, never a far one."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)  # type: ignore[misc, no-any-return]
        except NoSuchOption as exc:
            close = similar_options(exc.option_name, _long_options(ctx))
            message = f"No such option: {exc.option_name}"
            if close:
                message += f" (did you mean {' or '.join(close)}?)"
            raise NoSuchOption(exc.option_name, message=message, ctx=ctx) from None


class _Plain:
    """Arguments shown by their names alone, on the usage line and in the help."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        command: Any = self
        pieces = [command.options_metavar] if command.options_metavar else []
        return pieces + [_name(p) for p in command.get_params(ctx) if _is_argument(p)]

    def format_options(self, ctx: Any, formatter: Any) -> None:
        params = self.get_params(ctx)  # type: ignore[attr-defined]
        arguments = [(_name(p), p.help or "") for p in params if _is_argument(p) and not p.hidden]
        options = [
            record
            for p in params
            if p.param_type_name == "option"
            for record in [p.get_help_record(ctx)]
            if record is not None
        ]
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def _is_argument(param: Any) -> bool:
    return param.param_type_name == "argument"  # type: ignore[no-any-return]


def _name(param: Any) -> str:
    return str(param.metavar or (param.name or "").upper())


class DocsCommand(_Suggesting, _Plain, TyperCommand):
    """A `docsagent` command."""

    def invoke(self, ctx: Any) -> Any:
        """Run the command; with `--json`, a failure it names before any run is also printed
        as one JSON object (`tui.commands.failures.JSON_FAILURE_FIELDS`) for a script to read."""
        from tui.commands.failures import JSON_FAILURE_FIELDS, Failed, say_json_failure

        try:
            return super().invoke(ctx)
        except Failed as exc:
            if self.name in JSON_FAILURE_FIELDS and ctx.params.get("as_json"):
                say_json_failure(exc, self.name)
            raise


class DocsGroup(_Suggesting, TyperGroup):
    """The `docsagent` command itself, with its subcommands."""

    def invoke(self, ctx: Any) -> Any:
        """Run the command; a stop signal it did not handle ends it with one line."""
        from tui.commands.signals import Stopped

        try:
            return super().invoke(ctx)
        except Stopped as exc:
            with contextlib.suppress(OSError, ValueError):  # the terminal may be gone
                sys.stderr.write(f"docsagent: {exc.line}\n")
                sys.stderr.flush()
            raise typer.Exit(exc.code) from None
