"""The key scrubbed from streamed text however the server cuts it into pieces."""

from __future__ import annotations

from agent.models.openai.errors import scrub
from agent.models.openai.secret import KeyFilter

KEY = "sk-live-0123456789"
TEXT = f"say sk- then {KEY}, {KEY.upper()}{KEY} and sk-live at the end: sk-li"


def streamed(pieces: list[str]) -> str:
    secret = KeyFilter(KEY)
    return "".join(secret.feed(piece) for piece in pieces) + secret.flush()


def test_every_way_of_cutting_the_text_in_two_or_three_scrubs_it_as_a_whole() -> None:
    whole = scrub(TEXT, KEY)
    assert KEY not in whole and "***, ******" in whole
    for first in range(len(TEXT) + 1):
        assert streamed([TEXT[:first], TEXT[first:]]) == whole
        for second in range(first, len(TEXT) + 1, 7):
            assert streamed([TEXT[:first], TEXT[first:second], TEXT[second:]]) == whole


def test_one_character_at_a_time_and_text_that_cannot_begin_the_key_goes_on_at_once() -> None:
    assert streamed(list(TEXT)) == scrub(TEXT, KEY)
    secret = KeyFilter(KEY)
    assert secret.feed("plain text.") == "plain text."  # nothing held back
    assert secret.feed(" ends in s") == " ends in "  # "s" may begin the key
    assert secret.feed("o") == "so"


def test_a_short_key_is_not_looked_for() -> None:
    secret = KeyFilter("abc")
    assert secret.feed("abc abc") == "abc abc" and secret.flush() == ""
