"""The SDK's client and the HTTP client under it: made on first use, with the key checked.

One client, and so one connection pool, serves every request of the model's life (see
`transport.py`: it also sets each request's deadline and lets `shutdown` wake a blocked
read). The API key is checked on each use, not at construction, so the failure travels
the same road as a 401 and ends the run (and its trace) cleanly. `openai` is imported on
first use, so building a model costs nothing until it is asked something.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import agent.errors as errors
from agent.models.openai.address import endpoint_of, is_local

if TYPE_CHECKING:
    from openai import OpenAI

    from agent.models.openai.transport import ModelHTTPClient

LOCAL_DUMMY_KEY = "not-needed"
"""The key sent to a server on this machine when none is given (the SDK wants one)."""


class Connection:
    """The clients one model asks `base_url` through; a `shared` HTTP client is not owned."""

    def __init__(self, base_url: str, api_key: str, *, shared: ModelHTTPClient | None) -> None:
        self.base_url = base_url
        self.api_key = api_key
        self.http: ModelHTTPClient | None = None
        self._client: OpenAI | None = None
        self._shared_http = shared
        # Building the client imports `openai` (a second on a loaded machine): a lock of its
        # own, so a cancel or a quit meanwhile does not wait for the import to finish.
        self._connecting = threading.Lock()

    @property
    def authorization(self) -> str:
        """The Authorization header's value, for requests made beside the SDK's."""
        return f"Bearer {self.api_key or LOCAL_DUMMY_KEY}"

    def open(self, timeout: float, request_timeout: float | None) -> OpenAI:
        """The SDK's client, made on first use with these timeouts; AuthenticationError for a
        key that cannot be sent."""
        if not self.api_key and not is_local(self.base_url):
            raise errors.AuthenticationError(
                f"no API key to use {endpoint_of(self.base_url)}", fields=("api_key",)
            )
        if any(not " " < char <= "~" for char in self.api_key):
            raise errors.AuthenticationError(
                "the API key holds a line break, a space or another character no key has",
                fields=("api_key",),
            )
        with self._connecting:
            if self._client is None:
                import openai

                from agent.models.openai.transport import ModelHTTPClient

                self.http = self._shared_http or ModelHTTPClient(
                    timeout=timeout, request_timeout=request_timeout
                )
                self._client = openai.OpenAI(
                    api_key=self.api_key or LOCAL_DUMMY_KEY,
                    base_url=self.base_url,
                    timeout=timeout,
                    max_retries=0,
                    http_client=self.http,
                )
            return self._client

    def close(self) -> None:
        """Release the clients (made again when needed); a shared HTTP client stays open.

        Shutting the client's connections down also ends a whole (not streamed) request
        that is blocked on a hung server.
        """
        http, self.http = self.http, None
        client, self._client = self._client, None
        if http is None or http is self._shared_http:
            return  # a shared client's connections serve other models: its owner closes it
        http.shutdown()
        if client is not None:
            client.close()
