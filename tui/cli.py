"""The `docsagent` command: the TUI, one-shot `ask`, `eval` and `replay` (the commands on
saved traces and served docs are in `tui.commands.trace_commands`, registered here).

No `from __future__ import annotations` here, unlike every other module: Typer reads the
commands' annotations on every start, `--help` included, and evaluating them as strings
made building the commands 2.5x slower (12 ms against 5 ms; `--help` is measured against
Typer's own import in tests/bench/test_bench_startup.py).
"""

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agent import (
    DEFAULT_MAX_REPLY_TOKENS,
    DEFAULT_MAX_STEPS,
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_TIMEOUT,
    ConfigError,
    ModelError,
    TraceError,
)
from tui.commands import signals
from tui.commands.command import DocsCommand, DocsGroup
from tui.commands.options import (
    BaseUrl,
    Context,
    Docs,
    Force,
    MaxReplyTokens,
    MaxSteps,
    MaxTokens,
    Model,
    NoCompact,
    NoStream,
    Options,
    RequestTimeout,
    Timeout,
    TraceDir,
    TraceFile,
    TracePath,
    docs_folders_file,
    explain,
    history_file,
    make_config,
    settings_file,
)
from tui.commands.trace_commands import export, follow, index, mcp, rerun

if TYPE_CHECKING:
    from agent import Event

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
def main_callback(
    ctx: typer.Context,
    docs: Docs = None,
    model: Model = None,
    base_url: BaseUrl = None,
    max_steps: MaxSteps = DEFAULT_MAX_STEPS,
    max_tokens: MaxTokens = None,
    trace: TracePath = None,
    force: Force = False,
    trace_dir: TraceDir = None,
    no_stream: NoStream = False,
    no_compact: NoCompact = False,
    timeout: Timeout = DEFAULT_TIMEOUT,
    request_timeout: RequestTimeout = DEFAULT_REQUEST_TIMEOUT,
    context: Context = None,
    max_reply_tokens: MaxReplyTokens = DEFAULT_MAX_REPLY_TOKENS,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Open the TUI (no question yet). Commands: ask, tui, replay."""
    if ctx.invoked_subcommand is None:
        _open_tui(Options.from_context(ctx), None)


@app.command(cls=DocsCommand)
def tui(
    ctx: typer.Context,
    question: Annotated[
        str | None,
        typer.Option("-q", "--question", metavar="QUESTION", help="Start this question at once."),
    ] = None,
    docs: Docs = None,
    model: Model = None,
    base_url: BaseUrl = None,
    max_steps: MaxSteps = DEFAULT_MAX_STEPS,
    max_tokens: MaxTokens = None,
    trace: TracePath = None,
    force: Force = False,
    trace_dir: TraceDir = None,
    no_stream: NoStream = False,
    no_compact: NoCompact = False,
    timeout: Timeout = DEFAULT_TIMEOUT,
    request_timeout: RequestTimeout = DEFAULT_REQUEST_TIMEOUT,
    context: Context = None,
    max_reply_tokens: MaxReplyTokens = DEFAULT_MAX_REPLY_TOKENS,
) -> None:
    """Open the TUI; -q starts that question at once."""
    _open_tui(Options.from_context(ctx), question)


def _open_tui(options: Options, question: str | None) -> None:
    from tui.commands.asking import EXIT_USAGE, fail, refuse_to_replace

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise fail('the TUI needs a terminal; for one answer use: docsagent ask "QUESTION"', 2)
    refuse_to_replace(options)
    try:
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
    except ConfigError as exc:
        raise fail(explain(exc), EXIT_USAGE) from None
    raise typer.Exit(code)


@app.command(cls=DocsCommand)
def ask(
    ctx: typer.Context,
    question: Annotated[
        str | None,
        typer.Argument(
            metavar="QUESTION",
            help="The question to answer from the docs; - reads it from stdin.",
            show_default=False,
        ),
    ] = None,
    docs: Docs = None,
    model: Model = None,
    base_url: BaseUrl = None,
    max_steps: MaxSteps = DEFAULT_MAX_STEPS,
    max_tokens: MaxTokens = None,
    trace: TracePath = None,
    force: Force = False,
    trace_dir: TraceDir = None,
    no_stream: NoStream = False,
    no_compact: NoCompact = False,
    timeout: Timeout = DEFAULT_TIMEOUT,
    request_timeout: RequestTimeout = DEFAULT_REQUEST_TIMEOUT,
    context: Context = None,
    max_reply_tokens: MaxReplyTokens = DEFAULT_MAX_REPLY_TOKENS,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of the answer.")
    ] = False,
) -> None:
    """Answer one question: progress on stderr, the answer on stdout.

    \b
    QUESTION - (or none, with stdin piped) reads the question from stdin:
      echo "how do I replay a trace?" | docsagent ask
    """
    from agent import Session, build_agent, open_docs
    from tui.commands.asking import (
        EXIT_ERROR,
        EXIT_USAGE,
        fail,
        prepare_index,
        refuse_to_replace,
        report_run,
        run_question,
        warn,
    )
    from tui.commands.question import QuestionMissing, read_question
    from tui.outcomes import OUTCOMES
    from tui.terminal import Terminal

    options = Options.from_context(ctx)
    try:
        question = read_question(question, sys.stdin, hint=Terminal().warn)
    except QuestionMissing as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    except KeyboardInterrupt:
        raise fail("interrupted", OUTCOMES["cancelled"].exit_code) from None
    refuse_to_replace(options)
    try:
        config, notice = make_config(options)
        folder = open_docs(config)
        remember_docs(config.docs)
        agent = build_agent(config, docs=folder)
    except ConfigError as exc:
        raise fail(explain(exc), EXIT_USAGE) from None
    except ModelError as exc:
        raise fail(explain(exc), EXIT_ERROR) from None
    terminal = Terminal()
    if notice:
        warn(terminal, notice)
    prepare_index(folder, terminal)
    session = Session(
        agent, trace_dir=config.trace_dir, trace_path=options.trace, replace_trace=options.force
    )
    events: list[Event] = []
    try:
        with signals.closing(lambda: session.close(wait_s=0)):
            finished = run_question(session, question, terminal, events)
    except ConfigError as exc:  # the trace cannot be written
        raise fail(explain(exc), EXIT_USAGE) from None
    report_run(
        finished,
        session,
        terminal,
        events=events,
        as_json=as_json,
        docs=folder.corpus,  # its texts are at hand: a big page is not turned into text again
        signum=signals.received(),
    )


@app.command("eval", cls=DocsCommand)
def eval_(
    ctx: typer.Context,
    questions: Annotated[
        Path,
        typer.Argument(metavar="QUESTIONS.jsonl", help="A question set: one JSON object per line."),
    ],
    docs: Docs = None,
    model: Model = None,
    base_url: BaseUrl = None,
    max_steps: MaxSteps = DEFAULT_MAX_STEPS,
    max_tokens: MaxTokens = None,
    trace_dir: TraceDir = None,
    no_stream: NoStream = False,
    timeout: Timeout = DEFAULT_TIMEOUT,
    request_timeout: RequestTimeout = DEFAULT_REQUEST_TIMEOUT,
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
    from tui.commands.asking import EXIT_ERROR, EXIT_USAGE, fail
    from tui.commands.evaluate import evaluate

    try:
        config, notice = make_config(Options.from_context(ctx))
        remember_docs(config.docs)
        code = evaluate(
            config,
            questions,
            concurrency=concurrency,
            min_hit=min_hit,
            as_json=as_json,
            notice=notice,
        )
    except ConfigError as exc:
        raise fail(explain(exc), EXIT_USAGE) from None
    except ModelError as exc:
        raise fail(explain(exc), EXIT_ERROR) from None
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


def remember_docs(folder: Path) -> None:
    """Keep `folder` as one this user asked about: `rerun` may read it without --docs."""
    from tui.statefiles.docs_folders import remember

    remember(docs_folders_file(), folder)


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
