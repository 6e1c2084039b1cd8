"""The shared options on each command that runs questions, from one definition: `Options`.

A command marks where they go with a keyword-only `options: Options` parameter, and
`with_options` puts there one parameter per field of `Options`, typed and defaulted as
the field is (Typer reads the options from them and lists them in the fields' order). The
command is called with their values gathered into one `Options`, those given before its
name included (`Options.from_context`). So a shared option is added once: as a field.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable, Collection
from typing import Any

import typer

from tui.commands.options import Options

Command = Callable[..., None]

_CONTEXT = "_options_context"
"""The context parameter added for a command that takes none itself."""

_KEYWORD = inspect.Parameter.KEYWORD_ONLY  # Typer passes every value by its name


def with_options(*, without: Collection[str] = ()) -> Callable[[Command], Command]:
    """Give a command the shared options but those named `without`, where it takes `options`."""
    unknown = set(without) - {field.name for field in dataclasses.fields(Options)}
    if unknown:
        raise ValueError(f"no such option in Options: {', '.join(sorted(unknown))}")

    def decorate(command: Command) -> Command:
        own = list(inspect.signature(command, eval_str=True).parameters.values())
        at = [parameter.name for parameter in own].index("options")
        shared = [parameter for parameter in _shared() if parameter.name not in without]
        context = next((p.name for p in own if _is_context(p.annotation)), None)
        added = [] if context else [inspect.Parameter(_CONTEXT, _KEYWORD, annotation=typer.Context)]
        parameters = [p.replace(kind=_KEYWORD) for p in [*own[:at], *shared, *own[at + 1 :]]]

        @functools.wraps(command)
        def run(**values: Any) -> None:
            ctx = values[context] if context else values.pop(_CONTEXT)
            for parameter in shared:  # read again from the context, with the parent's
                del values[parameter.name]
            command(**values, options=Options.from_context(ctx))

        signature = inspect.Signature([*parameters, *added], return_annotation=None)
        run.__signature__ = signature  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
        return run

    return decorate


@functools.cache
def _shared() -> tuple[inspect.Parameter, ...]:
    """A parameter for each field of `Options`, in their order."""
    types = typing.get_type_hints(Options, include_extras=True)  # the Annotated options
    return tuple(
        inspect.Parameter(field.name, _KEYWORD, annotation=types[field.name], default=field.default)
        for field in dataclasses.fields(Options)
    )


def _is_context(annotation: object) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, typer.Context)
