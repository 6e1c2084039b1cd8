"""`docsagent follow`: the replay screen on a trace still being written.

Unpinned, it follows the newest `docsagent mcp` session in the trace folder, waits for
one when there is none yet, and moves to each newer session as it starts.
"""

from __future__ import annotations

import sys
from pathlib import Path

from agent import SERVED_MODEL, ConfigError, Trace, TraceError, TraceTail, newest_served
from tui.commands.asking import EXIT_USAGE, warn
from tui.commands.options import Options, explain, make_config, settings_file
from tui.terminal import Terminal


def follow_trace(path: Path | None, options: Options) -> int:
    """Follow `path`, or the newest served session's trace and each newer one; exit code."""
    terminal = Terminal()
    sessions = None
    if path is None:
        try:
            config, _ = make_config(options)
        except ConfigError as exc:
            warn(terminal, f"docsagent: {explain(exc)}")
            return EXIT_USAGE
        sessions = config.trace_dir
        path = newest_served(sessions)
    trace, tail = None, None
    if path is not None:
        tail = TraceTail(path)
        try:
            events, times = tail.read()
        except TraceError as exc:
            warn(terminal, f"docsagent: {exc}")
            return EXIT_USAGE
        if tail.header is None:
            warn(terminal, f"docsagent: {path} is not a docsagent trace (no header line)")
            return EXIT_USAGE
        trace = Trace(tail.header, events, times)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        warn(
            terminal, "docsagent: follow needs a terminal; use replay --print for a finished trace"
        )
        return EXIT_USAGE
    from tui.app import run_replay

    if trace is None or path is None:  # no session yet: the screen waits for one
        assert sessions is not None
        trace, path = waiting(sessions), sessions
    return run_replay(trace, path=path, settings=settings_file(), follow=tail, sessions=sessions)


def waiting(folder: Path) -> Trace:
    """An empty served session's trace, shown until a session starts in `folder`."""
    header = {"question": "", "model": SERVED_MODEL, "docs": str(folder), "max_steps": 0}
    return Trace(header)
