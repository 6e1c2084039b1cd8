"""An endpoint's address as messages show it (no credentials, no query), and where it is.

The error messages (`errors.py`), the HTTP client (`transport.py`) and what is learned of an
endpoint (`endpoint.py`) all name it, so it sits below them; `Config` asks it too, without
importing the SDK.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


def endpoint_of(base_url: str) -> str:
    """The scheme, host and port of `base_url`, for display (no path, no credentials)."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}" if parts.scheme else base_url


def display_url(base_url: str) -> str:
    """`base_url` without credentials or query, for error messages."""
    parts = urlsplit(base_url)
    return endpoint_of(base_url) + parts.path if parts.scheme else base_url


def is_local(base_url: str) -> bool:
    """Whether `base_url` points at this machine (where servers rarely want a key)."""
    host = (urlsplit(base_url).hostname or "").lower()
    return host in _LOCAL_HOSTS or host.endswith(".localhost") or host.startswith("127.")


def is_private(base_url: str) -> bool:
    """Whether `base_url` is on this machine or a private network (127.0.0.1, ::1, 10.x,
    192.168.x, fd00::/8, a `.local` name): a server someone runs, not a priced service."""
    host = (urlsplit(base_url).hostname or "").lower()
    if is_local(base_url) or host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_private or address.is_loopback or address.is_link_local
