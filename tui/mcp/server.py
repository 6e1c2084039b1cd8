"""`docsagent mcp`: the docs tools served over the Model Context Protocol (the `mcp` SDK).

A thin adapter over `agent`: tools/list is the docs registry's own names, descriptions
and schemas, each argument described (`Tool.described_parameters`); tools/call runs
`ServedTools.call` (the registry's argument checks, the sandbox, one trace per session)
on a worker thread and returns its text made terminal-safe, a failure as a tool error
(isError) the client shows. Over stdio the SDK keeps stdout for the protocol (anything
else printed goes to stderr); logs go to stderr.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent import (
    ConfigError,
    DocSet,
    DocsSpec,
    ServedTools,
    StopReason,
    docs_registry,
    find_version,
    name_sets,
    open_docs,
    parse_docs_spec,
    title_of,
)
from tui.commands import signals
from tui.commands.asking import EXIT_ERROR, EXIT_OK, EXIT_USAGE, warn
from tui.commands.options import Options, docs_folders_file, explain, make_config
from tui.commands.signals import STOP_GRACE_S, STOP_SIGNALS
from tui.mcp.http import ListenError, inert_logs, listen, transport_security
from tui.statefiles.docs_folders import remember
from tui.terminal import Terminal, visible

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server


INSTRUCTIONS = (
    "Search and read a local documentation folder. Start with search_docs; read_doc shows "
    "numbered lines, so cite what you use as path:start-end."
)
TITLE_CHARS = 80  # of a set's title in the instructions (it comes from the docs)
SIGNAL_NAMES = {"SIGINT": "interrupted", **STOP_SIGNALS}
"""Signals that stop the server with its trace closed; the exit code is 128 + N."""

STOP_WAIT_S = STOP_GRACE_S / 2
"""How long a stop signal lets running calls finish before the trace ends: well within the
time `tui.commands.signals` gives the process before it ends it (a call still running then is
left out of the trace, which is closed)."""


def run_mcp(
    specs: list[str],
    options: Options,
    *,
    http: int | None = None,
    host: str = "127.0.0.1",
    allow_origins: Sequence[str] = (),
) -> int:
    """`docsagent mcp`: serve the docs at once, indexing them meanwhile (progress on
    stderr; a search waits for the index); the exit code.

    With `http`, the port is taken first (`tui.mcp.http.listen`): a start that fails is
    one line, before any other, and leaves no trace.
    """
    from tui.commands.indexing import IndexAhead

    terminal = Terminal()
    try:
        import mcp  # noqa: F401
    except ImportError:
        warn(terminal, "docsagent: the MCP server needs the mcp SDK: pip install 'docsagent[mcp]'")
        return EXIT_USAGE
    listener = None
    try:
        config, _ = make_config(options)  # the model is the client's: no notice about ours
        sets = open_sets(specs, options)
        for each in sets:  # served: `rerun` may read it again
            remember(docs_folders_file(), Path(each.folder))
        if http is not None:
            listener = listen(host, http)
        labels = [f"docsagent: index of {s.label}" for s in sets]
        ahead = IndexAhead([(s.docs, label) for s, label in zip(sets, labels, strict=True)])
        docs = sets[0].folder
        served = ServedTools(
            docs_registry(),
            [sets[0].docs],
            trace_dir=config.trace_dir,
            docs=docs,
            indexed=ahead.ready,
            sets=sets,
        )
    except (ConfigError, ListenError) as exc:
        if listener is not None:
            listener.close()
        message = explain(exc) if isinstance(exc, ConfigError) else str(exc)
        warn(terminal, f"docsagent: {message}")
        return EXIT_USAGE if isinstance(exc, ConfigError) else EXIT_ERROR
    where = f"http://{_shown_host(host)}:{http}/mcp" if http is not None else "stdio"
    what = docs if len(sets) == 1 else ", ".join(f"{s.label} ({s.folder})" for s in sets)
    warn(terminal, f"docsagent: serving {what} over MCP ({where}); trace: {served.path}")
    security = transport_security(host, listener, allow_origins) if listener else None
    return serve(
        served, listener=listener, security=security, on_request=ahead.start, on_end=ahead.quiet
    )


def open_sets(specs: list[str], options: Options) -> list[DocSet]:
    """The doc sets `--docs` names (the default docs folder when none), opened, each with
    its name, version and title. Raises ConfigError for a folder or name that will not do."""
    sets = []
    read: list[DocsSpec | None] = [parse_docs_spec(s) for s in specs]
    for spec in read or [None]:
        path = None if spec is None else spec.path
        config, _ = make_config(dataclasses.replace(options, docs=path))
        docs = open_docs(config)
        folder = os.path.abspath(config.docs.expanduser())
        name = (spec and spec.name) or Path(folder).name or "docs"
        version = (spec and spec.version) or find_version(Path(folder))
        sets.append(DocSet(name, version, title_of(docs, name), folder, docs))
    return name_sets(sets)


def instructions(sets: list[DocSet]) -> str:
    """What the server tells the client it serves: each set's name, version and title."""
    if len(sets) == 1:
        only = sets[0]
        return (
            f"Search and read a local documentation folder: {only.title[:TITLE_CHARS]} "
            f"({only.label}). " + INSTRUCTIONS.split(". ", 1)[1]
        )
    listed = "; ".join(
        f"{s.key}: {s.title[:TITLE_CHARS]}, version {s.version or 'unknown'}" for s in sets
    )
    return (
        f"Search and read local documentation in {len(sets)} doc sets ({listed}). "
        "search_docs looks in every set unless you pass set=; every result names its set "
        "and version, so say which version you cite. " + INSTRUCTIONS.split(". ", 1)[1]
    )


def build_server(
    served: ServedTools, *, on_request: Callable[[], None] = lambda: None
) -> Server[Any]:
    """The SDK's low-level server offering `served`'s tools, named and described as
    registered; `on_request` runs before each tools request (the first starts the index)."""
    import anyio.to_thread
    import mcp.types as types
    from mcp.server.lowlevel import Server

    hints = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
    tools = [
        types.Tool(
            name=tool["name"],
            description=tool["description"],
            input_schema=tool["schema"],
            annotations=hints,
        )
        for tool in served.schemas()
    ]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        on_request()
        return types.ListToolsResult(tools=tools)

    warned: list[str] = []

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        on_request()
        outcome = await anyio.to_thread.run_sync(served.call, params.name, params.arguments)
        if served.trace_error is not None and not warned:  # said once; the calls go on
            warned.append(served.trace_error)
            warn(Terminal(), f"docsagent: {served.trace_error}; calls go on without a trace")
        text = types.TextContent(type="text", text=visible(outcome.output))
        return types.CallToolResult(content=[text], is_error=outcome.error)

    return Server(
        "docsagent",
        version=_version(),
        instructions=instructions(served.sets) if served.sets else INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("docsagent")
    except PackageNotFoundError:
        return "0"


def _shown_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def serve(
    served: ServedTools,
    *,
    listener: socket.socket | None = None,
    security: Any = None,
    on_request: Callable[[], None] = lambda: None,
    on_end: Callable[[], None] = lambda: None,
) -> int:
    """Serve over stdio, or HTTP on `listener` (with `security`, the SDK's Host and Origin
    checks: `tui.mcp.http.transport_security`), until the client leaves or the server is
    stopped; the exit code. The trace is closed on every path (`finally`); `on_end` runs
    first, before the session's last line.

    A stop signal closes the trace and ends the process at once with 128 + N: over stdio
    the SDK reads stdin on a worker thread that no cancel can interrupt. A client that
    goes away mid-reply (a broken pipe) ends the trace `disconnected`, as one that closes
    the session does; any other failure ends it saying so.
    """
    import anyio

    server = build_server(served, on_request=on_request)
    terminal = Terminal()
    code = EXIT_OK
    why = "the server stopped"  # uvicorn passes a signal on to ours, which ends the trace
    reason: StopReason = "cancelled"
    try:
        with (
            inert_logs(),
            _StopSignals(served, terminal),
            signals.closing(lambda: _close(served, _stopped_by())),
        ):
            if listener is None:
                anyio.run(_serve_stdio, server)
            else:
                anyio.run(_serve_http, server, listener, security)
        if listener is None:  # stdin closed: how a client ends an MCP session over stdio
            why, reason = "the MCP client closed the session", "disconnected"
    except Exception as exc:
        on_end()
        why, reason = _failure(exc)
        warn(terminal, f"docsagent: the MCP session ended: {why}; trace: {served.path}")
        code = EXIT_ERROR
        if listener is None:
            _quiet_stdout()  # the client is gone: nothing more can reach it
    finally:
        on_end()
        served.close(why, stop_reason=reason)
    return code


async def _serve_stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


async def _serve_http(server: Server[Any], listener: socket.socket, security: Any) -> None:
    import uvicorn

    app = server.streamable_http_app(transport_security=security)
    # log_config=None: uvicorn's lines go to the root logger, where `inert_logs` writes them
    config = uvicorn.Config(app, log_config=None, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[listener])


def _close(served: ServedTools, why: str) -> None:
    """End the trace at once (the signal guard's last resort)."""
    served.close(why, wait_s=0.0)


def _stopped_by() -> str:
    signum = signals.received()
    return signals.describe(signum) if signum is not None else "the server stopped"


def _failure(exc: BaseException) -> tuple[str, StopReason]:
    """What ended the session, in a few words, and its stop reason: a client gone
    (`disconnected`, as a client that closes the session), or the error (`cancelled`)."""
    leaves = list(_leaves(exc))
    if any(isinstance(e, (BrokenPipeError, ConnectionResetError)) for e in leaves):
        return "the MCP client went away (broken pipe)", "disconnected"
    first = leaves[0] if leaves else exc
    return visible(" ".join(f"{type(first).__name__}: {first}".split()))[:300], "cancelled"


def _leaves(exc: BaseException) -> Any:
    """The exceptions inside `exc`, exception groups opened."""
    inner = getattr(exc, "exceptions", None)
    if isinstance(inner, (list, tuple)):
        for each in inner:
            yield from _leaves(each)
    else:
        yield exc


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit cannot fail again."""
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


class _StopSignals:
    """Within the block, SIGINT, SIGTERM and SIGHUP close the trace and exit 128 + N."""

    def __init__(self, served: ServedTools, terminal: Terminal) -> None:
        self.served, self.terminal = served, terminal
        self.previous: dict[int, Callable[..., Any] | int | None] = {}

    def __enter__(self) -> None:
        for name in SIGNAL_NAMES:
            number = getattr(signal, name, None)
            if number is not None:
                self.previous[number] = signal.signal(number, self._stop)

    def __exit__(self, *exc: object) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)

    def _stop(self, signum: int, frame: object) -> None:
        name = signal.Signals(signum).name
        self.served.close(f"{SIGNAL_NAMES[name]} ({name})", wait_s=STOP_WAIT_S)
        self.terminal.warn(f"docsagent: {SIGNAL_NAMES[name]} ({name}); trace: {self.served.path}")
        sys.stderr.flush()
        os._exit(128 + signum)
