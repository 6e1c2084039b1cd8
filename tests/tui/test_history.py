"""The question history: recall like a shell's, kept across launches, written whole."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from tui.commands.options import history_file
from tui.statefiles.history import History


def test_up_and_down_walk_the_questions_and_come_back_to_the_draft() -> None:
    history = History()
    for question in ("one", "two", "three"):
        history.add(question)
    assert history.previous("half typed") == "three"
    assert history.previous("three") == "two"
    assert history.previous("two") == "one"
    assert history.previous("one") is None  # the oldest: stays
    assert [history.next(), history.next(), history.next()] == ["two", "three", "half typed"]
    assert history.next() is None  # at the draft already
    history.add("four")
    assert history.previous("") == "four"  # asking starts again from the newest


def test_repeats_in_a_row_are_kept_once_and_the_oldest_go_past_the_limit() -> None:
    history = History(limit=3)
    for question in ("a", "b", "b", "  b ", "", "c", "d"):
        history.add(question)
    assert history.questions == ["b", "c", "d"]


def test_the_history_is_kept_across_launches_and_merges_another_launch(tmp_path: Path) -> None:
    path = tmp_path / "state" / "docsagent" / "history"
    first, second = History(path), History(path)
    assert first.add("how do I cancel?") is None
    assert second.add('a "quoted"\nquestion') is None  # reads what the first one wrote
    assert first.add("and replay?") is None
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [
        "how do I cancel?",
        'a "quoted"\nquestion',
        "and replay?",
    ]
    assert History(path).previous("") == "and replay?"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # questions are the user's own
    assert [p.name for p in path.parent.iterdir()] == ["history"]  # no temporary file left


def test_a_damaged_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.write_text('"one"\n{not json\n42\n"two"\n', encoding="utf-8")
    assert History(path).questions == ["one", "two"]


def test_a_history_that_cannot_be_saved_says_so_and_still_recalls(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    history = History(blocker / "history")
    problem = history.add("one")
    assert problem == f"the question history was not saved: File exists: {blocker / 'history'}"
    assert history.previous("") == "one"


def test_the_file_is_in_the_state_folder() -> None:
    assert history_file({"XDG_STATE_HOME": "/x/state"}) == Path("/x/state/docsagent/history")
    assert history_file({}) == Path.home() / ".local" / "state" / "docsagent" / "history"
