"""How `docsagent` is called: usage and help lines, mistyped options, the question from
stdin, and a --trace file that already exists."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.trace import read_trace
from tui.cli import app
from tui.commands.command import similar_options
from tui.commands.question import NO_QUESTION, QuestionMissing, read_question

pytestmark = pytest.mark.usefixtures("cli_env")  # without the user's settings


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), input=stdin)
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("command", "usage", "argument"),
    [
        ("ask", "Usage: docsagent ask [OPTIONS] QUESTION", "  QUESTION  The question"),
        ("replay", "Usage: docsagent replay [OPTIONS] TRACE", "  TRACE  A trace file"),
        ("export", "Usage: docsagent export [OPTIONS] TRACE", "  TRACE  A trace file"),
    ],
)
def test_help_names_arguments_plainly(command: str, usage: str, argument: str) -> None:
    code, out, _ = run(command, "--help")
    assert code == 0
    assert out.splitlines()[0] == usage
    assert any(line.startswith(argument) for line in out.splitlines())
    assert "{" not in out and "<str>" not in out and "<path>" not in out


def test_the_command_itself_still_shows_its_commands_in_usage() -> None:
    code, out, _ = run("--help")
    assert code == 0 and out.splitlines()[0] == "Usage: docsagent [OPTIONS] COMMAND [ARGS]..."


@pytest.mark.parametrize(
    ("typed", "last_line"),
    [
        ("--bogus", "Error: No such option: --bogus"),
        ("--dcos", "Error: No such option: --dcos (did you mean --docs?)"),
        ("--jsn", "Error: No such option: --jsn (did you mean --json?)"),
        ("--max-step", "Error: No such option: --max-step (did you mean --max-steps?)"),
        ("--no", "Error: No such option: --no (did you mean --no-compact or --no-stream?)"),
    ],
)
def test_a_mistyped_option_suggests_only_close_names(typed: str, last_line: str) -> None:
    code, _, err = run("ask", typed, "x")
    assert code == 2
    assert err.splitlines()[-1] == last_line
    assert err.splitlines()[0] == "Usage: docsagent ask [OPTIONS] QUESTION"


def test_a_mistyped_option_before_the_command_is_answered_the_same_way() -> None:
    code, _, err = run("--dosc", "ask", "x")
    assert code == 2
    assert err.splitlines()[-1] == "Error: No such option: --dosc (did you mean --docs?)"


def test_similar_options_ignores_dashes_and_values() -> None:
    options = ["--docs", "--model", "--max-steps", "--max-tokens", "-h", "--help"]
    assert similar_options("--modle=x", options) == ["--model"]
    assert similar_options("--max", options) == ["--max-steps", "--max-tokens"]
    assert similar_options("--", options) == []
    assert similar_options("--zzz", options) == []


def test_a_question_is_read_from_stdin_with_a_dash_or_none(docs: Path, cli_env: Path) -> None:
    for args in (["ask", "-"], ["ask"]):
        code, out, _ = run(
            *args, "--docs", str(docs), "--model", "offline", stdin="  how do I replay?\n\n"
        )
        assert code == 0 and "replay.md" in out
    traces = sorted(cli_env.iterdir())
    assert len(traces) == 2
    for path in traces:
        assert read_trace(path).header["question"] == "how do I replay?"


@pytest.mark.parametrize("args", [["ask", "-"], ["ask"], ["ask", "   "]])
def test_an_empty_question_is_a_usage_error(docs: Path, args: list[str]) -> None:
    code, out, err = run(*args, "--docs", str(docs), stdin=" \n\t\n")
    assert code == 2 and out == ""
    assert err in (
        "docsagent: the question on stdin is empty\n",
        "docsagent: the question is empty\n",
    )


class Keyboard(io.StringIO):
    """A terminal's stdin: what is typed, up to Ctrl+D."""

    def isatty(self) -> bool:
        return True


def test_on_a_terminal_a_missing_question_is_a_usage_error_and_a_dash_reads_to_the_end() -> None:
    hints: list[str] = []
    with pytest.raises(QuestionMissing) as missing:
        read_question(None, Keyboard("never read"), hint=hints.append)
    assert str(missing.value) == NO_QUESTION
    assert read_question("-", Keyboard("typed\nquestion\n"), hint=hints.append) == (
        "typed\nquestion"
    )
    assert hints == ["docsagent: reading the question from stdin; end it with Ctrl+D"]
    with pytest.raises(QuestionMissing):
        read_question(None, None, hint=hints.append)  # stdin closed
    assert read_question("asked", None, hint=hints.append) == "asked"


def test_an_existing_trace_file_is_kept_unless_forced(docs: Path, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text("precious\n")
    base = ["ask", "how do I replay?", "--docs", str(docs), "--model", "offline"]
    code, out, err = run(*base, "--trace", str(path))
    assert (code, out) == (2, "")
    assert err == f"docsagent: {path} already exists; pass --force to replace it\n"
    assert path.read_text() == "precious\n"
    code, _, _ = run(*base, "--trace", str(path), "--force")
    assert code == 0 and read_trace(path).complete
    code, _, _ = run("--force", *base, "--trace", str(path))  # before the command, too
    assert code == 0


def test_the_step_limit_is_worded_in_the_singular_for_one_step(docs: Path) -> None:
    code, _, err = run("ask", "how do I replay?", "--docs", str(docs), "--max-steps", "1")
    assert code == 3
    assert err.splitlines()[-1] == "docsagent: no answer within 1 step"
    assert "no answer after 1 step · 1 tool call · " in err


@pytest.mark.parametrize("args", [["ask", "q", "--docs", ""], ["--docs", " ", "ask", "q"]])
def test_an_empty_docs_folder_is_refused_not_read_as_the_current_one(args: list[str]) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert "Invalid value for '--docs'" in result.stderr and "is empty" in result.stderr


def test_bare_command_without_a_terminal_points_at_ask() -> None:
    result = CliRunner().invoke(app, [])
    assert result.exit_code == 2
    assert "docsagent ask" in result.stderr


def test_help_and_version() -> None:
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for word in ["ask", "replay", "tui", "--docs", "--model", "LLM_MODEL"]:
        assert word in result.stdout
    assert CliRunner().invoke(app, ["--version"]).stdout.startswith("docsagent ")


def test_usage_errors_exit_2() -> None:
    assert run("ask", "")[0] == 2
    assert run("ask", "q", "--max-steps", "0")[0] == 2
    assert run("ask")[0] == 2
