"""`docsagent mcp --config CLIENT`: the lines a coding agent needs to start `docsagent mcp`.

Clients start servers with an environment of their own, often without the PATH of the
shell that installed docsagent (a virtual environment's `bin` is never on it), so the
command is the absolute path of the docsagent being run, and every folder is absolute.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

CLIENTS = ("claude-code", "claude-desktop", "cursor", "vscode")
"""The clients `--config` writes for."""

SERVER_NAME = "docs"
"""The name the server is given in the client's settings."""

WHERE = {
    "claude-code": "run this line in your project (add --scope user to have it everywhere):",
    "claude-desktop": (
        "add this to claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, "
        "Windows: %APPDATA%\\Claude\\), then restart Claude Desktop:"
    ),
    "cursor": "add this to ~/.cursor/mcp.json (every project) or .cursor/mcp.json:",
    "vscode": "add this to .vscode/mcp.json (or MCP: Open User Configuration):",
}
"""Where each client's snippet goes, said on stderr before it is printed."""


def executable(argv0: str | None = None, python: str | None = None) -> list[str]:
    """The command that runs this docsagent from anywhere: its script's absolute path.

    Run as `python -c ...` or `python -m ...`, the `docsagent` script beside that Python
    (a virtual environment's), else that Python running the CLI module.
    """
    script = argv0 if argv0 is not None else sys.argv[0]
    if Path(script).name in {"docsagent", "docsagent.exe"} and os.path.isfile(script):
        return [os.path.abspath(script)]
    interpreter = Path(python if python is not None else sys.executable)
    beside = interpreter.with_name("docsagent.exe" if os.name == "nt" else "docsagent")
    if beside.is_file():
        return [os.path.abspath(beside)]
    return [os.path.abspath(interpreter), "-m", "tui.cli"]


def server_args(docs: Sequence[str], trace_dir: Path | None) -> list[str]:
    """`mcp` and its options, each folder absolute (`docs` as the user wrote each set)."""
    args = ["mcp"]
    for spec in docs:
        args += ["--docs", absolute_spec(spec)]
    if trace_dir is not None:
        args += ["--trace-dir", os.path.abspath(trace_dir.expanduser())]
    return args


def absolute_spec(spec: str) -> str:
    """A `--docs` value with its folder made absolute: PATH, NAME=PATH or NAME@VERSION=PATH."""
    name, sep, path = spec.partition("=")
    if not sep or "/" in name or os.sep in name or not name:
        return os.path.abspath(os.path.expanduser(spec))
    return f"{name}={os.path.abspath(os.path.expanduser(path))}"


def snippet(client: str, command: Sequence[str]) -> str:
    """What to paste into `client`'s settings (or run, for Claude Code) to start `command`."""
    program, *args = command
    if client == "claude-code":
        return shlex.join(["claude", "mcp", "add", SERVER_NAME, "--", *command])
    if client == "vscode":
        server = {"type": "stdio", "command": program, "args": args}
        return json.dumps({"servers": {SERVER_NAME: server}}, indent=2)
    return json.dumps({"mcpServers": {SERVER_NAME: {"command": program, "args": args}}}, indent=2)


def print_config(client: str, docs: Sequence[str], trace_dir: Path | None) -> int:
    """`docsagent mcp --config CLIENT`: the snippet on stdout, where it goes on stderr."""
    import importlib.util

    from tui.commands.asking import EXIT_OK, EXIT_USAGE, warn
    from tui.terminal import Terminal

    terminal = Terminal()
    if client not in CLIENTS:
        warn(terminal, f"docsagent: unknown client {client!r}: use {', '.join(CLIENTS)}")
        return EXIT_USAGE
    missing = [spec for spec in docs if not Path(absolute_spec(spec).rpartition("=")[2]).is_dir()]
    if missing:
        warn(terminal, f"docsagent: no docs folder at {absolute_spec(missing[0])}")
        return EXIT_USAGE
    if importlib.util.find_spec("mcp") is None:
        warn(terminal, "docsagent: the server will need the mcp SDK: pip install 'docsagent[mcp]'")
    warn(terminal, f"docsagent: {WHERE[client]}")
    terminal.say(snippet(client, [*executable(), *server_args(docs, trace_dir)]))
    return EXIT_OK
