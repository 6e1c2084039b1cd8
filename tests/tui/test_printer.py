"""The `ask` printer fitted to a terminal: lines within its width, cut at words' ends;
the summary folded at its separators; whole lines when piped."""

from __future__ import annotations

from agent.events import RunFinished, RunStats, ToolCallFinished, ToolCallStarted, Usage
from tui.commands.printer import ProgressPrinter, clip, fold, summary_line

ARGUMENTS = '{"path": "traces-and-replay.md", "start": 81, "end": 84}'
OUTPUT = "traces-and-replay.md lines 81-84 of 114\n81| ## Replay a trace from someone else"


def printed(width: int | None, arguments: str = ARGUMENTS, output: str = OUTPUT) -> str:
    lines: list[str] = []
    printer = ProgressPrinter(lines.append, width=width)
    printer(ToolCallStarted(step=2, tool_call_id="c", name="read_doc", arguments=arguments))
    printer(
        ToolCallFinished(step=2, tool_call_id="c", name="read_doc", output=output, error=False,
                         duration_s=0.0)
    )  # fmt: skip
    (line,) = lines
    return line


def test_clip_cuts_at_a_words_end_when_one_is_near() -> None:
    assert clip("short", 10) == "short"
    assert clip("according to the docs, the timeout is five", 20) == "according to the…"
    assert clip('{"start": 81, "end": 84}', 14) == '{"start": 81,…'  # a whole word kept
    assert clip("abcdefghijklmnopqrstuvwxyz", 10) == "abcdefghi…"  # no word's end near
    assert clip("日本語のテキスト", 7) == "日本語…"  # wide characters count two cells
    assert clip("anything", 1) == "…" and clip("anything", 0) == ""


def test_a_progress_line_fits_the_terminal_and_keeps_the_arguments_first() -> None:
    assert printed(80) == (
        '[step 2] read_doc({"path": "traces-and-replay.md", "start": 81,…) → traces-and-…'
    )
    assert printed(120) == (
        f"[step 2] read_doc({ARGUMENTS}) → traces-and-replay.md lines 81-84 of 114…"
    )
    for width in (40, 60, 80, 100, 120, 200):
        assert len(printed(width)) <= width
    assert printed(200) == printed(None)  # room enough: the line is as piped


def test_piped_lines_are_whole() -> None:
    line = printed(None)
    assert line.startswith(f"[step 2] read_doc({ARGUMENTS}) → traces-and-replay.md lines 81-84")
    assert len(line) > 120


def test_control_characters_are_measured_as_they_are_shown() -> None:
    line = printed(60, arguments='{"path": "\\u001b]0;T\\u0007.md"}', output="x\x9by " * 30)
    assert len(line) <= 60 and "\x9b" not in line and "\\x9b" in line


SUMMARY = RunFinished(
    stop_reason="answered",
    answer="A.",
    stats=RunStats(steps=3, tool_calls=4, usage=Usage(2660, 305, estimated=True), elapsed_s=0.04),
)
TRACE = "/home/someone/.local/state/docsagent/traces/20250101-120000-000-how-do-i-replay.jsonl"


def test_the_summary_folds_at_its_separators_evenly_and_keeps_the_trace_whole() -> None:
    line = summary_line(SUMMARY, TRACE)
    assert fold(line, None) == [line] and fold(line, 300) == [line]
    assert fold(line, 80) == [
        "answered after 3 steps · 4 tool calls",
        "≈2,660 prompt + ≈305 completion tokens · 0.0 s",
        f"trace: {TRACE}",
    ]
    assert fold(summary_line(SUMMARY), 80) == fold(line, 80)[:2]  # not a lone "0.0 s"
    assert fold(line, 40) == [
        "answered after 3 steps · 4 tool calls",
        "≈2,660 prompt + ≈305 completion tokens",
        "0.0 s",
        f"trace: {TRACE}",
    ]
