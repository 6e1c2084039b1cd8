"""Run-ending errors. Tool failures are never raised: they become observations.

The tree::

    AgentError
    ├── ConfigError          bad docs folder, bad script file, bad option value
    ├── TraceError           a trace file that cannot be read (or is a newer version)
    └── ModelError           the model could not be reached or refused the request
        ├── AuthenticationError   no key / bad key (401, 403)
        ├── ModelNotFoundError    unknown model, or a base URL that is no API route (404)
        ├── BadRequestError       the server rejected the request (400, 422)
        ├── RateLimitError        429, after retries
        ├── ServerError           5xx, after retries
        ├── ConnectionFailed      connection refused, DNS, TLS
        ├── ModelTimeout          no answer (or a stalled stream) within the timeout
        └── ProtocolError         a reply the client could not parse
"""

from __future__ import annotations


class AgentError(Exception):
    """Base class of every run-ending error; `str()` is one line for the user.

    The line says what is wrong in the core's terms. `fields` names the `Config` fields
    whose values to check, so a front end can add the options that set them.
    """

    def __init__(self, *args: object, fields: tuple[str, ...] = ()) -> None:
        super().__init__(*args)
        self.fields = fields


class ConfigError(AgentError):
    """The configuration or an input file is unusable."""


class TraceError(AgentError):
    """A trace file cannot be read."""


class ModelError(AgentError):
    """The model call failed in a way the run cannot recover from."""

    partial: str = ""
    """The reply's text that had streamed in when the failure cut it off (kept and shown)."""


class AuthenticationError(ModelError):
    """The endpoint refused the API key, or one is needed and none was given."""


class ModelNotFoundError(ModelError):
    """The endpoint does not know the model."""


class BadRequestError(ModelError):
    """The endpoint rejected the request."""


class RateLimitError(ModelError):
    """Still rate-limited after the retries."""


class ServerError(ModelError):
    """The endpoint kept failing with 5xx after the retries."""


class ConnectionFailed(ModelError):
    """The endpoint could not be reached."""


class ModelTimeout(ModelError):
    """The endpoint did not answer, or stopped streaming, within the timeout."""


class ProtocolError(ModelError):
    """The endpoint's reply could not be understood."""
