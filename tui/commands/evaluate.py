"""`docsagent eval`: run a question set with progress on stderr, then the scores on stdout."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from agent import (
    Config,
    ConfigError,
    Corpus,
    EvalRun,
    Question,
    QuestionResult,
    Summary,
    build_agent,
    eval_trace_dir,
    evidence_problems,
    load_questions,
    run_questions,
    shared_http,
    summarise,
)
from tui.commands import signals
from tui.commands.eval_report import eval_json, results_table, summary_lines
from tui.commands.printer import preview
from tui.outcomes import TOOLS_HINT
from tui.terminal import json_line, visible

ENDPOINT_CONCURRENCY = 4
"""Questions run at once against an endpoint; the offline and script models run one at a time
(they work on this machine's CPU, so more threads would not finish sooner)."""

REPORT_WIDTH = 132
"""Columns of the table when stdout is not a terminal."""

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130


def default_concurrency(config: Config) -> int:
    """How many questions run at once when `--concurrency` is not given."""
    local = config.is_offline or config.model.startswith("script:")
    return 1 if local else ENDPOINT_CONCURRENCY


@contextmanager
def progress(total: int, err: TextIO) -> Iterator[Callable[[QuestionResult], None]]:
    """A progress bar on a terminal, or one line per question elsewhere; yields the update."""
    if not err.isatty():
        done = 0

        def line(result: QuestionResult) -> None:
            nonlocal done
            done += 1
            text = f"[{done}/{total}] {result.question.id}: {result.outcome}"
            err.write(visible(f"{text} ({result.seconds:.2f} s)") + "\n")
            err.flush()

        yield line
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("eval"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}", markup=False),
        console=Console(file=err),
        transient=True,
    )
    task = bar.add_task("", total=total)
    with bar:

        def advance(result: QuestionResult) -> None:
            bar.update(task, advance=1, description=visible(preview(result.question.id, 40)))

        yield advance


def evaluate(
    config: Config,
    questions_file: Path,
    *,
    concurrency: int | None = None,
    min_hit: float | None = None,
    as_json: bool = False,
    notice: str | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run the question set and print its scores; the exit code.

    Raises ConfigError (and ModelError) before anything runs when the question set,
    its evidence, the docs or the model cannot be used; `notice` (the offline fallback)
    is printed once they can.
    """
    out, err = out or sys.stdout, err or sys.stderr
    questions, corpus = _checked_questions(config, questions_file, min_hit=min_hit)
    build_agent(config)  # fails here, once, if the model cannot be used
    traces = eval_trace_dir(config.trace_dir, questions_file)
    if notice:
        err.write(visible(notice) + "\n")
    try:
        with shared_http(config) as http:  # the questions share one pool of connections
            run = EvalRun(
                make_agent=lambda: build_agent(config, http=http),
                corpus=corpus,
                trace_dir=traces,
                concurrency=concurrency or default_concurrency(config),
            )
            with signals.closing(run.close_running), progress(len(questions), err) as update:
                results = run_questions(questions, run, on_result=update)
    except KeyboardInterrupt as exc:  # Ctrl+C, or SIGTERM or SIGHUP (tui.commands.signals)
        what = exc.line if isinstance(exc, signals.Stopped) else "interrupted"
        err.write(visible(f"docsagent: {what} (traces so far: {traces})") + "\n")
        return signals.exit_code(exc, EXIT_INTERRUPTED)
    summary = summarise(results)
    answered = sum(r.stop_reason == "answered" for r in results)
    if answered and summary.read_nothing == answered:
        err.write(f"docsagent: no question's run called a tool: {TOOLS_HINT}\n")
    if as_json:
        report = eval_json(
            results,
            summary,
            questions=questions_file,
            docs=config.docs,
            model=config.model,
            traces=traces,
            endpoint=config.endpoint,
        )
        out.write(json_line(report) + "\n")
    else:
        _print_report(results, summary, traces, out)
    return _exit_code(results, summary.hit_rate, min_hit, err)


def _checked_questions(
    config: Config, questions_file: Path, *, min_hit: float | None
) -> tuple[list[Question], Corpus]:
    """The question set and the docs, once its evidence is found there; ConfigError if not."""
    questions = load_questions(questions_file)
    corpus = Corpus.open(config.docs)
    problems = evidence_problems(questions, corpus)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ConfigError(f"{questions_file}: {problems[0]}{more}; is --docs {config.docs} right?")
    if min_hit is not None and not any(q.evidence for q in questions):
        raise ConfigError(f"--min-hit needs questions with evidence; {questions_file} has none")
    return questions, corpus


def _print_report(
    results: list[QuestionResult], summary: Summary, traces: Path, out: TextIO
) -> None:
    from rich.console import Console

    # Off a terminal (a pipe, a CI log) the table gets room for its columns.
    console = Console(file=out, highlight=False, width=None if out.isatty() else REPORT_WIDTH)
    console.print(results_table(results))
    console.print()
    for line in summary_lines(summary, traces):
        console.print(visible(line), markup=False, soft_wrap=True)


def _exit_code(
    results: list[QuestionResult], hit_rate: float | None, min_hit: float | None, err: TextIO
) -> int:
    failed = [r for r in results if r.stop_reason == "error"]
    if failed:
        first = failed[0]
        line = f"{len(failed)} of {len(results)} questions failed; {first.question.id}: "
        line += f"{first.error}"  # the id comes from the question file, the error from a server
        err.write(visible(f"docsagent: {line}") + "\n")
        return EXIT_FAILED
    if min_hit is not None and (hit_rate or 0.0) < min_hit:
        err.write(
            f"docsagent: evidence hit rate {hit_rate or 0.0:.0%} is under --min-hit {min_hit:.0%}\n"
        )
        return EXIT_FAILED
    return EXIT_OK
