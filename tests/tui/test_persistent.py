"""Logs and text parts: every version keeps reading as it did, however the others grow."""

from __future__ import annotations

import pytest

from tui.persistent import Log, TextParts


def test_a_log_reads_like_a_tuple() -> None:
    log = Log(["a", "b"]).append("c").with_last("C").append("d")
    assert list(log) == ["a", "b", "C", "d"] and len(log) == 4
    expected = ("a", "b", "C", "d")
    assert log == expected and expected == log  # either way round
    assert log == Log(["a", "b", "C", "d"]) and log != ("a", "b", "C")
    assert (log[0], log[-1], log[-2]) == ("a", "d", "C")
    assert log[1:3] == ("b", "C") and log[-2:] == ("C", "d") and log[::-2] == ("d", "b")
    assert log.index("C") == 2 and "d" in log and "c" not in log
    assert repr(log) == "Log(['a', 'b', 'C', 'd'])"
    assert hash(log) == hash(("a", "b", "C", "d"))
    with pytest.raises(IndexError):
        log[4]
    with pytest.raises(IndexError):
        log[-5]
    empty: Log[str] = Log()
    assert len(empty) == 0 and list(empty) == [] and empty == () and not empty
    assert empty.with_last("x") == ("x",) and empty.append("x") == ("x",)


def test_earlier_versions_never_change() -> None:
    base = Log(["a"]).append("b")
    left = base.append("l1").append("l2")
    right = base.append("r1")  # the slot after "b" is taken by "l1": right gets its own copy
    right2 = right.append("r2")
    replaced = left.with_last("L2")
    middle = left.with_item(1, "B")
    assert list(base) == ["a", "b"]
    assert list(left) == ["a", "b", "l1", "l2"]
    assert list(right) == ["a", "b", "r1"] and list(right2) == ["a", "b", "r1", "r2"]
    assert list(replaced) == ["a", "b", "l1", "L2"]
    assert list(middle) == ["a", "B", "l1", "l2"]
    assert list(base.append("l1")) == ["a", "b", "l1"]
    with pytest.raises(IndexError):
        left.with_item(4, "x")


def test_items_keep_their_identity_from_version_to_version() -> None:
    first, second, third = object(), object(), object()
    log = Log([first]).append(second)
    grown = log.append(third).with_last(object())
    assert grown[0] is first and grown[1] is second
    again = log.append(third)  # going forward again from `log` shares the slot `third` holds
    assert again[2] is third and again[1] is second


def test_text_parts_join_what_was_appended() -> None:
    text = TextParts()
    assert str(text) == "" and not text and text == ""
    grown = text + "Hel" + "" + "lo"
    branch = text + "Bye"
    assert str(grown) == "Hello" and grown == TextParts("Hello") and grown == "Hello"
    assert str(branch) == "Bye" and str(text) == ""
    assert list(grown.pieces) == ["Hel", "lo"] and len(grown) == 5 and grown
    assert hash(grown) == hash("Hello") and repr(grown) == "'Hello'"
    assert grown != 5
