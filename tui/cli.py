"""The `docsagent` command: the TUI, one-shot `ask`, `eval` and `replay` (the commands on
saved traces and served docs are in `tui.commands.trace_commands`, registered here). The
options the first four share are the fields of `Options`, put on each by `with_options`.

No `from __future__ import annotations` here, unlike every other module: Typer reads the
commands' annotations on every start, `--help` included, and evaluating them as strings
made building the commands 2.5x slower (12 ms against 5 ms; `--help` is measured against
Typer's own import in tests/bench/test_bench_startup.py).
"""

import sys
from pathlib import Path
from typing import Annotated

import typer

from agent import TraceError
from tui.commands import signals
from tui.commands.command import DocsCommand, DocsGroup
from tui.commands.options import (
    Options,
    TraceFile,
    explain,
    history_file,
    make_config,
    settings_file,
)
from tui.commands.parameters import with_options
from tui.commands.trace_commands import export, follow, index, mcp, rerun

app = typer.Typer(
    name="docsagent",
    help="Answer questions from a documentation folder, and watch the agent work.",
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    cls=DocsGroup,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        from tui.terminal import Terminal

        try:
            Terminal().say(f"docsagent {version('docsagent')}")
        except PackageNotFoundError:
            Terminal().say("docsagent (not installed)")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
@with_options()
def main_callback(
    ctx: typer.Context,
    *,
    options: Options,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Open the TUI (no question yet). Commands: ask, tui, replay."""
    if ctx.invoked_subcommand is None:
        _open_tui(options, None)


@app.command(cls=DocsCommand)
@with_options()
def tui(
    question: Annotated[
        str | None,
        typer.Option("-q", "--question", metavar="QUESTION", help="Start this question at once."),
    ] = None,
    *,
    options: Options,
) -> None:
    """Open the TUI; -q starts that question at once."""
    _open_tui(options, question)


def _open_tui(options: Options, question: str | None) -> None:
    from tui.commands.asking import explained, fail, refuse_to_replace, remember_docs

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise fail('the TUI needs a terminal; for one answer use: docsagent ask "QUESTION"', 2)
    refuse_to_replace(options)
    with explained():
        config, notice = make_config(options)
        remember_docs(config.docs)
        from tui.app import run_tui

        code = run_tui(
            config,
            question=question,
            notice=notice,
            trace=options.trace,
            replace_trace=options.force,
            settings=settings_file(),
            history=history_file(),
        )
    raise typer.Exit(code)


@app.command(cls=DocsCommand)
@with_options()
def ask(
    question: Annotated[
        str | None,
        typer.Argument(
            metavar="QUESTION",
            help="The question to answer from the docs; - reads it from stdin.",
            show_default=False,
        ),
    ] = None,
    *,
    options: Options,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of the answer.")
    ] = False,
) -> None:
    """Answer one question: progress on stderr, the answer on stdout.

    \b
    QUESTION - (or none, with stdin piped) reads the question from stdin:
      echo "how do I replay a trace?" | docsagent ask
    """
    from tui.commands.asking import answer_question

    answer_question(question, options, as_json=as_json)


@app.command("eval", cls=DocsCommand)
@with_options(without=("trace", "force"))  # eval writes a trace per question, in --trace-dir
def eval_(
    questions: Annotated[
        Path,
        typer.Argument(metavar="QUESTIONS.jsonl", help="A question set: one JSON object per line."),
    ],
    *,
    options: Options,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency",
            metavar="N",
            min=1,
            help=(
                "Questions run at once [default: 1 offline, 4 for an endpoint]. Use 1 for a "
                "server that runs one request at a time (llama-cpp-python ends the running "
                "reply when another request arrives)."
            ),
            show_default=False,
        ),
    ] = None,
    min_hit: Annotated[
        float | None,
        typer.Option(
            "--min-hit",
            metavar="RATE",
            min=0.0,
            max=1.0,
            help=(
                "Exit 1 when the evidence hit rate (hits in the first three citations) "
                "is under RATE (0 to 1, e.g. 0.9)."
            ),
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of the table.")
    ] = False,
) -> None:
    """Score a question set: evidence hits, terms, declines, steps, tokens and time."""
    from tui.commands.asking import explained, remember_docs
    from tui.commands.evaluate import evaluate

    with explained():
        config, notice = make_config(options)
        remember_docs(config.docs)
        code = evaluate(
            config,
            questions,
            concurrency=concurrency,
            min_hit=min_hit,
            as_json=as_json,
            notice=notice,
        )
    raise typer.Exit(code)


@app.command(cls=DocsCommand)
def replay(
    trace: TraceFile,
    speed: Annotated[
        float, typer.Option("--speed", metavar="X", min=0.01, help="Playback speed.")
    ] = 1.0,
    instant: Annotated[
        bool, typer.Option("--instant", help="Show the final state at once.")
    ] = False,
    step: Annotated[
        bool, typer.Option("--step", help="Start paused; step with the arrow keys.")
    ] = False,
    print_: Annotated[
        bool, typer.Option("--print", help="Print the run as `ask` would, without the TUI.")
    ] = False,
) -> None:
    """Replay a saved trace in the TUI (or print it with --print)."""
    from agent import read_trace
    from tui.commands.asking import EXIT_OK, EXIT_USAGE, fail, print_trace
    from tui.terminal import Terminal

    try:
        loaded = read_trace(trace)
    except TraceError as exc:
        raise fail(explain(exc), EXIT_USAGE) from None
    if print_:
        print_trace(loaded, Terminal())
        raise typer.Exit(EXIT_OK)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise fail("replay needs a terminal; use --print to print the trace instead", EXIT_USAGE)
    from tui.app import run_replay

    code = run_replay(
        loaded, path=trace, speed=speed, instant=instant, step=step, settings=settings_file()
    )
    raise typer.Exit(code)


for command in (rerun, export, mcp, index, follow):  # the commands on saved traces and served docs
    app.command(cls=DocsCommand)(command)


def main() -> None:
    """Entry point of the `docsagent` script."""
    signals.install()
    try:
        app()
    except SystemExit as exc:
        signals.exit_if_stopped(exc.code)  # with 128 + N (or 130), at once
        raise


if __name__ == "__main__":  # `python -m tui.cli`, the command when no script is installed
    main()
