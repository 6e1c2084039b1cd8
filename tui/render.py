"""Pure rendering: view state and entries to rich Text, tested without an app.

Text from docs, models, servers and file names becomes `Text` here, never markup, and
passes through `visible` first, so it can neither style nor control the terminal.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from agent import ArgumentError, Usage, citation_spans, parse_arguments
from tui.outcomes import OUTCOMES, answer_note
from tui.state import RunState, ViewState
from tui.terminal import visible
from tui.transcript.entries import Card, NoticeEntry, SystemEntry, UserEntry

CARD_LINES = 4
VALUE_WIDTH = 40
NAME_WIDTH = 60
LINE_WIDTH = 200

BUSY_STYLES: dict[RunState, str] = {
    "idle": "dim",
    "thinking": "bold yellow",
    "running tool": "bold cyan",
}
"""The header's style while no run has ended; `tui.outcomes` shows how each one ended."""


def shown(text: str, style: str = "") -> Text:
    """Outside text as typed: control characters made visible, never parsed as markup."""
    return Text(visible(text), style)


def elide(text: str, width: int) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis."""
    head = text[: width * 4 + 64]  # whitespace collapses, so look a little past `width`
    flat = " ".join(head.split())
    if len(flat) <= width and len(head) == len(text):
        return flat
    return flat[: max(width - 1, 0)] + "…"


def elide_left(text: str, width: int) -> str:
    """`text` cut from the left to `width` characters (for paths)."""
    return text if len(text) <= width else "…" + text[len(text) - width + 1 :]


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return elide(text, VALUE_WIDTH)


def call_signature(name: str, arguments: str) -> str:
    """`name(key=value, ...)` from the raw JSON arguments, long values elided.

    Arguments are read within the agent's limits (size, depth, digits); beyond them,
    or when they are not JSON, the raw text is shown elided.
    """
    name = elide(name, NAME_WIDTH)
    try:
        parsed = parse_arguments(arguments)
    except ArgumentError:
        return f"{name}({elide(arguments, VALUE_WIDTH)})"
    if not isinstance(parsed, dict):
        return f"{name}({_value(parsed)})"
    pairs = [f"{elide(k, VALUE_WIDTH)}={_value(v)}" for k, v in parsed.items()]
    return f"{name}({', '.join(pairs)})"


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
    text.append(visible(call_signature(card.name, card.arguments)), "bold")
    if card.running:
        text.append("  running…", "cyan")
        return text
    if card.repeat_of is not None:
        text.append(f"  {repeat_mark(card.repeat_of)}", "dim italic")
    elif card.duration_s is not None:
        text.append(f"  {duration(card.duration_s)}", "dim")
    if card.error:
        text.append("  error", "bold white on red")
    output = visible(card.output or "")
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


def repeat_mark(step: int) -> str:
    """What a card of a repeated call says: the tool was not run again."""
    return f"↻ repeat of step {step}"


def unread_note(labels: tuple[str, ...]) -> Text:
    """The note under an answer that cites lines the run never read."""
    cited = ", ".join(labels[:-1]) + f" and {labels[-1]}" if len(labels) > 1 else labels[0]
    which = "which this run never read" if len(labels) == 1 else "lines this run never read"
    return Text.assemble(("⚠ ", "bold yellow"), shown(f"cites {cited}, {which}", "yellow"))


def answer_notes(unread: tuple[str, ...], outcome: str, pages: tuple[str, ...] = ()) -> Text:
    """The notes under an answer: a decline or an answer that read nothing, unread citations,
    the pages of the PDF lines it cites."""
    notes = []
    if pages:
        notes.append(shown(f"pages: {', '.join(pages)}", "dim"))
    if found := answer_note(outcome):
        text, level = found
        notes.append(shown(text, "dim" if level == "info" else "bold yellow"))
    if unread:
        notes.append(unread_note(unread))
    return Text("\n").join(notes)


def mark_unread(answer: str, labels: tuple[str, ...]) -> str:
    """The answer's Markdown with each citation in `labels` struck through and flagged ⚠.

    The answer view styles struck text as a warning rather than a strike, so any `~~` of
    the answer's own is escaped first. Citations inside code (backticks or a fenced block)
    are left as they are: the note under the answer names them.
    """
    if not labels:
        return answer
    wanted = set(labels)
    code = _code_spans(answer)  # in order, apart
    starts = [x for x, _ in code]
    marks = []
    for a, b, label in citation_spans(answer):
        inside = bisect.bisect_right(starts, a) - 1  # the last code span starting at or before
        if label in wanted and not (inside >= 0 and a < code[inside][1]):
            marks.append((a, b))
    pieces = sorted([(a, b, "code") for a, b in code] + [(a, b, "mark") for a, b in marks])
    out, at = [], 0
    for start, end, kind in pieces:
        if start < at:
            continue
        out.append(answer[at:start].replace("~~", "\\~\\~"))  # prose: no strikes of its own
        part = answer[start:end]
        out.append(part if kind == "code" else f"~~⚠{part}~~")
        at = end
    out.append(answer[at:].replace("~~", "\\~\\~"))
    return "".join(out)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` is code: fenced blocks and backtick spans (positions, end exclusive)."""
    spans: list[tuple[int, int]] = []
    offset, fence = 0, -1
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith(("```", "~~~")):
            if fence < 0:
                fence = offset
            else:
                spans.append((fence, offset + len(line)))
                fence = -1
        elif fence < 0:
            spans += [(offset + start, offset + end) for start, end in _backtick_spans(line)]
        offset += len(line)
    if fence >= 0:
        spans.append((fence, len(text)))
    return spans


def _backtick_spans(line: str) -> list[tuple[int, int]]:
    """What `re.finditer(r"(`+)[^`]*?\\1", line)` finds, from the runs of backticks in one
    pass: the regex tried each shorter opening in turn, so a line of backticks was quadratic.

    A run opens a span closed by as many backticks at the start of the next run; when the
    next run is shorter (or there is none) the run's own backticks pair up instead.
    """
    runs = [(m.start(), m.end()) for m in re.finditer(r"`+", line)]
    spans: list[tuple[int, int]] = []
    i, at = 0, 0  # the run looked at, and where in it the next span may start
    while i < len(runs):
        start, end = max(at, runs[i][0]), runs[i][1]
        size = end - start
        if size <= 0:
            i += 1
            continue
        if i + 1 < len(runs) and runs[i + 1][1] - runs[i + 1][0] >= size:
            at = runs[i + 1][0] + size  # closed by the next run's first `size` backticks
            spans.append((start, at))
            i += 1
        elif size >= 2:
            at = start + size // 2 * 2  # the run's own backticks, two by two
            spans.append((start, at))
        else:
            i += 1
    return spans


def card_view(card: Card, *, expanded: bool = False) -> RenderableType:
    """What a card widget shows: `card_text`, its expanded result wrapped under its indent.

    Expanded, a long line (code, a path, a table row) wraps to the card's width and each
    continuation line keeps the result's two-space indent, so the result stays one block
    to the right of the call instead of running into the card's left edge.
    """
    text = card_text(card, expanded=expanded)
    if not expanded:
        return text
    head, *body = text.split("\n", allow_blank=True)
    if not body:
        return text
    result = Text("\n", no_wrap=False, overflow="fold").join(
        line[2:] if line.plain.startswith("  ") else line for line in body
    )
    return Group(head, Padding(result, (0, 0, 0, 2)))


def entry_text(entry: SystemEntry | UserEntry | NoticeEntry, width: int = 100) -> Text:
    """A one-line entry: the collapsed system prompt, a question, or a notice."""
    if isinstance(entry, SystemEntry):
        return Text.assemble(("system ", "dim bold"), shown(elide(entry.text, width - 7), "dim"))
    if isinstance(entry, UserEntry):
        return Text.assemble(("you ", "bold blue"), shown(entry.text))
    style = {"info": "dim", "warning": "magenta", "error": "bold red"}[entry.level]
    return shown(entry.text, style)


def turn_label(step: int, streaming: bool) -> Text:
    """The label above an assistant turn."""
    where = f"step {step}" if step else "earlier"
    label = Text(f"assistant · {where}", "bold green")
    if streaming:
        label.append("  …", "yellow")
    return label


def run_label(run: RunState, *, tool: str = "") -> Text:
    """The run state as shown in the header; with `tool`, a running call names it."""
    ended = OUTCOMES.get(run)
    if ended is not None:
        return Text(f"● {ended.label}", ended.style)
    if tool and run == "running tool":
        return Text(f"● running {visible(elide(tool, NAME_WIDTH))}", BUSY_STYLES[run])
    return Text(f"● {run}", BUSY_STYLES[run])


def header_text(
    state: ViewState, *, docs: str, model: str, mode: str, width: int, extra: str = ""
) -> Text:
    """The header line: docs folder, model and mode on the left; `extra` and the run state right."""
    label = run_label(state.run, tool=state.tool if state.served else "")
    right = Text.assemble(shown(f"{extra}  ", "bold") if extra else "", label)
    docs, model, mode = visible(docs), visible(model), visible(mode)
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


def repeat_counter(repeats: int, *, short: bool = False) -> str:
    """`2 repeated calls` (`short`: `2 repeated`): calls not run again."""
    if short:
        return f"{repeats} repeated"
    return f"{repeats} repeated call{'s' if repeats != 1 else ''}"


def compaction_counter(results: int, saved: int, *, short: bool = False) -> str:
    """`compacted: 3 results, −2,400 tok` (`short`: `compacted −2,400 tok`)."""
    if short:
        return f"compacted −{saved:,} tok"
    return f"compacted: {results} result{'s' if results != 1 else ''}, −{saved:,} tok"


def status_text(
    state: ViewState, *, elapsed_s: float | None, trace: str | None, width: int
) -> Text:
    """The status bar: step, tool calls, tokens, elapsed time and the trace file.

    A served session (`docsagent mcp`) asks no model: it shows its calls, no step or tokens.
    """
    shown = state.elapsed_s if state.elapsed_s is not None else elapsed_s
    calls = f"{state.tool_calls} tool call{'s' if state.tool_calls != 1 else ''}"
    clock = [duration(shown)] if shown is not None else []
    for short in (False, True):
        step = f"step {state.step}/{state.max_steps}" if state.max_steps else "not started"
        parts = [calls] if state.served else [step, calls]
        if state.repeats:
            parts.append(repeat_counter(state.repeats, short=short))
        if not state.served:
            parts.append(tokens(state.usage, short=short))
        if state.compacted:
            parts.append(compaction_counter(state.compacted, state.tokens_saved, short=short))
        if state.cost_usd is not None:
            parts.append(f"≈${state.cost_usd:.4f}")
        text = Text(" · ".join(parts + clock))
        if width - text.cell_len >= (40 if trace else 0):
            break
    room = width - text.cell_len - 3
    trace = visible(trace) if trace else trace
    if trace and len(trace) > room:
        trace = trace.replace("\\", "/").rsplit("/", 1)[-1]  # the file name says the most
    if trace and room > 12:
        text.append(" · ", "dim")
        text.append(elide_left(trace, room), "dim")
    return text


def notice_text(notices: tuple[str, ...] | list[str]) -> Text:
    """The notice line: one `⚠ notice` per standing notice, text as typed."""
    text = Text()
    for index, notice in enumerate(notices):
        if index:
            text.append("\n")
        text.append("⚠ ", "bold")
        text.append(visible(notice))
    return text


def welcome_text(*, docs: str, model: str, examples: int = 0) -> Text:
    """The start screen's first lines: which docs, which model, what to do."""
    then = ", or press a number to ask one of these:" if examples else "."
    return Text.assemble(
        ("Docs   ", "dim"),
        (visible(docs), "bold"),
        ("\nModel  ", "dim"),
        (visible(model), "bold"),
        f"\nType a question below and press Enter{then}",
    )


def example_text(number: int, question: str) -> Text:
    """One example question with the key that asks it."""
    return Text.assemble((f" {number} ", "bold reverse"), " ", shown(question))
