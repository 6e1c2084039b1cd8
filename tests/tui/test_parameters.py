"""The shared options are defined once, as `Options`' fields, and `with_options` puts them on
a command where it takes `options`: in the fields' order, between its own parameters, and
handed to it as one `Options` with those given before the command's name."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from tui.cli import app as docsagent
from tui.commands.options import Options
from tui.commands.parameters import with_options

FIELDS = [field.name for field in dataclasses.fields(Options)]


def _app(seen: list[tuple[str, Options, bool]]) -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    @with_options()
    def main(*, options: Options) -> None:
        """A group that takes the options before the command's name too."""

    @app.command()
    @with_options(without=("trace", "force"))
    def run(name: str, *, options: Options, loud: bool = False) -> None:
        seen.append((name, options, loud))

    return app


def test_the_options_reach_the_command_as_one_value_with_the_parents(tmp_path: Path) -> None:
    seen: list[tuple[str, Options, bool]] = []
    args = ["--timeout", "5", "--max-steps", "2", "run", "x", "--max-steps", "3", "--loud"]
    result = CliRunner().invoke(_app(seen), [*args, "--docs", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert seen == [("x", Options(docs=tmp_path, max_steps=3, timeout=5.0), True)]


def test_the_options_stand_where_options_is_and_without_leaves_some_out() -> None:
    command = typer.main.get_command(_app([]))
    run = command.commands["run"]  # type: ignore[attr-defined]
    kept = [name for name in FIELDS if name not in ("trace", "force")]
    assert [param.name for param in run.params] == ["name", *kept, "loud"]
    result = CliRunner().invoke(_app([]), ["run", "x", "--trace", "t.jsonl"])
    assert result.exit_code == 2
    assert "No such option: --trace" in result.output


@pytest.mark.parametrize("name", ["docsagent", "tui", "ask", "eval"])
def test_every_command_that_runs_questions_takes_the_shared_options(name: str) -> None:
    group = typer.main.get_command(docsagent)
    command = group if name == "docsagent" else group.commands[name]  # type: ignore[attr-defined]
    left_out = ("trace", "force") if name == "eval" else ()  # eval: a trace per question
    shared = [param.name for param in command.params if param.name in FIELDS]
    assert shared == [field for field in FIELDS if field not in left_out]


def test_a_name_not_in_options_is_refused() -> None:
    with pytest.raises(ValueError, match="no such option in Options: tracedir"):
        with_options(without=("tracedir",))
