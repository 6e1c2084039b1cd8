"""`docsagent ask`'s run: progress while it runs, then the summary, answer and exit code."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agent import AgentError, ConfigError, ModelError
from tui.commands.failures import Failed
from tui.commands.options import Options, docs_folders_file, explain, make_config
from tui.commands.signals import Stopped, closing, describe, exit_code, received
from tui.outcomes import OUTCOMES, answer_note
from tui.terminal import Terminal

if TYPE_CHECKING:  # the core loads when a command runs, not for `--help`
    from agent import Citation, Corpus, DocsContext, Event, RunFinished, RunStarted, Trace

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2  # a run's own exit code is in tui.outcomes


def fail(message: str, code: int) -> Failed:
    """Say `message` on stderr; the exit to raise."""
    warn(Terminal(), f"docsagent: {message}")
    return Failed(message, code)


@contextmanager
def explained() -> Iterator[None]:
    """A ConfigError (exit 2) or ModelError (exit 1) raised inside ends the command with its
    line and the options that set what it names."""
    try:
        yield
    except ConfigError as exc:
        raise fail(explain(exc), EXIT_USAGE) from None
    except ModelError as exc:
        raise fail(explain(exc), EXIT_ERROR) from None


def remember_docs(folder: Path) -> None:
    """Keep `folder` as one this user asked about: `rerun` may read it without --docs."""
    from tui.statefiles.docs_folders import remember

    remember(docs_folders_file(), folder)


def answer_question(question: str | None, options: Options, *, as_json: bool) -> None:
    """`docsagent ask`: the question read, run with progress, then reported; raises the exit."""
    from agent import Session, build_agent, open_docs
    from tui.commands.question import QuestionMissing, read_question

    terminal = Terminal()
    try:
        question = read_question(question, sys.stdin, hint=terminal.warn)
    except QuestionMissing as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    except KeyboardInterrupt:
        raise fail("interrupted", OUTCOMES["cancelled"].exit_code) from None
    refuse_to_replace(options)
    with explained():
        config, notice = make_config(options)
        folder = open_docs(config)
        remember_docs(config.docs)
        agent = build_agent(config, docs=folder)
    if notice:
        warn(terminal, notice)
    prepare_index(folder, terminal)
    session = Session(
        agent, trace_dir=config.trace_dir, trace_path=options.trace, replace_trace=options.force
    )
    events: list[Event] = []
    with explained(), closing(lambda: session.close(wait_s=0)):  # a trace that cannot be written
        finished = run_question(session, question, terminal, events)
    docs = folder.corpus  # its texts are at hand: a big page is not turned into text again
    report_run(
        finished, session, terminal, events=events, as_json=as_json, docs=docs, signum=received()
    )


def refuse_to_replace(options: Options) -> None:
    """Stop before anything runs when --trace names an existing file and --force is not given."""
    path = options.trace
    if path is not None and not options.force and os.path.lexists(path):
        raise fail(f"{path} already exists; pass --force to replace it", EXIT_USAGE)


def prepare_index(docs: DocsContext, terminal: Terminal) -> None:
    """Bring the search index up to date, showing progress on a terminal."""
    from tui.commands.printer import IndexProgress

    progress = IndexProgress(sys.stderr)
    try:
        report = docs.search_index().prepare(progress)
    except KeyboardInterrupt as exc:  # Ctrl+C, or SIGTERM or SIGHUP (tui.commands.signals)
        what = exc.line if isinstance(exc, Stopped) else "interrupted"
        code = exit_code(exc, OUTCOMES["cancelled"].exit_code)
        raise fail(f"{what} while indexing the docs", code) from None
    finally:
        progress.close()
    for line in (report.notice, report.skipped_line):
        if line:
            terminal.warn(f"docsagent: {line}")


def run_question(session: Any, question: str, terminal: Terminal, seen: list[Event]) -> RunFinished:
    """Run the question, printing progress and keeping its events in `seen`; returns the
    final event whatever happens."""
    from tui.commands.printer import ProgressPrinter
    from tui.commands.waiting import WaitingLine

    status = WaitingLine(terminal)

    def progress(line: str) -> None:
        with status.writing():
            terminal.warn(line)

    printer = ProgressPrinter(progress, width=terminal.columns())
    events = session.ask(question)
    error = unexpected = None
    try:
        with status:
            for event in events:
                seen.append(event)
                status.observe(event)
                printer(event)
    except KeyboardInterrupt:
        pass  # the session ends the trace as cancelled and stops the run
    except AgentError as exc:  # the run's last event carries it; here we add the options
        error = explain(exc)
    except Exception as exc:  # a bug: one line and where the trace is, not a traceback
        unexpected = f"unexpected {type(exc).__name__}: {exc} (please report it with the trace)"
    finally:
        events.close()
    finished: RunFinished = session.ending()
    if unexpected:  # a bug, not an interruption: the run failed
        return dataclasses.replace(finished, stop_reason="error", error=unexpected)
    return dataclasses.replace(finished, error=error) if error else finished


def report_run(
    finished: RunFinished,
    session: Any,
    terminal: Terminal,
    *,
    events: list[Event],
    as_json: bool,
    docs: Corpus,
    signum: int | None = None,
) -> None:
    """The summary, the answer (or JSON) and the exit code, from the run's `events`."""
    from agent import run_outcome, with_pages
    from tui.commands.printer import fold, summary_line

    trace = str(session.last_trace) if session.last_trace else None
    citations = checked_citations(finished, events, docs)
    outcome = run_outcome(finished, citations)
    started = run_started(events)
    model = started.model if started else None
    for line in fold(
        summary_line(finished, trace, outcome=outcome, model=model), terminal.columns()
    ):
        terminal.warn(line)
    code = OUTCOMES[outcome].exit_code
    if signum is not None and finished.stop_reason == "cancelled":
        finished = dataclasses.replace(finished, error=describe(signum))
        code = 128 + signum
    note_line(outcome, terminal)
    unread = [c.label for c in citations if c.valid and not c.read]
    if unread:
        listed = ", ".join(unread)
        warn(terminal, f"docsagent: warning: the answer cites lines the run never read: {listed}")
    if as_json or finished.answer is not None:
        set_apart(terminal)
    if as_json:
        terminal.say(json.dumps(json_result(finished, trace, citations, started)))
    elif finished.answer is not None:
        terminal.answer(with_pages(finished.answer, citations))
    stop_line(finished, terminal)
    raise typer.Exit(code)


def note_line(outcome: str, terminal: Terminal) -> None:
    """For an answer that read nothing, the line that says so (a decline's summary says it)."""
    note = answer_note(outcome)
    if note and note[1] != "info":
        warn(terminal, f"docsagent: {note[0]}")


def run_started(events: list[Event]) -> RunStarted | None:
    """The run's first event, which names its model and endpoint."""
    from agent import RunStarted

    return next((e for e in events if isinstance(e, RunStarted)), None)


def stop_line(finished: RunFinished, terminal: Terminal) -> None:
    """The last line of a run that did not answer: what stopped it."""
    if finished.error and finished.stop_reason != "answered":
        warn(terminal, f"docsagent: {finished.error}")


def warn(terminal: Terminal, text: str) -> None:
    """A line on stderr, broken between words to fit a terminal (whole when piped)."""
    from tui.commands.printer import wrap

    for line in wrap(text, terminal.columns()):
        terminal.warn(line)


def set_apart(terminal: Terminal) -> None:
    """A blank line between the summary and the answer, where both show on one screen."""
    if terminal.out.isatty() and terminal.err.isatty():
        terminal.warn("")


def checked_citations(finished: RunFinished, events: list[Event], docs: Corpus) -> list[Citation]:
    """The answer's citations, checked against the run's docs and its tool results."""
    from agent import find_citations

    return find_citations(finished.answer, docs, events) if finished.answer else []


def json_result(
    finished: RunFinished,
    trace: str | None,
    citations: list[Any],
    started: RunStarted | None = None,
) -> dict[str, Any]:
    from agent import run_outcome

    stats = finished.stats
    outcome = run_outcome(finished, citations)
    return {
        "answer": finished.answer,
        "outcome": outcome,
        "stop_reason": finished.stop_reason,
        "declined": outcome == "declined",
        "model": started.model if started else None,
        "endpoint": started.endpoint if started else None,
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


def print_trace(trace: Trace, terminal: Terminal) -> None:
    """`replay --print`: a saved run's progress lines, summary and answer, as `ask` showed them."""
    from agent import RunFinished, RunStarted, find_citations, is_served, run_outcome, with_pages
    from tui.commands.printer import ProgressPrinter, fold, summary_line

    printer = ProgressPrinter(terminal.warn, width=terminal.columns())
    events: list[Event] = []
    for event in trace.events:
        printer(event)
        events = [] if isinstance(event, RunStarted) else events
        events.append(event)
        if isinstance(event, RunFinished):
            citations = find_citations(event.answer or "", None, events)
            outcome = run_outcome(event, citations)
            started = run_started(events)
            model = started.model if started else None
            served = started is not None and is_served(started.model, started.max_steps)
            line = summary_line(event, outcome=outcome, model=model, served=served)
            for part in fold(line, terminal.columns()):
                terminal.warn(part)
            note_line(outcome, terminal)
            if event.answer is not None:
                set_apart(terminal)
                terminal.answer(with_pages(event.answer, citations))
            stop_line(event, terminal)  # as `report_run` ends
    if trace.damaged_tail:
        terminal.warn("docsagent: the trace's last line is damaged (cut off); it was left out")
    if not trace.complete:
        terminal.warn("docsagent: the trace ends early: the run was interrupted")
