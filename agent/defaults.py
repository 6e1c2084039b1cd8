"""Every default in one leaf module: the limits and names a run starts from."""

from __future__ import annotations

OFFLINE = "offline"
"""The model name of the embedded offline model (the default when no key is set)."""

DEFAULT_MAX_STEPS = 8
"""Model calls a run may make before it stops without an answer."""

DEFAULT_TIMEOUT = 60.0
"""Seconds an endpoint may take to connect, and to send each piece of a reply."""

DEFAULT_REQUEST_TIMEOUT = 300.0
"""Seconds one request to an endpoint may take in all, however steadily it streams."""

DEFAULT_MAX_REPLY_CHARS = 1_000_000
"""Characters one streamed reply may bring (text and tool-call arguments): far past any real
reply, so a server that streams without end is cut short there instead of at the request
timeout, with megabytes of trace and screen behind it."""

DEFAULT_MAX_RETRIES = 3
"""Transient endpoint failures retried before a run fails."""

DEFAULT_MAX_OBSERVATION = 3000
"""Characters of a tool result the model sees (the trace keeps it whole)."""

DEFAULT_RESULT_TOKENS = 2_000
"""Tokens of one served tool result (`docsagent mcp`) a client gets at most by default; a
longer result comes in pages. A client may ask for 100 to 8,000 (`max_tokens`)."""

DEFAULT_BASE_URL = "https://api.openai.com/v1"
"""The endpoint used when a key is given without a base URL."""

DEFAULT_COMPACT_AFTER = 8_000
"""Estimated tokens after which old observations are shortened to one-line stubs (a quarter
of a modest 32k context: small enough to matter on long runs, large enough that short runs
are never touched)."""

DEFAULT_COMPACT_KEEP_STEPS = 3
"""The newest steps whose observations are always sent whole."""

DEFAULT_MAX_DOC_BYTES = 64 * 1024 * 1024
"""Bytes of one doc read at most; a bigger doc is skipped, with a note saying so."""

DEFAULT_DOC_CACHE_BYTES = 256 * 1024 * 1024
"""Bytes of searchable doc text kept between searches (least recently used goes first)."""

DEFAULT_MAX_REPLY_TOKENS = 2048
"""Tokens one reply may hold (sent as `max_tokens`): room for a long cited answer, while a
model that rambles stops in minutes rather than at the request timeout."""

DEFAULT_CONTEXT_SHARE = 0.75
"""The share of a known context window (less the reply's room) that the conversation may fill
before old results are shortened: the estimate counts about four characters a token, and
small models' tokenizers cut finer."""
