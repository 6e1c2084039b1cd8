"""The command's output at the byte level: what docs, models, servers and file names hold
never reaches the terminal as control characters (stdout, stderr, `--json`, `replay
--print`, errors, a real terminal), and hostile tool arguments cannot crash `ask`."""

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

from agent.events import RunFinished
from agent.trace import read_trace
from tests.chatserver import ChatServer, Status
from tests.cli_support import read_until_closed
from tui.cli import app

# An OSC title, an OSC 52 clipboard write, clear screen + alternate screen, a status query,
# and C1 forms (CSI, OSC ... ST) of the same.
HOSTILE = (
    "\x1b]0;PWNED\x07 \x1b]52;c;cm0gLXJmIH4=\x07 \x1b[2J\x1b[?1049h \x1b[5n \x9b6n \x9d0;T\x9c"
)
SHOWN = "␛]0;PWNED␇ ␛]52;c;cm0gLXJmIH4=␇ ␛[2J␛[?1049h ␛[5n \\x9b6n \\x9d0;T\\x9c"
SGR = re.compile(rb"\x1b\[[0-9;]*m")  # colours and bold: the only escapes we write ourselves


def controls(data: bytes) -> list[str]:
    """The control characters (but newline and tab) in `data`, which must be UTF-8."""
    text = data.decode("utf-8")
    return [c for c in text if unicodedata.category(c) == "Cc" and c not in "\n\t"]


@pytest.fixture(autouse=True)
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ["LLM_API_KEY", "OPENAI_API_KEY", "LLM_MODEL", "LLM_BASE_URL", "OPENAI_BASE_URL"]:
        monkeypatch.delenv(name, raising=False)
    traces = tmp_path / "traces \x1b[2J"  # the trace path is printed too
    monkeypatch.setenv("DOCSAGENT_TRACE_DIR", str(traces))
    return traces


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "timeouts.md").write_text(
        f"# Timeouts\n\nThe timeout is five seconds {HOSTILE} by default.\n", encoding="utf-8"
    )
    (root / "limits \x1b]0;NAME\x07.md").write_text(
        "# Limits\n\nThe limit is ten.\n", encoding="utf-8"
    )
    return root


def ask_about_limits(docs: Path, *more: str) -> tuple[int, bytes, bytes]:
    """A question whose answer comes from the doc with a hostile name."""
    return run("ask", "what is the limit?", "--docs", str(docs), "--model", "offline", *more)


def run(*args: str) -> tuple[int, bytes, bytes]:
    result = CliRunner().invoke(app, list(args))
    assert b"Traceback" not in result.stdout_bytes + result.stderr_bytes
    return result.exit_code, result.stdout_bytes, result.stderr_bytes


def the_trace(folder: Path) -> Path:
    (path,) = folder.iterdir()
    return path


def test_ask_prints_doc_text_and_file_names_as_visible_characters(docs: Path, env: Path) -> None:
    code, out, err = run("ask", "what is the timeout?", "--docs", str(docs), "--model", "offline")
    assert code == 0
    assert controls(out) == [] and controls(err) == []
    assert SHOWN in out.decode()
    assert "traces ␛[2J" in err.decode()  # the summary's trace path
    final = read_trace(the_trace(env)).events[-1]  # the trace keeps the data as it was
    assert isinstance(final, RunFinished) and HOSTILE in (final.answer or "")
    code, out, err = ask_about_limits(docs)
    assert code == 0 and controls(out) == [] and controls(err) == []
    # the search results and the answer name the file as the model reads it: escaped
    assert "limits \\x1b]0;NAME\\x07.md:1-3" in err.decode()
    assert "limits \\x1b]0;NAME\\x07.md:1-3" in out.decode()


def test_ask_json_escapes_the_answer_and_keeps_progress_visible(docs: Path, env: Path) -> None:
    code, out, err = run(
        "ask", "what is the timeout?", "--docs", str(docs), "--model", "offline", "--json"
    )
    assert code == 0
    assert controls(out) == [] and controls(err) == []
    assert HOSTILE in json.loads(out)["answer"]  # JSON escapes it; a reader gets it back whole
    code, out, err = ask_about_limits(docs, "--json")
    assert code == 0 and controls(out) == [] and controls(err) == []
    assert "\\x1b]0;NAME\\x07" in err.decode()


def test_replay_print_shows_the_same_run_as_visible_characters(docs: Path, env: Path) -> None:
    run("ask", "what is the timeout?", "--docs", str(docs), "--model", "offline")
    code, out, err = run("replay", "--print", str(the_trace(env)))
    assert code == 0
    assert controls(out) == [] and controls(err) == []
    assert SHOWN in out.decode()


@pytest.mark.parametrize("command", [["export"], ["export", "-f", "html"], ["rerun"]])
def test_export_and_rerun_show_the_run_as_visible_characters(
    docs: Path, env: Path, command: list[str]
) -> None:
    run("ask", "what is the timeout?", "--docs", str(docs), "--model", "offline")
    page = docs / "timeouts.md"  # changed since the run: rerun shows the new lines
    changed = page.read_text().replace("five seconds", "now \x1b]0;NEW\x07 ten seconds")
    page.write_text(changed, encoding="utf-8")
    code, out, err = run(*command, str(the_trace(env)))
    assert code == (1 if command == ["rerun"] else 0)  # rerun: the cited line has changed
    assert controls(out) == [] and controls(err) == []
    assert ("␛]0;NEW␇" if command == ["rerun"] else SHOWN) in out.decode()


def test_server_error_text_is_one_visible_line(
    chat_server: ChatServer, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-test-key-123456")
    chat_server.push(Status(400, f"bad request {HOSTILE} [/x] [link=https://e.test]x[/link]"))
    code, out, err = run(
        "ask", "timeouts?", "--docs", str(docs), "--base-url", chat_server.base_url,
        "--model", "test-model",
    )  # fmt: skip
    assert code == 1
    assert out == b"" and controls(err) == []
    assert f"{SHOWN} [/x] [link=https://e.test]x[/link]" in err.decode().splitlines()[-1]


def test_a_trace_path_with_controls_is_shown_visible(tmp_path: Path) -> None:
    code, out, err = run("replay", "--print", str(tmp_path / "x\x1b]0;T\x07.jsonl"))
    assert code == 2
    assert err.decode() == f"docsagent: no trace file at {tmp_path}/x␛]0;T␇.jsonl\n"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_on_a_real_terminal_only_our_own_styling_is_written(docs: Path, env: Path) -> None:
    import pty

    main, follower = pty.openpty()
    command = [sys.executable, "-c", "from tui.cli import main; main()", "ask", "timeout?"]
    process = subprocess.Popen(
        [*command, "--docs", str(docs), "--model", "offline"],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=subprocess.PIPE,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "100"},
    )
    os.close(follower)
    output = read_until_closed(main)
    assert process.stderr is not None
    with process.stderr:
        err = process.stderr.read()
    assert process.wait() == 0
    os.close(main)
    out = output
    assert SGR.search(out), "the answer was rendered for a terminal"
    assert controls(SGR.sub(b"", out).replace(b"\r\n", b"\n")) == []  # the pty turns \n into \r\n
    assert controls(err) == []
    assert "␛]0;PWNED␇" in out.decode()


BIG = "9" * 5000
DEEP = "[" * 100_000 + "]" * 100_000


def test_hostile_tool_arguments_neither_crash_ask_nor_replay(docs: Path, env: Path) -> None:
    script = docs.parent / "script.json"
    calls = [
        {"name": "read_doc", "arguments": f'{{"path": "timeouts.md", "start": {BIG}}}'},
        {"name": "grep_docs", "arguments": DEEP},
        {"name": "grep_docs", "arguments": "[" * 30_000 + "]" * 30_000},
    ]
    script.write_text(json.dumps([{"tool_calls": calls}, {"content": "Five seconds."}]))
    code, out, err = run("ask", "timeout?", "--docs", str(docs), "--model", f"script:{script}")
    assert code == 0 and out == b"Five seconds.\n"
    lines = err.decode().splitlines()
    assert (
        lines[0].startswith(f'[step 1] read_doc({{"path": "timeouts.md", "start": {"9" * 150}')
        and "…) ✗ error: the arguments hold a number with more than 100 digits" in lines[0]
    )
    assert lines[1].startswith("[step 1] grep_docs([[[[") and "characters long" in lines[1]
    assert lines[2].startswith("[step 1] grep_docs([[[[") and "nested more than 32" in lines[2]
    assert all(len(line) < 400 for line in lines)
    assert read_trace(the_trace(env)).complete
    code, out, err = run("replay", "--print", str(the_trace(env)))
    assert code == 0 and out == b"Five seconds.\n"
    assert err.decode().splitlines()[:3] == lines[:3]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev/zero")
def test_replay_refuses_hostile_traces_with_one_line(docs: Path, env: Path, tmp_path: Path) -> None:
    run("ask", "what is the timeout?", "--docs", str(docs), "--model", "offline")
    lines = the_trace(env).read_text(encoding="utf-8").splitlines()
    nan = tmp_path / "nan.jsonl"
    nan.write_text("\n".join([*lines[:3], lines[3].replace('"t": 0', '"t": NaN', 1), *lines[4:]]))
    deep = tmp_path / "deep.jsonl"
    deep.write_text("\n".join([*lines[:3], "[" * 100_000 + "]" * 100_000, *lines[3:]]))
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    for path, why in [
        (nan, "line 4 is damaged (NaN is not allowed: numbers must be finite)"),
        (deep, "line 4 is damaged (nested too deeply)"),
        (fifo, "is not a regular file, so not a trace"),
        (Path("/dev/zero"), "is not a regular file, so not a trace"),
    ]:
        for args in (["replay", "--print"], ["replay", "--instant"]):
            code, out, err = run(*args, str(path))
            assert code == 2 and out == b""
            assert err.decode().startswith("docsagent: ") and err.decode().count("\n") == 1
            assert why in err.decode()
