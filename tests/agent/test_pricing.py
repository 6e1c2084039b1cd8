"""The price table, cost estimates and user-supplied prices."""

from __future__ import annotations

import pytest

from agent.errors import ConfigError
from agent.events import Usage
from agent.pricing import PRICES, estimate_cost, parse_prices, price_of


def test_cost_of_a_known_model() -> None:
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=500_000)
    assert estimate_cost("gpt-4o-mini", usage) == pytest.approx(0.15 + 0.30)
    assert estimate_cost("gpt-4o", Usage(2000, 100)) == pytest.approx(0.005 + 0.001)


def test_an_estimated_usage_still_gets_a_cost() -> None:
    assert estimate_cost("gpt-4.1-mini", Usage(1000, 1000, estimated=True)) == pytest.approx(
        0.0004 + 0.0016
    )


def test_a_provider_prefix_is_ignored() -> None:
    assert price_of("openai/gpt-4o-mini") == PRICES["gpt-4o-mini"]
    assert price_of("openrouter/openai/gpt-4.1") == PRICES["gpt-4.1"]


@pytest.mark.parametrize("model", ["llama3.1:8b", "gpt-4o-2024-08-06", "GPT-4O", "", "gpt-4"])
def test_an_unknown_model_has_no_cost(model: str) -> None:
    assert estimate_cost(model, Usage(100, 100)) is None


def test_extra_prices_add_and_override() -> None:
    extra = {"my-model": (1.0, 2.0), "gpt-4o": (0.0, 0.0)}
    assert estimate_cost("my-model", Usage(1_000_000, 1_000_000), extra=extra) == 3.0
    assert estimate_cost("local/my-model", Usage(10, 10), extra=extra) == pytest.approx(3e-5)
    assert estimate_cost("gpt-4o", Usage(1000, 1000), extra=extra) == 0.0
    assert estimate_cost("my-model", Usage(1, 1)) is None


def test_zero_usage_costs_nothing() -> None:
    assert estimate_cost("gpt-4o", Usage()) == 0.0


def test_parse_prices() -> None:
    text = '{"my-model": [0.1, 0.2], "other": {"input": 1, "output": 0}, "free": [0, 0]}'
    assert parse_prices(text) == {
        "my-model": (0.1, 0.2),
        "other": (1.0, 0.0),
        "free": (0.0, 0.0),
    }
    assert parse_prices("") == {}
    assert parse_prices("  {} ") == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"m": [0.1, 0.2}', "prices: not valid JSON (line 1, column 16): Expecting ',' delimiter"),
        ("[1, 2]", 'prices: expected a JSON object like {"my-model": [0.1, 0.2]}'),
        ('{"m": [0.1]}', "prices: 'm' must be [input, output] in USD per million tokens, "
                         "two numbers >= 0; got [0.1]"),
        ('{"m": [-1, 2]}', "prices: 'm' must be [input, output] in USD per million tokens, "
                           "two numbers >= 0; got [-1, 2]"),
        ('{"m": ["1", 2]}', "prices: 'm' must be [input, output] in USD per million tokens, "
                            'two numbers >= 0; got ["1", 2]'),
        ('{"m": [true, 2]}', "prices: 'm' must be [input, output] in USD per million tokens, "
                             "two numbers >= 0; got [true, 2]"),
        ('{"m": 0.5}', "prices: 'm' must be [input, output] in USD per million tokens, "
                       "two numbers >= 0; got 0.5"),
        ('{"m": [NaN, 1]}', "prices: 'm' must be [input, output] in USD per million tokens, "
                            "two numbers >= 0; got [NaN, 1]"),
    ],
)  # fmt: skip
def test_parse_prices_rejects_bad_input(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_prices(text)
    assert str(info.value) == message


def test_table_entries_are_sane() -> None:
    for name, (per_input, per_output) in PRICES.items():
        assert name and 0 < per_input <= per_output, name
