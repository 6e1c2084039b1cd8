"""`eval`'s output at the byte level: what a question file, a model or a server holds never
reaches the terminal as control characters (the table, progress lines, the failure line and
`--json`), piped or on a real terminal."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.chatserver import MODEL, ChatServer, Status
from tests.cli_support import read_until_closed
from tui.cli import app

pytestmark = pytest.mark.usefixtures("cli_env")  # without the user's settings

# A title change, an OSC 52 clipboard write and colours, then CSI and OSC as C1 controls.
ESCAPES = "\x1b]0;PWNED\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[31m"
C1 = "\x9b6n\x85\x9d0;T\x9c"
OURS = re.compile("\x1b\\[[0-9;?]*[A-Za-z]|\r")  # rich's colours and cursor moves


def controls(text: str) -> list[str]:
    """The control characters (but newline and tab) in `text`."""
    return [c for c in text if unicodedata.category(c) == "Cc" and c not in "\n\t"]


@pytest.fixture
def questions(tmp_path: Path) -> Path:
    path = tmp_path / "questions.jsonl"
    hostile = {
        "id": f"id{ESCAPES}{C1}",
        "question": f"How do I replay {ESCAPES}{C1}?",
        "must_mention": [f"replay{ESCAPES}{C1}"],
        "evidence": [{"path": "replay.md", "start": 3, "end": 3}],
    }
    path.write_text(json.dumps(hostile) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def model(tmp_path: Path) -> str:
    answer = f"Run it {ESCAPES}{C1} (replay.md:3)."
    turns = [
        {"tool_calls": [{"name": "read_doc", "arguments": {"path": "replay.md"}}]},
        {"content": answer},
    ]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(turns), encoding="utf-8")
    return f"script:{path}"


def run_eval(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["eval", *args])
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, result.stdout, result.stderr


def test_the_table_and_progress_show_controls_as_visible_characters(
    docs: Path, questions: Path, model: str
) -> None:
    code, out, err = run_eval(str(questions), "--docs", str(docs), "--model", model)
    assert code == 0
    assert controls(out) == [] and controls(err) == []
    assert err.startswith(
        "[1/1] id␛]0;PWNED␇␛]52;c;cm0gLXJmIH4=␇␛[31m\\x9b6n\\x85\\x9d0;T\\x9c: hit"
    )
    assert "id␛]0;PWNED" in out  # the id, cut to the column's width


def test_json_escapes_c0_and_c1_controls_and_keeps_them_readable(
    docs: Path, questions: Path, model: str
) -> None:
    code, out, err = run_eval(str(questions), "--docs", str(docs), "--model", model, "--json")
    assert code == 0
    assert controls(out) == [] and controls(err) == []
    assert "\\u009b6n\\u0085\\u009d0;T\\u009c" in out
    (result,) = json.loads(out)["results"]
    assert result["id"] == f"id{ESCAPES}{C1}"  # the same text, read back
    assert result["answer"] == f"Run it {ESCAPES}{C1} (replay.md:3)."


def test_a_servers_c1_controls_in_its_error_are_shown_visibly(
    chat_server: ChatServer, docs: Path, questions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-test-eval")
    chat_server.push(Status(400, f"bad {C1} request"))  # sent as UTF-8: \xc2\x9b ...
    code, out, err = run_eval(
        str(questions), "--docs", str(docs), "--model", MODEL, "--base-url", chat_server.base_url
    )
    assert code == 1
    assert controls(out) == [] and controls(err) == []
    assert err.splitlines()[-1].endswith("bad \\x9b6n \\x9d0;T\\x9c request")  # NEL: a space


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
@pytest.mark.parametrize("as_json", [False, True])
def test_on_a_real_terminal_only_our_own_styling_is_written(
    docs: Path, questions: Path, model: str, as_json: bool
) -> None:
    import pty

    main, follower = pty.openpty()
    command = [sys.executable, "-c", "from tui.cli import main; main()", "eval", str(questions)]
    process = subprocess.Popen(
        [*command, "--docs", str(docs), "--model", model, *(["--json"] if as_json else [])],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,  # the progress bar too
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "100"},
    )
    os.close(follower)
    output = read_until_closed(main)
    assert process.wait() == 0
    os.close(main)
    shown = output.decode("utf-8")
    assert "PWNED" in shown
    assert controls(OURS.sub("", shown)) == []
