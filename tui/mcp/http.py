"""`docsagent mcp --http`: the port taken before anything else, Host and Origin checked for
every `--host`, and every log line made inert.

- **The port first.** The listening socket is made before the docs are indexed or a trace
  is opened, so a port in use or a host that does not resolve is one line and no trace
  (uvicorn used to say "serving" first, then its raw ERROR, and leave a trace open).
- **Host and Origin for every host.** The SDK checks them only when it listens on
  127.0.0.1, localhost or ::1; on any other address it served every request, so a web page
  could reach the docs by DNS rebinding. Here the allowed names are the host given (on
  0.0.0.0 or ::, this machine's loopback names, its host name and its addresses), with any
  port; origins are `http://` those names, plus each `--allow-origin`.
- **Inert logs.** The SDK logs a refused header as it came ("Invalid Host header: ..."),
  escape sequences and all: every log line is written through `visible`, on one line.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from collections.abc import Sequence
from typing import Any

from tui.terminal import Terminal, visible

LOOPBACK = ("127.0.0.1", "localhost", "::1")
EVERY_ADDRESS = ("0.0.0.0", "::", "")
LOG_LINE_CHARS = 500
"""Characters of a log message shown; the rest is cut."""


class ListenError(Exception):
    """The port cannot be listened on; the message is one line for the user."""


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on `host`:`port`; ListenError saying why not."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ListenError(f"cannot listen on {host}:{port}: {why}") from None
    family, _, _, _, address = infos[0]
    try:
        return socket.create_server(address, family=family, backlog=128)
    except OSError as exc:
        why = os.strerror(exc.errno) if exc.errno else str(exc)
        raise ListenError(f"cannot listen on {host}:{port}: {why}") from None


def allowed_names(host: str) -> list[str]:
    """The names a request's Host header may give for a server listening on `host`."""
    names = {host} if host not in EVERY_ADDRESS else set()
    if host in LOOPBACK or host in EVERY_ADDRESS:
        names.update(LOOPBACK)
    if host in EVERY_ADDRESS:
        names.update(_this_machine())
    return sorted(names)


def _this_machine() -> set[str]:
    """This machine's host names and addresses, as far as it knows them."""
    names = {socket.gethostname(), socket.getfqdn()}
    with contextlib.suppress(OSError, UnicodeError):
        for info in socket.getaddrinfo(socket.gethostname(), None):
            names.add(str(info[4][0]))
    return {name for name in names if name}


def _bracketed(name: str) -> str:
    return f"[{name}]" if ":" in name else name


def transport_security(
    host: str, listener: socket.socket, allow_origins: Sequence[str] = ()
) -> Any:
    """The SDK's Host and Origin checks for a server asked to listen on `host`, listening
    with `listener` (whose address is allowed too)."""
    from mcp.server.transport_security import TransportSecuritySettings

    bound = str(listener.getsockname()[0])
    names = [_bracketed(name) for name in sorted({*allowed_names(host), *allowed_names(bound)})]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in names],
        allowed_origins=[f"http://{name}:*" for name in names] + list(allow_origins),
    )


class InertLog(logging.Handler):
    """Log records as one inert line each on stderr: `docsagent: warning: ...`."""

    def __init__(self, terminal: Terminal | None = None) -> None:
        super().__init__(logging.WARNING)
        self.terminal = terminal or Terminal()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                error = record.exc_info[1]
                message += f" ({type(error).__name__}: {error})"
            line = " ".join(message.split())
            if len(line) > LOG_LINE_CHARS:
                line = line[:LOG_LINE_CHARS] + "…"
            self.terminal.warn(f"docsagent: {record.levelname.lower()}: {visible(line)}")
        except Exception:  # a log line must never stop the server
            self.handleError(record)


@contextlib.contextmanager
def inert_logs() -> Any:
    """Within the block, every log line (the SDK's, uvicorn's) goes through `InertLog` only."""
    root = logging.getLogger()
    handler = InertLog()
    saved = root.handlers[:], root.level
    root.handlers = [handler]
    root.setLevel(logging.WARNING)
    try:
        yield
    finally:
        root.handlers, level = saved
        root.setLevel(level)
