"""Command-line options shared by the commands, and turning them into a `Config`.

This is the only place that reads the environment, and the one that knows which option
or variable sets each `Config` field (to name it in error messages).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agent import (
    DEFAULT_MAX_REPLY_TOKENS,
    DEFAULT_MAX_STEPS,
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_TIMEOUT,
    OFFLINE,
    AgentError,
    ConfigError,
)

if TYPE_CHECKING:  # the core loads when a command runs, not for `--help`
    from agent import Config

DEFAULT_REMOTE_MODEL = "gpt-4o-mini"
OFFLINE_NOTICE = (
    "docsagent: no API key set, so answering with the offline model "
    "(set LLM_API_KEY, or pass --model, to use a real one)"
)
SETTINGS: dict[str, str] = {
    "docs": "--docs",
    "model": "--model",
    "base_url": "--base-url",
    "api_key": "LLM_API_KEY (or OPENAI_API_KEY)",
    "max_steps": "--max-steps",
    "token_budget": "--max-tokens",
    "timeout": "--timeout",
    "context": "--context (DOCSAGENT_CONTEXT)",
    "trace_dir": "--trace-dir",
}
"""Where the user sets each `Config` field that an error can name."""


def docs_folder(value: str) -> Path:
    """`--docs PATH` (or `NAME=PATH`, `NAME@VERSION=PATH`, as `docsagent mcp` takes it: the
    folder); an empty one would mean the current folder, which nobody types."""
    from agent import ConfigError, parse_docs_spec

    if not value.strip():
        raise typer.BadParameter("is empty: give a docs folder, or leave it out for the manual")
    try:
        return parse_docs_spec(value).path
    except ConfigError as exc:
        raise typer.BadParameter(str(exc)) from None


Docs = Annotated[
    Path | None,
    typer.Option(
        "--docs",
        metavar="PATH",
        envvar="DOCSAGENT_DOCS",
        help="Docs folder to answer from [default: the bundled manual].",
        show_default=False,
        parser=docs_folder,
    ),
]
DocSets = Annotated[
    list[str] | None,
    typer.Option(
        "--docs",
        metavar="[NAME[@VERSION]=]PATH",
        help=(
            "A docs folder to serve, as PATH, NAME=PATH or NAME@VERSION=PATH; repeat it for "
            "several sets [default: $DOCSAGENT_DOCS, else the bundled manual]."
        ),
        show_default=False,
    ),
]


def docs_specs(given: list[str] | None, environ: Mapping[str, str] | None = None) -> list[str]:
    """The `--docs` values of `docsagent mcp`, else DOCSAGENT_DOCS (one set), else none."""
    if given:
        return given
    env = os.environ if environ is None else environ
    value = env.get("DOCSAGENT_DOCS", "").strip()
    return [value] if value else []


Model = Annotated[
    str | None,
    typer.Option(
        "--model",
        metavar="NAME",
        envvar="LLM_MODEL",
        help="Model name; 'offline' = the embedded model; 'script:FILE' = a scripted model.",
        show_default=False,
    ),
]
BaseUrl = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        metavar="URL",
        envvar=["LLM_BASE_URL", "OPENAI_BASE_URL"],
        help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1.",
        show_default=False,
    ),
]
MaxSteps = Annotated[
    int,
    typer.Option(
        "--max-steps",
        metavar="N",
        envvar="DOCSAGENT_MAX_STEPS",
        min=1,
        help="Bound on model calls per question.",
    ),
]
MaxTokens = Annotated[
    int | None,
    typer.Option(
        "--max-tokens",
        metavar="N",
        envvar="DOCSAGENT_MAX_TOKENS",
        min=1,
        help="Stop a question once it has used this many tokens (prompt + completion).",
        show_default=False,
    ),
]
TracePath = Annotated[
    Path | None,
    typer.Option(
        "--trace",
        metavar="FILE",
        help="Write this run's trace here, never over a file unless --force "
        "[default: the trace folder].",
        show_default=False,
        dir_okay=False,
    ),
]
TraceFile = Annotated[
    Path, typer.Argument(metavar="TRACE", help="A trace file (.jsonl) written by docsagent.")
]
Force = Annotated[
    bool,
    typer.Option("--force", help="Replace the --trace file if it exists (else: exit 2)."),
]
TraceDir = Annotated[
    Path | None,
    typer.Option(
        "--trace-dir",
        metavar="DIR",
        envvar="DOCSAGENT_TRACE_DIR",
        help="Where traces are saved [default: ~/.local/state/docsagent/traces].",
        show_default=False,
        file_okay=False,
    ),
]
NoStream = Annotated[
    bool,
    typer.Option(
        "--no-stream",
        envvar="DOCSAGENT_NO_STREAM",
        help="Ask for whole replies, for servers that cannot stream.",
    ),
]
NoCompact = Annotated[
    bool,
    typer.Option(
        "--no-compact",
        envvar="DOCSAGENT_NO_COMPACT",
        help="Send every earlier tool result whole (by default, once a run passes about "
        "8,000 tokens, results older than the last 3 steps go as one-line stubs).",
    ),
]
Timeout = Annotated[
    float,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        envvar="DOCSAGENT_TIMEOUT",
        min=0.1,
        help="Seconds to wait for the endpoint (also between streamed chunks).",
    ),
]
RequestTimeout = Annotated[
    float,
    typer.Option(
        "--request-timeout",
        metavar="SECONDS",
        envvar="DOCSAGENT_REQUEST_TIMEOUT",
        min=0.1,
        help="Seconds one request to the endpoint may take in all, its streamed reply included.",
    ),
]

Context = Annotated[
    int | None,
    typer.Option(
        "--context",
        metavar="TOKENS",
        envvar="DOCSAGENT_CONTEXT",
        min=256,
        help="The endpoint's context size in tokens; old results are shortened to fit "
        "[default: what the server reports, else unknown].",
        show_default=False,
    ),
]
MaxReplyTokens = Annotated[
    int,
    typer.Option(
        "--max-reply-tokens",
        metavar="N",
        envvar="DOCSAGENT_MAX_REPLY_TOKENS",
        min=1,
        help="The longest reply the endpoint may send, in tokens (sent as max_tokens).",
    ),
]


@dataclass(frozen=True)
class Options:
    """The shared options as given on the command line.

    Each field is one option, defined once: its type says how it is given and shown, its
    default is the option's, and the fields' order is `--help`'s. `tui.commands.parameters`
    gives every command that runs questions these fields as its parameters.
    """

    docs: Docs = None
    model: Model = None
    base_url: BaseUrl = None
    max_steps: MaxSteps = DEFAULT_MAX_STEPS
    max_tokens: MaxTokens = None
    trace: TracePath = None
    force: Force = False
    trace_dir: TraceDir = None
    no_stream: NoStream = False
    no_compact: NoCompact = False
    timeout: Timeout = DEFAULT_TIMEOUT
    request_timeout: RequestTimeout = DEFAULT_REQUEST_TIMEOUT
    context: Context = None
    max_reply_tokens: MaxReplyTokens = DEFAULT_MAX_REPLY_TOKENS

    @classmethod
    def from_context(cls, ctx: typer.Context) -> Options:
        """The options of a command, taking any given before the command name as well."""
        names = [f.name for f in dataclasses.fields(cls)]
        values = {name: ctx.params[name] for name in names if name in ctx.params}
        parent = ctx.parent
        if parent is not None:
            for name in names:
                if name in parent.params and _rank(parent, name) > _rank(ctx, name):
                    values[name] = parent.params[name]
        return cls(**values)


def _rank(ctx: Any, name: str) -> int:
    """How strongly an option was given: on the command line, by its variable, or not at all."""
    source = ctx.get_parameter_source(name)
    return {"COMMANDLINE": 2, "ENVIRONMENT": 1}.get(source.name if source else "", 0)


def make_config(
    options: Options, environ: Mapping[str, str] | None = None
) -> tuple[Config, str | None]:
    """The run's config and an optional one-line notice (the offline fallback)."""
    from agent import Config, default_docs, default_trace_dir

    env = os.environ if environ is None else environ
    keys = ((name, env.get(name, "").strip()) for name in ("LLM_API_KEY", "OPENAI_API_KEY"))
    key_from, api_key = next(((name, key) for name, key in keys if key), (None, None))
    model = options.model or env.get("OPENAI_MODEL") or None
    fallbacks = [
        name
        for name, used in (
            ("OPENAI_API_KEY", key_from == "OPENAI_API_KEY"),
            ("OPENAI_MODEL", not options.model and model is not None),
            ("OPENAI_BASE_URL", _from_openai_base_url(options.base_url, env)),
        )
        if used
    ]
    notice = None
    if model is None:
        if api_key is None:
            model, notice = OFFLINE, OFFLINE_NOTICE
        else:
            model = DEFAULT_REMOTE_MODEL
    if model.startswith("script:") and not model.removeprefix("script:"):
        raise ConfigError(
            "--model script: needs a file, e.g. --model script:data/samples/script.json"
        )
    config = Config(
        docs=options.docs or default_docs(),
        model=model,
        base_url=options.base_url,
        api_key=api_key,
        max_steps=options.max_steps,
        token_budget=options.max_tokens,
        stream=not options.no_stream,
        compact=not options.no_compact,
        timeout=options.timeout,
        request_timeout=options.request_timeout,
        context=options.context,
        max_reply_tokens=options.max_reply_tokens,
        trace_dir=options.trace_dir or default_trace_dir(xdg_home(env, "XDG_STATE_HOME")),
        cache_dir=cache_dir(env),
        prices=_prices(env.get("DOCSAGENT_PRICES")),
    )
    if fallbacks and notice is None and config.endpoint:
        notice = fallback_notice(config, fallbacks)
    return config, notice


def _from_openai_base_url(base_url: str | None, env: Mapping[str, str]) -> bool:
    """Whether `--base-url`'s value came from OPENAI_BASE_URL (LLM_BASE_URL comes first)."""
    return bool(base_url) and base_url == env.get("OPENAI_BASE_URL") and not env.get("LLM_BASE_URL")


def fallback_notice(config: Config, names: list[str]) -> str:
    """`docsagent: using gpt-4o-mini at api.openai.com because OPENAI_API_KEY is set`."""
    from urllib.parse import urlsplit

    host = urlsplit(config.endpoint or "").hostname or config.endpoint
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
    verb = "is" if len(names) == 1 else "are"
    return f"docsagent: using {config.model} at {host} because {listed} {verb} set"


def history_file(environ: Mapping[str, str] | None = None) -> Path:
    """Where the TUI keeps the questions asked: $XDG_STATE_HOME/docsagent/history."""
    env = os.environ if environ is None else environ
    return xdg_home(env, "XDG_STATE_HOME") / "docsagent" / "history"


def docs_folders_file(environ: Mapping[str, str] | None = None) -> Path:
    """Where the docs folders asked about are kept (for `rerun`): beside the history."""
    return history_file(environ).with_name("docs-folders")


def cache_dir(env: Mapping[str, str]) -> Path:
    """Where search indexes are kept: $DOCSAGENT_CACHE_DIR, else $XDG_CACHE_HOME/docsagent."""
    chosen = env.get("DOCSAGENT_CACHE_DIR", "").strip()
    if chosen:
        return Path(chosen).expanduser()
    return xdg_home(env, "XDG_CACHE_HOME") / "docsagent"


def settings_file(environ: Mapping[str, str] | None = None) -> Path:
    """The TUI's settings: $XDG_CONFIG_HOME/docsagent/settings.json, else under ~/.config."""
    env = os.environ if environ is None else environ
    return xdg_home(env, "XDG_CONFIG_HOME") / "docsagent" / "settings.json"


_XDG_DEFAULTS = {
    "XDG_STATE_HOME": (".local", "state"),
    "XDG_CACHE_HOME": (".cache",),
    "XDG_CONFIG_HOME": (".config",),
}


def xdg_home(env: Mapping[str, str], name: str) -> Path:
    """An XDG base folder: `$name` when it is an absolute path, else its default under ~.

    A blank or relative value counts as unset, as the XDG spec says (a blank one once put
    traces in a folder named by its spaces, in the current directory).
    """
    chosen = Path(env.get(name, "").strip()).expanduser()
    return chosen if chosen.is_absolute() else Path.home().joinpath(*_XDG_DEFAULTS[name])


def _prices(text: str | None) -> dict[str, tuple[float, float]]:
    if not text:
        return {}
    from agent import parse_prices

    return parse_prices(text)


def explain(error: AgentError) -> str:
    """The error's line, followed by the options (or variables) that set what it names."""
    names = [SETTINGS[name] for name in error.fields if name in SETTINGS]
    if not names:
        return str(error)
    verb = "set" if error.fields == ("api_key",) else "check"
    return f"{error}; {verb} {' and '.join(names)}"
