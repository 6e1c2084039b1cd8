"""The `docsagent` command: the TUI, one-shot `ask`, and `replay`."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from agent import (
    DEFAULT_MAX_STEPS,
    DEFAULT_TIMEOUT,
    AgentError,
    Citation,
    ConfigError,
    Event,
    ModelError,
    RunFinished,
    TraceError,
)
from tui.options import (
    BaseUrl,
    Docs,
    MaxSteps,
    MaxTokens,
    Model,
    NoCompact,
    NoStream,
    Options,
    Timeout,
    TraceDir,
    TracePath,
    make_config,
)

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_NO_ANSWER, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CODES = {
    "answered": 0,
    "max_steps": 3,
    "budget": 3,
    "repeated": 3,
    "cancelled": 130,
    "error": 1,
}

app = typer.Typer(
    name="docsagent",
    help="Answer questions from a documentation folder, and watch the agent work.",
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _fail(message: str, code: int) -> typer.Exit:
    typer.echo(f"docsagent: {message}", err=True)
    return typer.Exit(code)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"docsagent {version('docsagent')}")
        except PackageNotFoundError:
            typer.echo("docsagent (not installed)")
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
    trace_dir: TraceDir = None,
    no_stream: NoStream = False,
    no_compact: NoCompact = False,
    timeout: Timeout = DEFAULT_TIMEOUT,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Open the TUI (no question yet). Commands: ask, tui, replay."""
    if ctx.invoked_subcommand is None:
        _open_tui(Options.from_context(ctx), None)


@app.command()
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
    trace_dir: TraceDir = None,
    no_stream: NoStream = False,
    no_compact: NoCompact = False,
    timeout: Timeout = DEFAULT_TIMEOUT,
) -> None:
    """Open the TUI; -q starts that question at once."""
    _open_tui(Options.from_context(ctx), question)


def _open_tui(options: Options, question: str | None) -> None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise _fail('the TUI needs a terminal; for one answer use: docsagent ask "QUESTION"', 2)
    try:
        config, notice = make_config(options)
        from tui.app import run_tui

        code = run_tui(config, question=question, notice=notice, trace=options.trace)
    except ConfigError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    raise typer.Exit(code)


@app.command()
def ask(
    ctx: typer.Context,
    question: Annotated[
        str, typer.Argument(metavar="QUESTION", help="The question to answer from the docs.")
    ],
    docs: Docs = None,
    model: Model = None,
    base_url: BaseUrl = None,
    max_steps: MaxSteps = DEFAULT_MAX_STEPS,
    max_tokens: MaxTokens = None,
    trace: TracePath = None,
    trace_dir: TraceDir = None,
    no_stream: NoStream = False,
    no_compact: NoCompact = False,
    timeout: Timeout = DEFAULT_TIMEOUT,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of the answer.")
    ] = False,
) -> None:
    """Answer one question: progress on stderr, the answer on stdout."""
    from agent import Session, build_agent

    if not question.strip():
        raise _fail("the question is empty", EXIT_USAGE)
    options = Options.from_context(ctx)
    try:
        config, notice = make_config(options)
        agent = build_agent(config)
    except ConfigError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    except ModelError as exc:
        raise _fail(str(exc), EXIT_ERROR) from None
    if notice:
        typer.echo(notice, err=True)
    session = Session(agent, trace_dir=config.trace_dir, trace_path=options.trace)
    try:
        finished = _run(session, question)
    except ConfigError as exc:  # the trace cannot be written
        raise _fail(str(exc), EXIT_USAGE) from None
    _report(finished, session, as_json=as_json, docs=config.docs)


def _run(session: Any, question: str) -> RunFinished:
    """Run the question, printing progress; returns the final event whatever happens."""
    from agent import Totals
    from tui.printer import ProgressPrinter

    printer = ProgressPrinter(sys.stderr)
    events = session.ask(question)
    finished = Totals().finish("cancelled", elapsed_s=0.0, error="interrupted")
    unexpected = None
    try:
        for event in events:
            printer(event)
    except KeyboardInterrupt:
        pass  # the session ends the trace as cancelled and stops the run
    except AgentError:
        pass  # the run's last event already carries the error
    except Exception as exc:  # a bug: one line and where the trace is, not a traceback
        unexpected = f"unexpected {type(exc).__name__}: {exc} (please report it with the trace)"
    finally:
        events.close()
    finished = session.last_finished or finished
    return dataclasses.replace(finished, error=unexpected) if unexpected else finished


def _report(finished: RunFinished, session: Any, *, as_json: bool, docs: Path) -> None:
    from tui.printer import summary_line

    trace = str(session.last_trace) if session.last_trace else None
    typer.echo(summary_line(finished, trace), err=True)
    code = EXIT_CODES[finished.stop_reason]
    citations = _citations(finished, session.last_trace, docs)
    unread = [c.label for c in citations if c.valid and not c.read]
    if unread:
        listed = ", ".join(unread)
        typer.echo(
            f"docsagent: warning: the answer cites lines the run never read: {listed}", err=True
        )
    if as_json:
        typer.echo(json.dumps(_json_result(finished, trace, citations)))
    elif finished.answer is not None:
        _print_answer(finished.answer)
    if finished.error and finished.stop_reason != "answered":
        typer.echo(f"docsagent: {finished.error}", err=True)
    raise typer.Exit(code)


def _citations(finished: RunFinished, trace: Path | None, docs: Path) -> list[Citation]:
    """The answer's citations, checked against the docs and the saved trace's tool results."""
    from agent import Corpus, find_citations, read_trace

    if not finished.answer:
        return []
    events: list[Event] = []
    if trace is not None:
        with contextlib.suppress(AgentError):  # still checked against the docs
            events = read_trace(trace).events
    try:
        corpus = Corpus.open(docs)
    except AgentError:
        return find_citations(finished.answer, None, events)
    return find_citations(finished.answer, corpus, events)


def _json_result(finished: RunFinished, trace: str | None, citations: list[Any]) -> dict[str, Any]:
    stats = finished.stats
    return {
        "answer": finished.answer,
        "stop_reason": finished.stop_reason,
        "citations": [c.to_dict() for c in citations],
        "stats": {
            "steps": stats.steps,
            "tool_calls": stats.tool_calls,
            "prompt_tokens": stats.usage.prompt_tokens,
            "completion_tokens": stats.usage.completion_tokens,
            "tokens_estimated": stats.usage.estimated,
            "cost_usd": stats.cost_usd,
            "elapsed_s": stats.elapsed_s,
        },
        "trace": trace,
        "error": finished.error,
    }


def _print_answer(answer: str) -> None:
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.markdown import Markdown

        Console().print(Markdown(answer))
    else:
        sys.stdout.write(answer.rstrip("\n") + "\n")


@app.command()
def replay(
    trace: Annotated[
        Path, typer.Argument(metavar="TRACE", help="A trace file (.jsonl) written by docsagent.")
    ],
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

    try:
        loaded = read_trace(trace)
    except TraceError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    if print_:
        _print_trace(loaded.events, complete=loaded.complete)
        raise typer.Exit(EXIT_OK)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise _fail("replay needs a terminal; use --print to print the trace instead", EXIT_USAGE)
    from tui.app import run_replay

    raise typer.Exit(run_replay(loaded, path=trace, speed=speed, instant=instant, step=step))


@app.command()
def rerun(
    trace: Annotated[
        Path, typer.Argument(metavar="TRACE", help="A trace file (.jsonl) written by docsagent.")
    ],
    docs: Annotated[
        Path | None,
        typer.Option(
            "--docs",
            metavar="DIR",
            help="Check against this docs folder [default: the folder the run used].",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Run a trace's tool calls again on today's docs and say what changed (no model).

    Exit 0 when every citation of the answer still holds, 1 when one does not.
    """
    from agent import Corpus, read_trace, rerun_trace
    from tui.share import rerun_lines

    try:
        loaded = read_trace(trace)
        folder = docs or Path(str(loaded.header.get("docs") or "."))
        corpus = Corpus.open(folder)
    except AgentError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    report = rerun_trace(loaded, corpus)
    if as_json:
        typer.echo(json.dumps(dataclasses.asdict(report), default=str))
    else:
        for line in rerun_lines(report):
            typer.echo(line)
    raise typer.Exit(EXIT_OK if report.holds else 1)


@app.command()
def export(
    trace: Annotated[
        Path, typer.Argument(metavar="TRACE", help="A trace file (.jsonl) written by docsagent.")
    ],
    format: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help="markdown, html (one self-contained page) or openai (the messages as sent).",
        ),
    ] = "markdown",
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", metavar="FILE", help="Write here instead of stdout."),
    ] = None,
) -> None:
    """Export a saved run to share: Markdown, an HTML page, or the model's messages as JSON."""
    from agent import EXPORT_FORMATS, export_trace, read_trace

    if format not in EXPORT_FORMATS:
        raise _fail(f"unknown format {format!r}: use {', '.join(EXPORT_FORMATS)}", EXIT_USAGE)
    try:
        loaded = read_trace(trace)
    except TraceError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    text = export_trace(loaded, format)  # type: ignore[arg-type]
    if output is None:
        sys.stdout.write(text)
        raise typer.Exit(EXIT_OK)
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _fail(f"cannot write {output}: {exc.strerror or exc}", EXIT_USAGE) from None
    typer.echo(f"docsagent: wrote {output}", err=True)


def _print_trace(events: list[Event], *, complete: bool) -> None:
    from tui.printer import ProgressPrinter, summary_line

    printer = ProgressPrinter(sys.stderr)
    for event in events:
        printer(event)
        if isinstance(event, RunFinished):
            typer.echo(summary_line(event), err=True)
            if event.answer is not None:
                _print_answer(event.answer)
    if not complete:
        typer.echo("docsagent: the trace ends early: the run was interrupted", err=True)


def main() -> None:
    """Entry point of the `docsagent` script."""
    app()
