"""The configuration of a run, and the one factory that builds the object graph from it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from agent.compaction import Compaction
from agent.defaults import (
    DEFAULT_BASE_URL,
    DEFAULT_COMPACT_AFTER,
    DEFAULT_MAX_REPLY_TOKENS,
    DEFAULT_MAX_RETRIES,
    DEFAULT_MAX_STEPS,
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_TIMEOUT,
    OFFLINE,
)
from agent.errors import ConfigError
from agent.loop import Agent
from agent.models.base import Model
from agent.pricing import estimate_cost
from agent.search import DocsIndex
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry

if TYPE_CHECKING:
    from agent.models.openai.transport import ModelHTTPClient


def default_docs() -> Path:
    """The bundled manual: from an installed wheel, or from a checkout."""
    try:
        from importlib.resources import files

        bundled = Path(str(files("docsagent_data") / "manual"))
        if bundled.is_dir():
            return bundled
    except (ModuleNotFoundError, TypeError):
        pass
    return Path(__file__).resolve().parent.parent / "data" / "manual"


def default_trace_dir(state_home: Path | None = None) -> Path:
    """Where traces are saved when no folder is given: under the XDG state folder.

    `state_home` is that folder as the CLI found it (`tui/commands/options.py`); else
    ~/.local/state.
    """
    return (state_home or Path.home() / ".local" / "state") / "docsagent" / "traces"


@dataclass(frozen=True)
class Config:
    """Everything a run needs; built at the CLI edge from options and the environment."""

    docs: Path = field(default_factory=default_docs)
    model: str = OFFLINE
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    max_steps: int = DEFAULT_MAX_STEPS
    token_budget: int | None = None
    compact: bool = True
    stream: bool = True
    timeout: float = DEFAULT_TIMEOUT
    request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT
    max_retries: int = DEFAULT_MAX_RETRIES
    context: int | None = None
    """The endpoint's context window in tokens; None: what the server reports, if anything."""
    max_reply_tokens: int | None = DEFAULT_MAX_REPLY_TOKENS
    """The longest reply asked for (`max_tokens`); None: the server's own limit."""
    trace_dir: Path = field(default_factory=default_trace_dir)
    cache_dir: Path | None = None
    """Where the search index is kept; None keeps it in memory."""
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.base_url is not None:
            check_base_url(self.base_url)

    @property
    def is_offline(self) -> bool:
        return self.model == OFFLINE

    @property
    def endpoint(self) -> str | None:
        """The endpoint's scheme, host, port and path, for display and the record of a run;
        never a key, credentials or a query string."""
        if self.is_offline or self.model.startswith("script:"):
            return None
        from agent.models.openai.address import display_url

        return display_url(self.base_url or DEFAULT_BASE_URL)

    @property
    def is_private(self) -> bool:
        """Whether the endpoint is on this machine or a private network (so: no list price)."""
        if self.endpoint is None:
            return False
        from agent.models.openai.address import is_private

        return is_private(self.base_url or DEFAULT_BASE_URL)


_URL = ("base_url",)  # the field each of check_base_url's errors names


def check_base_url(url: str) -> None:
    """Raise ConfigError, in one line, unless `url` is an http(s) URL with a host and a valid port.

    Checked once, before any run: a malformed URL would otherwise fail inside the HTTP
    client on every request (and some forms would be retried). The URL itself is not
    quoted, since it may hold credentials.
    """
    example = "e.g. http://localhost:11434/v1"
    if any(char.isspace() or not char.isprintable() for char in url):
        raise ConfigError(
            "bad base URL: it holds a space, a line break or another control character",
            fields=_URL,
        )
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        if "port" in str(exc).lower():
            raise ConfigError(
                f"bad base URL: the port must be 1 to 65535, {example}", fields=_URL
            ) from None
        raise ConfigError(
            "bad base URL: the host in brackets is not an IPv6 address, e.g. http://[::1]:8000/v1",
            fields=_URL,
        ) from None
    if parts.scheme not in ("http", "https"):
        raise ConfigError(
            f"bad base URL: it must start with http:// or https://, {example}", fields=_URL
        )
    host = parts.hostname
    if not host:
        raise ConfigError(f"bad base URL: it has no host, {example}", fields=_URL)
    if port == 0:
        raise ConfigError(f"bad base URL: the port must be 1 to 65535, {example}", fields=_URL)
    try:
        host.encode("idna")  # what the resolver does: empty or overlong labels fail here
    except UnicodeError:
        raise ConfigError(
            f"bad base URL: the host name is not valid, {example}", fields=_URL
        ) from None


def build_model(
    config: Config, *, docs: DocsContext | None = None, http: ModelHTTPClient | None = None
) -> Model:
    """The model the config names: offline, script:FILE, or an OpenAI-compatible endpoint.

    The offline model answers from `docs` (opened from the config when not given); an
    endpoint's model sends its requests through `http` when given (see `shared_http`).
    """
    if config.is_offline:
        from agent.models.offline import OfflineModel

        return OfflineModel(docs if docs is not None else open_docs(config))
    if config.model.startswith("script:"):
        from agent.models.scripted import load_script

        return load_script(config.model.removeprefix("script:"))
    from agent.models.openai.known import KnownEndpoints
    from agent.models.openai.model import OpenAIModel

    return OpenAIModel(
        config.model,
        api_key=config.api_key,
        base_url=config.base_url,
        stream=config.stream,
        timeout=config.timeout,
        request_timeout=config.request_timeout,
        max_retries=config.max_retries,
        http_client=http,
        max_reply_tokens=config.max_reply_tokens,
        context=config.context,
        known=KnownEndpoints(config.cache_dir),
    )


@contextmanager
def shared_http(config: Config) -> Iterator[ModelHTTPClient | None]:
    """One HTTP client, and so one connection pool, for many runs against the config's
    endpoint (eval's questions), closed when the block ends; None for a model on this
    machine (offline, script:FILE). A client costs about 40 ms of CPU to make, mostly its
    TLS context, and a new connection per question costs a handshake more."""
    if config.is_offline or config.model.startswith("script:"):
        yield None
        return
    from agent.models.openai.transport import ModelHTTPClient

    http = ModelHTTPClient(timeout=config.timeout, request_timeout=config.request_timeout)
    try:
        yield http
    finally:
        http.shutdown()
        http.close()


def compaction_for(config: Config) -> Compaction | None:
    """How the run keeps its context small: None when switched off.

    With a token budget the threshold drops to a quarter of it, so a budgeted run
    shortens its context before the budget is half spent.
    """
    if not config.compact:
        return None
    after = DEFAULT_COMPACT_AFTER
    if config.token_budget is not None:
        after = max(min(after, config.token_budget // 4), 1)
    return Compaction(after_tokens=after)


def open_docs(config: Config) -> DocsContext:
    """The config's docs folder and its search index (opened on first use, or `prepare`)."""
    corpus = Corpus.open(config.docs)
    return DocsContext(corpus, DocsIndex(corpus, cache_dir=config.cache_dir))


def build_agent(
    config: Config,
    *,
    model: Model | None = None,
    docs: DocsContext | None = None,
    http: ModelHTTPClient | None = None,
) -> Agent:
    """The agent over the config's docs folder (or the `docs` already opened) and model
    (an endpoint's sending through `http` when given)."""
    if config.max_steps < 1:
        raise ConfigError("max_steps must be at least 1", fields=("max_steps",))
    docs = docs if docs is not None else open_docs(config)
    return Agent(
        model if model is not None else build_model(config, docs=docs, http=http),
        docs_registry(),
        context=[docs],
        max_steps=config.max_steps,
        token_budget=config.token_budget,
        compaction=compaction_for(config),
        cost=partial(
            estimate_cost, config.model, extra=config.prices, listed=not config.is_private
        ),
        docs=os.path.abspath(Path(config.docs).expanduser()),  # a trace reruns from anywhere
        endpoint=config.endpoint,
    )
