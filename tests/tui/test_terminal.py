"""`visible` and the command's writer: outside text never reaches the terminal as controls."""

from __future__ import annotations

import io
import re
import unicodedata

import pytest

from tui.terminal import Terminal, visible

# What an attack put in docs, model replies, server errors and file names.
HOSTILE = {
    "OSC title": "\x1b]0;PWNED\x07",
    "OSC 52 clipboard": "\x1b]52;c;cm0gLXJmIH4=\x07",
    "clear screen, alternate screen": "\x1b[2J\x1b[?1049h",
    "status query": "\x1b[5n",
    "C1 CSI": "\x9b2J",
    "C1 OSC with ST": "\x9d0;PWNED\x9c",
    "carriage return overwrite": "safe\rEVIL",
    "backspace, bell, NUL, DEL": "a\x08b\x07c\x00d\x7f",
    "undecodable file-name byte": "name\udc9b.md",
}
SGR = re.compile(r"\x1b\[[0-9;]*m")  # colours and bold: the only escapes we write ourselves


def controls(text: str) -> list[str]:
    """Every character a terminal could act on: category Cc but newline and tab, surrogates."""
    return [c for c in text if (unicodedata.category(c) in ("Cc", "Cs")) and c not in "\n\t"]


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_visible_leaves_no_control_character(text: str) -> None:
    shown = visible(f"before {text} after")
    assert controls(shown) == []
    assert shown.startswith("before ") and shown.endswith(" after")
    shown.encode("utf-8")  # strict: a lone surrogate could not be written


def test_visible_shows_each_control_for_what_it_is() -> None:
    assert visible("\x1b]0;PWNED\x07") == "␛]0;PWNED␇"
    assert visible("\x9b2J") == "\\x9b2J"
    assert visible("safe\rEVIL") == "safe␍EVIL"
    assert visible("a\x00\x7f") == "a␀␡"
    assert visible("name\udc9b.md") == "name\\x9b.md"
    assert visible("\ud800") == "\\ud800"


def test_visible_keeps_text_newlines_tabs_and_every_printable_character() -> None:
    text = "# Title\n\tcode [/x] [link=https://e.test]é 日本 ␛ \\x1b 🙂\n"
    assert visible(text) is text
    assert visible("one\r\ntwo\x1b") == "one\ntwo␛"


def test_the_terminal_writes_every_line_visible() -> None:
    out, err = io.StringIO(), io.StringIO()
    terminal = Terminal(out, err)
    terminal.say("answer \x1b[2J")
    terminal.warn("progress \x1b]0;T\x07")
    terminal.answer("# Heading\n\x9b5n\n")  # not a tty: plain text
    assert out.getvalue() == "answer ␛[2J\n# Heading\n\\x9b5n\n"
    assert err.getvalue() == "progress ␛]0;T␇\n"


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_answer_on_a_terminal_carries_only_our_own_styling() -> None:
    out = FakeTty()
    Terminal(out, io.StringIO()).answer("**bold** \x1b]0;PWNED\x07 \x1b[5n")
    written = out.getvalue()
    assert "␛]0;PWNED␇" in written and "␛[5n" in written
    assert SGR.search(written), "rich styled the answer"
    assert controls(SGR.sub("", written)) == []
