"""The commands on saved traces and served docs: `rerun`, `export`, `mcp`, `index`, `follow`.

Plain functions here; `tui.cli` registers them on its Typer app, after `replay`. No
`from __future__ import annotations`, as in `tui.cli`: Typer reads these annotations
at every start.
"""

import os
from pathlib import Path
from typing import Annotated

import typer

from agent import AgentError, TraceError
from tui.commands.options import (
    DocSets,
    Options,
    TraceDir,
    TraceFile,
    docs_folders_file,
    docs_specs,
    explain,
)


def rerun(
    trace: TraceFile,
    docs: Annotated[
        Path | None,
        typer.Option(
            "--docs",
            metavar="DIR",
            help=(
                "Check against this docs folder [default: the folder the run used, "
                "if you have asked docsagent about it]."
            ),
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Run a trace's tool calls again on today's docs and say what changed (no model).

    Exit 0 when every citation of the answer still holds, 1 when one does not.
    """
    from agent import read_trace
    from tui.commands.asking import EXIT_USAGE, fail
    from tui.commands.share import rerun_report

    try:
        loaded = read_trace(trace)
    except AgentError as exc:
        raise fail(explain(exc), EXIT_USAGE) from None
    raise typer.Exit(rerun_report(loaded, docs, as_json=as_json, used=docs_folders_file()))


def export(
    trace: TraceFile,
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
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace the -o file if it exists (else: exit 2)."),
    ] = False,
) -> None:
    """Export a saved run to share: Markdown, an HTML page, or the model's messages as JSON."""
    from agent import EXPORT_FORMATS, export_trace, read_trace, write_new
    from tui.commands.asking import EXIT_OK, EXIT_USAGE, fail
    from tui.terminal import Terminal

    if format not in EXPORT_FORMATS:
        raise fail(f"unknown format {format!r}: use {', '.join(EXPORT_FORMATS)}", EXIT_USAGE)
    if output is not None and os.path.lexists(output):
        if trace.exists() and output.exists() and output.samefile(trace):
            raise fail(f"{output} is the trace being exported; choose another file", EXIT_USAGE)
        if not force:
            raise fail(f"{output} already exists; pass --force to replace it", EXIT_USAGE)
    try:
        loaded = read_trace(trace)
    except TraceError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    text = export_trace(loaded, format)  # type: ignore[arg-type]
    if output is None:  # on the terminal (or through a pipe to it): made visible
        Terminal().say(text, end="")
        raise typer.Exit(EXIT_OK)
    try:  # a name taken meanwhile is refused; --force replaces the name, not a link's target
        output = write_new(output, text, replace=force, rename=False)
    except FileExistsError:
        raise fail(f"{output} already exists; pass --force to replace it", EXIT_USAGE) from None
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}", EXIT_USAGE) from None
    Terminal().warn(f"docsagent: wrote {output}")


def mcp(
    docs: DocSets = None,
    trace_dir: TraceDir = None,
    http: Annotated[
        int | None,
        typer.Option(
            "--http",
            metavar="PORT",
            min=1,
            max=65535,
            help="Serve streamable HTTP on this port instead of stdio.",
            show_default=False,
        ),
    ] = None,
    host: Annotated[
        str, typer.Option("--host", metavar="HOST", help="The address --http listens on.")
    ] = "127.0.0.1",
    allow_origin: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-origin",
            metavar="ORIGIN",
            help="Also serve web pages from this origin (http://host:port), for --http.",
            show_default=False,
        ),
    ] = None,
    config: Annotated[
        str | None,
        typer.Option(
            "--config",
            metavar="CLIENT",
            help=(
                "Print what CLIENT needs to start this server, with absolute paths, and exit: "
                "claude-code, claude-desktop, cursor or vscode."
            ),
            show_default=False,
        ),
    ] = None,
) -> None:
    """Serve the docs to a coding agent over MCP; each session is traced.

    \b
    Set up a client: docsagent mcp --config claude-code --docs /path/to/docs
    """
    if config is not None:
        from tui.mcp.client_config import print_config

        raise typer.Exit(print_config(config, docs_specs(docs), trace_dir))
    from tui.mcp.server import run_mcp

    origins = allow_origin or []
    options = Options(trace_dir=trace_dir)
    raise typer.Exit(
        run_mcp(docs_specs(docs), options, http=http, host=host, allow_origins=origins)
    )


def index(
    folders: Annotated[
        list[Path],
        typer.Argument(metavar="PATH...", help="Docs folders to index.", show_default=False),
    ],
) -> None:
    """Build or refresh the search index of docs folders ahead of use, with progress.

    Exit 0 when every folder is indexed, 2 when one cannot be opened.
    """
    from tui.commands.indexing import index_folders

    raise typer.Exit(index_folders(folders))


def follow(
    trace: Annotated[
        Path | None,
        typer.Argument(
            metavar="[TRACE]",
            help=(
                "The trace to follow, and only it (as --session) [default: the newest "
                "`docsagent mcp` session's, then each newer one's]."
            ),
            show_default=False,
        ),
    ] = None,
    session: Annotated[
        Path | None,
        typer.Option(
            "--session",
            metavar="FILE",
            help="Follow this session's trace only, not the newer sessions that start.",
            show_default=False,
        ),
    ] = None,
    trace_dir: TraceDir = None,
) -> None:
    """Watch a `docsagent mcp` session's look-ups live; with none yet, wait for one."""
    from tui.commands.asking import EXIT_USAGE, fail
    from tui.commands.following import follow_trace

    if trace is not None and session is not None:
        raise fail("give the trace to follow once: as TRACE or as --session", EXIT_USAGE)
    raise typer.Exit(follow_trace(trace or session, Options(trace_dir=trace_dir)))
