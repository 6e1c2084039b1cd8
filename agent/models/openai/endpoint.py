"""What one model learns of its endpoint on first use, and keeps for later runs.

The context and the model listing come from the cache folder (`known.py`: a week) or
else from the server, its routes asked at once (`window.py`), once for every model that
shares the HTTP client (eval's questions share one). A listing without the model's name
is a warning, shown once per client. An endpoint seen unable to stream a reply is asked
unstreamed from then on, and that too is kept for later runs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from agent.models.openai.address import display_url
from agent.models.openai.known import Known, KnownEndpoints
from agent.models.openai.window import Facts

if TYPE_CHECKING:
    from agent.models.openai.connection import Connection


@dataclass(frozen=True)
class Learned:
    """What the model takes from its endpoint: the context, and a warning to show."""

    context: int | None
    warning: str | None = None


class Endpoint:
    """What a model knows of `base_url` for the model `name`: learned once, on first use."""

    def __init__(self, base_url: str, name: str, *, known: KnownEndpoints | None) -> None:
        self.base_url = base_url
        self.name = name
        self.streams = True  # set off for good when the server cannot stream a reply
        self._known = known if known is not None else KnownEndpoints(None)
        self._pending = True  # learn of the server once, on first use

    def learn(self, connection: Connection, given: int | None) -> Learned | None:
        """On the first call only: the context (`given`, else the server's) and the warning
        for a listing that lacks the model; None when there is nothing to take.

        With a context `given`, nothing is asked, but what an earlier run learned of
        streaming is still taken.
        """
        if not self._pending:
            return None
        self._pending = False
        from agent.models.openai.window import probe_endpoint, unlisted

        http = connection.http
        assert http is not None  # connected
        url = display_url(self.base_url)
        key = connection.authorization

        def learn() -> Known | None:
            known = self._known.get(url, self.name)
            if given is None and (known is None or not known.probed):
                facts = probe_endpoint(
                    http, self.base_url, self.name, headers={"Authorization": key}
                )
                streams = known.streams_tools if known is not None else None
                known = self._known.put(url, self.name, Known(facts, streams))
            return known

        # Asked once per HTTP client: models sharing one (eval's questions) share it.
        known = http.once(
            ("endpoint", self.base_url, self.name, "probe" if given is None else "given"), learn
        )
        if known is None:
            return None  # the context given, nothing learned before: no probe
        if known.streams_tools is False:
            self.streams = False
        if given is not None:
            return Learned(given)
        warning = unlisted(self.name, known.facts, f"{url}/models")
        first: list[bool] = []
        http.once(("warned", self.base_url, self.name), lambda: first.append(True))
        return Learned(known.facts.context, warning if first else None)

    def cannot_stream(self) -> None:
        """Ask unstreamed from now on, and keep that this endpoint cannot stream this model's
        replies, so later runs (each `ask`, each eval question) ask unstreamed at once,
        without the wasted request."""
        self.streams = False
        url = display_url(self.base_url)
        known = self._known.get(url, self.name) or Known(Facts(), probed=False)
        self._known.put(url, self.name, replace(known, streams_tools=False))
