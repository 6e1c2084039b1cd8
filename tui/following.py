"""`docsagent follow`: the replay screen on a trace still being written."""

from __future__ import annotations

import sys
from pathlib import Path

from agent import SERVED_MODEL, ConfigError, Trace, TraceError, TraceTail, recent_traces
from tui.asking import EXIT_USAGE, warn
from tui.options import Options, explain, make_config, settings_file
from tui.terminal import Terminal


def newest_served(folder: Path) -> Path | None:
    """The newest trace of a `docsagent mcp` session in `folder`, if any."""
    return next((t.path for t in recent_traces(folder) if t.model == SERVED_MODEL), None)


def follow_trace(path: Path | None, options: Options) -> int:
    """Follow `path` (or the newest served session's trace) in the TUI; the exit code."""
    terminal = Terminal()
    if path is None:
        try:
            config, _ = make_config(options)
        except ConfigError as exc:
            warn(terminal, f"docsagent: {explain(exc)}")
            return EXIT_USAGE
        path = newest_served(config.trace_dir)
        if path is None:
            warn(
                terminal,
                f"docsagent: no `docsagent mcp` session's trace in {config.trace_dir}; "
                "start the server (or name a trace) first",
            )
            return EXIT_USAGE
    tail = TraceTail(path)
    try:
        events, times = tail.read()
    except TraceError as exc:
        warn(terminal, f"docsagent: {exc}")
        return EXIT_USAGE
    if tail.header is None:
        warn(terminal, f"docsagent: {path} is not a docsagent trace (no header line)")
        return EXIT_USAGE
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        warn(
            terminal, "docsagent: follow needs a terminal; use replay --print for a finished trace"
        )
        return EXIT_USAGE
    from tui.app import run_replay

    trace = Trace(tail.header, events, times)
    return run_replay(trace, path=path, settings=settings_file(), follow=tail)
