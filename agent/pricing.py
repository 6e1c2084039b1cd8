"""What a run cost, when the model's price is known; never a guess.

Prices are USD per million tokens, (input, output), at list price: cached-input
discounts and batch prices are ignored. Users can add or override entries with
`parse_prices` (a JSON object such as `{"my-model": [0.1, 0.2]}`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from agent.errors import ConfigError
from agent.events import Usage

Price = tuple[float, float]
"""USD per million (input, output) tokens."""

PRICES: dict[str, Price] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
}


def price_of(
    model: str, *, extra: Mapping[str, Price] | None = None, listed: bool = True
) -> Price | None:
    """The price of `model` (exact name, or without a "provider/" prefix), or None.

    `listed=False` leaves out the list prices: only `extra` (the user's) counts, as for a
    server on this machine or a private network, which a list price does not describe.
    """
    table = {**(PRICES if listed else {}), **(extra or {})}
    for name in (model, model.rsplit("/", 1)[-1]):
        if name in table:
            return table[name]
    return None


def estimate_cost(
    model: str, usage: Usage, *, extra: Mapping[str, Price] | None = None, listed: bool = True
) -> float | None:
    """USD for `usage` on `model`; None when its price is unknown (see `price_of`)."""
    price = price_of(model, extra=extra, listed=listed)
    if price is None:
        return None
    per_input, per_output = price
    return (usage.prompt_tokens * per_input + usage.completion_tokens * per_output) / 1_000_000


def parse_prices(text: str) -> dict[str, Price]:
    """Prices from a JSON object of `"model": [input, output]`; raises ConfigError if bad."""
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"prices: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError('prices: expected a JSON object like {"my-model": [0.1, 0.2]}')
    return {str(name): _price(str(name), value) for name, value in data.items()}


def _price(name: str, value: Any) -> Price:
    if isinstance(value, dict) and set(value) == {"input", "output"}:
        value = [value["input"], value["output"]]
    if isinstance(value, list) and len(value) == 2 and all(_is_price(v) for v in value):
        return (float(value[0]), float(value[1]))
    raise ConfigError(
        f"prices: {name!r} must be [input, output] in USD per million tokens, "
        f"two numbers >= 0; got {json.dumps(value)}"
    )


def _is_price(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0
    )
