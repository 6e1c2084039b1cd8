"""The help screen's key list, read from the screens' bindings."""

from __future__ import annotations

from textual.binding import Binding

from tui.keys import key_name, key_rows, keys_label
from tui.screens.chat import ChatScreen
from tui.screens.replay import ReplayScreen


def test_key_names() -> None:
    assert [key_name(k) for k in ("ctrl+q", "escape", "f1", "question_mark", "right", "l")] == [
        "ctrl+q",
        "Escape",
        "F1",
        "?",
        "→",
        "l",
    ]
    assert keys_label(Binding("right,l", "x")) == "→ or l"
    assert keys_label(Binding("plus,equals_sign", "x", key_display="+")) == "+"


class Screen:
    BINDINGS = [
        Binding("a", "first", "First", tooltip="What the tooltip says"),
        Binding("b", "second", "Second"),
        Binding("1", "pick(0)", "Pick"),
        Binding("2", "pick(1)", "Pick"),
        Binding("c", "third", "Third word"),
    ]

    def action_second(self) -> None:
        """The docstring's first line.

        Not this one.
        """

    def action_pick(self, n: int) -> None:
        """Pick one."""


def test_a_row_per_binding_from_tooltip_docstring_or_footer_word() -> None:
    assert key_rows(Screen) == [
        ("a", "What the tooltip says"),
        ("b", "The docstring's first line"),
        ("1 / 2", "Pick one"),  # the same action on neighbouring keys: one row
        ("c", "Third word"),
    ]


def test_every_binding_of_the_screens_is_listed() -> None:
    chat = key_rows(ChatScreen)
    listed = " / ".join(keys for keys, _ in chat)
    for binding in ChatScreen.BINDINGS:
        assert isinstance(binding, Binding)
        assert keys_label(binding) in listed
    replay = key_rows(ReplayScreen)
    assert len(replay) == len(ReplayScreen.BINDINGS)  # every action there differs
    assert all(text and not text.endswith(".") for _, text in chat + replay)
