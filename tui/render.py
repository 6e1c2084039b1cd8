"""Pure rendering: view state and entries to rich Text, tested without an app."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from agent import Usage
from tui.state import Card, NoticeEntry, RunState, SystemEntry, UserEntry, ViewState

CARD_LINES = 4
VALUE_WIDTH = 40
LINE_WIDTH = 200

RUN_STYLES: dict[RunState, str] = {
    "idle": "dim",
    "thinking": "bold yellow",
    "running tool": "bold cyan",
    "answered": "bold green",
    "cancelled": "bold magenta",
    "error": "bold red",
    "max_steps": "bold magenta",
    "budget": "bold magenta",
    "repeated": "bold magenta",
    "interrupted": "bold magenta",
}
RUN_LABELS: dict[RunState, str] = {
    "max_steps": "step limit",
    "budget": "budget used up",
    "repeated": "stopped: repeated call",
}


def outcome_label(outcome: str) -> str:
    """How a run ended, in words (a stop reason, "interrupted" or "not a trace")."""
    labels: dict[str, str] = {str(key): label for key, label in RUN_LABELS.items()}
    return labels.get(outcome, outcome)


def elide(text: str, width: int) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(width - 1, 0)] + "…"


def elide_left(text: str, width: int) -> str:
    """`text` cut from the left to `width` characters (for paths)."""
    return text if len(text) <= width else "…" + text[len(text) - width + 1 :]


def _value(value: Any) -> str:
    shown = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return elide(shown, VALUE_WIDTH)


def call_signature(name: str, arguments: str) -> str:
    """`name(key=value, ...)` from the raw JSON arguments, long values elided."""
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except json.JSONDecodeError:
        return f"{name}({elide(arguments, VALUE_WIDTH)})"
    if not isinstance(parsed, dict):
        return f"{name}({_value(parsed)})"
    return f"{name}({', '.join(f'{k}={_value(v)}' for k, v in parsed.items())})"


def duration(seconds: float) -> str:
    """A short duration: `12 ms`, `1.4 s`, `2 m 05 s`."""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} m {rest:02d} s"


def preview(text: str, lines: int = CARD_LINES) -> tuple[list[str], str | None]:
    """The first `lines` lines of `text` and a marker for what was left out, if anything."""
    all_lines = text.splitlines() or [""]
    head = [line if len(line) <= LINE_WIDTH else line[: LINE_WIDTH - 1] + "…" for line in all_lines]
    if len(all_lines) > lines:
        rest = len(all_lines) - lines
        return head[:lines], f"… {rest:,} more line{'s' if rest != 1 else ''}"
    cut = sum(len(line) - (LINE_WIDTH - 1) for line in all_lines if len(line) > LINE_WIDTH)
    return head, (f"… {cut:,} more chars" if cut > 0 else None)


def card_text(card: Card, *, expanded: bool = False) -> Text:
    """A tool card: its call on one line, then its result (first lines, or all)."""
    # Collapsed, each line stays one line (cut with …); expanded, long lines wrap.
    text = Text(no_wrap=not expanded, overflow="ellipsis" if not expanded else "fold")
    text.append("▸ " if not expanded else "▾ ", "dim")
    text.append(call_signature(card.name, card.arguments), "bold")
    if card.running:
        text.append("  running…", "cyan")
        return text
    if card.duration_s is not None:
        text.append(f"  {duration(card.duration_s)}", "dim")
    if card.error:
        text.append("  error", "bold white on red")
    output = card.output or ""
    style = "red" if card.error else ""
    if expanded:
        lines, marker = output.splitlines() or ["(empty)"], None
    else:
        lines, marker = preview(output) if output else (["(empty)"], None)
    for line in lines:
        text.append("\n  ")
        text.append(line, style)
    if marker:
        text.append(f"\n  {marker}", "dim italic")
    return text


def entry_text(entry: SystemEntry | UserEntry | NoticeEntry, width: int = 100) -> Text:
    """A one-line entry: the collapsed system prompt, a question, or a notice."""
    if isinstance(entry, SystemEntry):
        return Text.assemble(("system ", "dim bold"), (elide(entry.text, width - 7), "dim"))
    if isinstance(entry, UserEntry):
        return Text.assemble(("you ", "bold blue"), (entry.text, ""))
    style = {"info": "dim", "warning": "magenta", "error": "bold red"}[entry.level]
    return Text(entry.text, style)


def turn_label(step: int, streaming: bool) -> Text:
    """The label above an assistant turn."""
    where = f"step {step}" if step else "earlier"
    label = Text(f"assistant · {where}", "bold green")
    if streaming:
        label.append("  …", "yellow")
    return label


def run_label(run: RunState) -> Text:
    """The run state as shown in the header."""
    return Text(f"● {RUN_LABELS.get(run, run)}", RUN_STYLES[run])


def header_text(
    state: ViewState, *, docs: str, model: str, mode: str, width: int, extra: str = ""
) -> Text:
    """The header line: docs folder, model and mode on the left; `extra` and the run state right."""
    right = Text.assemble((f"{extra}  ", "bold") if extra else "", run_label(state.run))
    tag = f" [{mode}]" if mode and mode != model else ""
    left_room = max(width - right.cell_len - 2, 10)
    fixed = f"docsagent · {model}{tag} · "
    folder = elide_left(docs, max(left_room - len(fixed), 8))
    left = Text.assemble(("docsagent", "bold"), f" · {model}{tag} · ", (folder, "dim"))
    left.truncate(left_room, overflow="ellipsis")
    gap = max(width - left.cell_len - right.cell_len, 1)
    return Text.assemble(left, " " * gap, right)


def indexing_label(done: int, total: int) -> str:
    """`indexing docs 1,234/10,000` while the search index is being brought up to date."""
    return f"indexing docs {done:,}/{total:,}"


def tokens(usage: Usage, *, short: bool = False) -> str:
    """`3,742 in + 666 out = 4,408 tokens` (`short`: `3,742+666=4,408 tok`), ≈ when estimated."""
    mark = "≈" if usage.estimated else ""
    prompt, completion, total = usage.prompt_tokens, usage.completion_tokens, usage.total_tokens
    if short:
        return f"{mark}{prompt:,}+{completion:,}={total:,} tok"
    return f"{mark}{prompt:,} in + {completion:,} out = {mark}{total:,} tokens"


def status_text(
    state: ViewState, *, elapsed_s: float | None, trace: str | None, width: int
) -> Text:
    """The status bar: step, tool calls, tokens, elapsed time and the trace file."""
    shown = state.elapsed_s if state.elapsed_s is not None else elapsed_s
    calls = f"{state.tool_calls} tool call{'s' if state.tool_calls != 1 else ''}"
    clock = [duration(shown)] if shown is not None else []
    for short in (False, True):
        parts = [f"step {state.step}/{state.max_steps}", calls, tokens(state.usage, short=short)]
        if state.cost_usd is not None:
            parts.append(f"≈${state.cost_usd:.4f}")
        text = Text(" · ".join(parts + clock))
        if width - text.cell_len >= (40 if trace else 0):
            break
    room = width - text.cell_len - 3
    if trace and len(trace) > room:
        trace = trace.replace("\\", "/").rsplit("/", 1)[-1]  # the file name says the most
    if trace and room > 12:
        text.append(" · ", "dim")
        text.append(elide_left(trace, room), "dim")
    return text
