"""What docsagent learned of each endpoint, kept in the cache folder with its age.

One JSON file, `endpoints.json`, maps an endpoint (its URL without credentials or query)
and a model name to what the probes found (the context, the models listed) and whether
it streams tool calls. `ask`, eval and the TUI read it before asking the server again, so
an endpoint already known costs no round trip before the first question. A damaged file
is set aside as unknown and written anew; an entry older than `MAX_AGE_S` is asked again.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent.atomic import write_atomic
from agent.models.openai.window import Facts

MAX_AGE_S = 7 * 24 * 3600.0
"""What was learned of an endpoint is asked again after a week (a server can be restarted
with another context)."""

MAX_ENTRIES = 64
"""The most endpoints kept; the oldest go first."""

FILE_NAME = "endpoints.json"


@dataclass(frozen=True)
class Known:
    """What is known of one endpoint and model, and when it was learned (`time.time()`)."""

    facts: Facts
    streams_tools: bool | None = None
    """False once the server was seen unable to stream a reply with tool calls."""
    learned: float = 0.0
    probed: bool = True
    """False when only `streams_tools` is known (the run was given its context: no probe)."""


class KnownEndpoints:
    """The file of known endpoints in `folder`; None keeps nothing (every run asks)."""

    def __init__(self, folder: Path | None, *, clock: Callable[[], float] = time.time) -> None:
        self.path = folder / FILE_NAME if folder is not None else None
        self.clock = clock
        self._lock = threading.Lock()

    def get(self, url: str, model: str) -> Known | None:
        """What is known of `url` and `model`, if learned within `MAX_AGE_S`."""
        entry = self._read().get(_key(url, model))
        known = _known(entry) if isinstance(entry, dict) else None
        if known is None or not 0 <= self.clock() - known.learned <= MAX_AGE_S:
            return None
        return known

    def put(self, url: str, model: str, known: Known) -> Known:
        """Keep `known` (stamped now) for `url` and `model`; a file that cannot be written is
        no failure: the endpoint is asked again next time."""
        known = replace(known, learned=self.clock())
        if self.path is None:
            return known
        with self._lock:
            entries = self._read()
            entries.pop(_key(url, model), None)
            entries[_key(url, model)] = _entry(known)
            kept = dict(list(entries.items())[-MAX_ENTRIES:])
            with contextlib.suppress(OSError):
                write_atomic(self.path, json.dumps({"version": 1, "endpoints": kept}))
        return known

    def _read(self) -> dict[str, Any]:
        if self.path is None:
            return {}
        try:
            with self.path.open("rb") as file:
                data = json.loads(file.read(1 << 20))
        except (OSError, ValueError):
            return {}  # none yet, or damaged: unknown, and written anew on the next put
        entries = data.get("endpoints") if isinstance(data, dict) else None
        return dict(entries) if isinstance(entries, dict) else {}


def _key(url: str, model: str) -> str:
    return f"{url} {model}"


def _entry(known: Known) -> dict[str, Any]:
    models = list(known.facts.models) if known.facts.models is not None else None
    return {
        "context": known.facts.context,
        "models": models,
        "streams_tools": known.streams_tools,
        "learned": known.learned,
        "probed": known.probed,
    }


def _known(entry: dict[str, Any]) -> Known | None:
    """An entry read back, or None when any of it is not what `_entry` writes."""
    context, models = entry.get("context"), entry.get("models")
    streams, learned = entry.get("streams_tools"), entry.get("learned")
    if not (context is None or (type(context) is int and context > 0)):
        return None
    if not (
        models is None or (isinstance(models, list) and all(isinstance(m, str) for m in models))
    ):
        return None
    if not (streams is None or isinstance(streams, bool)):
        return None
    if not isinstance(learned, (int, float)) or isinstance(learned, bool):
        return None
    if not isinstance(entry.get("probed"), bool):
        return None
    facts = Facts(context, tuple(models[:1000]) if models is not None else None)
    return Known(facts, streams, float(learned), entry["probed"])
