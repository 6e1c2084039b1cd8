"""Sharing a run: `docsagent rerun`'s report, and a trace exported beside itself."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Literal

from agent import (
    AgentError,
    Corpus,
    RerunReport,
    RunFinished,
    Trace,
    export_trace,
    read_trace,
    write_new,
)
from tui.commands.asking import EXIT_OK, EXIT_USAGE, fail
from tui.commands.options import explain
from tui.commands.printer import preview
from tui.terminal import Terminal

SUFFIXES = {"markdown": ".md", "html": ".html"}
ShareFormat = Literal["markdown", "html"]
SHOWN_PATH = 200  # a longer docs path in a trace is shortened in the error line


def export_beside(trace: Path, format: ShareFormat) -> Path:
    """Write `trace` as Markdown or HTML next to it (same name, `.md` or `.html`); the
    path written: a name already taken, by a file or a link, gets the next free one
    (`report-2.md`), never written over or through (`agent.newfile`).

    Raises TraceError when the trace cannot be read, OSError when the file cannot be written.
    """
    text = export_trace(read_trace(trace), format)
    target = trace.with_suffix(SUFFIXES[format])
    if target == trace:  # never over the trace itself
        target = trace.with_name(trace.name + SUFFIXES[format])
    return write_new(target, text)


def trusted_folder(loaded: Trace, used: Path) -> Path:
    """The docs folder the trace names, if this user chose it; else exit 2 asking for --docs.

    Traces are shared and can be edited: the folder one names is read only when it is
    the bundled manual or a folder this user has asked docsagent about
    (`tui/statefiles/docs_folders.py`).
    """
    from agent import default_docs
    from tui.statefiles.docs_folders import was_used

    named = loaded.header.get("docs")
    if not isinstance(named, str) or not named.strip():
        raise fail("the trace names no docs folder; pass --docs DIR to check against", EXIT_USAGE)
    folder = Path(named)
    shown = preview(named, SHOWN_PATH)
    if not folder.is_absolute():
        raise fail(
            f"the trace names the docs folder {shown}, which is not a full path; "
            "pass --docs DIR to check against",
            EXIT_USAGE,
        )
    if was_used(used, folder) or _same_folder(folder, default_docs()):
        return folder
    raise fail(
        f"the trace names the docs folder {shown}, which you have not asked "
        "docsagent about; pass --docs DIR to check against it (or another)",
        EXIT_USAGE,
    )


def _same_folder(folder: Path, other: Path) -> bool:
    try:
        return os.path.realpath(folder) == os.path.realpath(other)
    except (OSError, ValueError):
        return False


def rerun_lines(report: RerunReport, *, answered: bool = True) -> list[str]:
    """The report as lines for the terminal (`answered`: whether the run ended with one)."""
    lines = [f"re-ran {len(report.calls)} tool calls against {report.docs}"]
    for call in report.calls:
        mark = "same" if call.same else "CHANGED"
        lines.append(f"[step {call.step}] {call.name}({call.arguments}) {mark}")
        lines += [f"    {row}" for row in call.diff]
    if not answered:
        lines.append("the run ended without an answer: only its tool calls were checked")
        return lines
    if not report.citations:
        lines.append("the answer cites no lines")
    for citation in report.citations:
        verdict = "holds" if citation.holds else f"CHANGED: {citation.reason}"
        lines.append(f"citation {citation.label} {verdict}")
    if report.holds:
        lines.append("nothing the answer rests on has changed")
    else:
        lines.append("the answer rests on lines that changed")
    return lines


def rerun_report(loaded: Trace, docs: Path | None, *, as_json: bool, used: Path) -> int:
    """`docsagent rerun`: run the trace's tool calls again on `docs` (default: the folder
    the run used, if this user has asked docsagent about it: `used` keeps those folders),
    print what changed, and return the exit code: 0 when every citation of the answer
    still holds, 1 when one does not."""
    from agent import rerun_trace  # only this command needs it, not the TUI's start-up

    folder = docs or trusted_folder(loaded, used)
    try:
        corpus = Corpus.open(folder)
    except AgentError as exc:
        hint = "" if docs else " (the folder the run used); pass --docs DIR to check another"
        raise fail(explain(exc) + hint, EXIT_USAGE) from None
    report = rerun_trace(loaded, corpus)
    answered = any(isinstance(e, RunFinished) and e.answer for e in loaded.events)
    terminal = Terminal()
    if as_json:
        terminal.say(json.dumps(dataclasses.asdict(report), default=str))
    else:
        for line in rerun_lines(report, answered=answered):
            terminal.say(line)
    return EXIT_OK if report.holds else 1
