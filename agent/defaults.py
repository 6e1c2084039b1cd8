"""Every default in one leaf module: the limits and names a run starts from."""

from __future__ import annotations

OFFLINE = "offline"
"""The model name of the embedded offline model (the default when no key is set)."""

DEFAULT_MAX_STEPS = 8
"""Model calls a run may make before it stops without an answer."""

DEFAULT_TIMEOUT = 60.0
"""Seconds an endpoint may take to answer one request."""

DEFAULT_MAX_RETRIES = 3
"""Transient endpoint failures retried before a run fails."""

DEFAULT_MAX_OBSERVATION = 3000
"""Characters of a tool result the model sees (the trace keeps it whole)."""

DEFAULT_BASE_URL = "https://api.openai.com/v1"
"""The endpoint used when a key is given without a base URL."""
