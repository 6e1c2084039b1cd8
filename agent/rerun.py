"""Re-running a saved trace's tool calls against the docs as they are today (no model).

Each observation is compared with the one the run saw, and each citation in the answer
is checked: do the cited lines still say what the run read, and does the answer's quote
still stand there? A run "still holds" when every citation does.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.events import Event, RunFinished, ToolCallFinished, ToolCallStarted
from agent.tools.citations import NUMBERED, READ_HEADER, find_citations, line_number, quotes
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
from agent.tools.folder import OutsideDocs
from agent.tools.sandbox import Unreadable
from agent.trace import Trace

MAX_DIFF_LINES = 12


@dataclass(frozen=True, kw_only=True)
class CallCheck:
    """One tool call run again: whether its result is the same, and a short diff if not."""

    step: int
    name: str
    arguments: str
    same: bool
    diff: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class CitationCheck:
    """One citation of the answer: whether it still holds, and why not."""

    label: str
    holds: bool
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class RerunReport:
    """What changed since the run, for its calls and its citations."""

    docs: Path
    calls: tuple[CallCheck, ...]
    citations: tuple[CitationCheck, ...]

    @property
    def holds(self) -> bool:
        """Whether nothing the answer rests on changed."""
        return all(check.holds for check in self.citations)


def rerun_trace(trace: Trace, corpus: Corpus) -> RerunReport:
    """Run the trace's tool calls again over `corpus` and check the answer's citations."""
    return RerunReport(
        docs=corpus.root,
        calls=tuple(_calls(trace.events, corpus)),
        citations=tuple(_citations(trace.events, corpus)),
    )


def _calls(events: Sequence[Event], corpus: Corpus) -> list[CallCheck]:
    tools, context = docs_registry(), [DocsContext(corpus)]
    started = {e.tool_call_id: e for e in events if isinstance(e, ToolCallStarted)}
    checks = []
    for event in events:
        if not isinstance(event, ToolCallFinished) or event.repeat_of is not None:
            continue
        if event.name not in tools:
            continue  # a final-answer tool: nothing in the docs to compare
        arguments = started[event.tool_call_id].arguments if event.tool_call_id in started else ""
        now = tools.call(event.name, arguments, context).output
        checks.append(
            CallCheck(
                step=event.step,
                name=event.name,
                arguments=arguments,
                same=now == event.output,
                diff=() if now == event.output else _diff(event.output, now),
            )
        )
    return checks


def _diff(before: str, after: str) -> tuple[str, ...]:
    """Removed lines, then added ones, each side cut to half of MAX_DIFF_LINES."""
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), "then", "now", n=0, lineterm=""
    )
    changed = [line for line in lines if not line.startswith(("---", "+++", "@@"))]
    shown: list[str] = []
    for sign in "-+":
        side = [line for line in changed if line.startswith(sign)]
        shown += side[: MAX_DIFF_LINES // 2]
        if len(side) > MAX_DIFF_LINES // 2:
            shown.append(f"{sign} … {len(side) - MAX_DIFF_LINES // 2} more lines")
    return tuple(shown)


def _citations(events: Sequence[Event], corpus: Corpus) -> list[CitationCheck]:
    final = events[-1] if events else None
    answer = final.answer if isinstance(final, RunFinished) else None
    if not answer:
        return []
    then = _lines_seen(events)
    fragments = quotes(answer)
    checks = []
    for citation in find_citations(answer, corpus, events):
        label = citation.label
        if not citation.valid:
            checks.append(CitationCheck(label=label, holds=False, reason="no such lines now"))
            continue
        try:
            lines = corpus.lines(corpus.resolve(citation.path), citation.start, citation.end)
        except (OutsideDocs, Unreadable):
            lines = []
        if len(lines) != citation.end - citation.start + 1:  # changed since it was checked
            checks.append(CitationCheck(label=label, holds=False, reason="no such lines now"))
            continue
        seen = then.get(citation.path, {})
        cited_then = {n: seen[n] for n in range(citation.start, citation.end + 1) if n in seen}
        changed = [
            n
            for n, text in zip(range(citation.start, citation.end + 1), lines, strict=True)
            if n in seen and not _same_line(seen[n], text)
        ]
        if changed:
            reason = f"line {changed[0]} now reads: {lines[changed[0] - citation.start].strip()}"
            checks.append(CitationCheck(label=label, holds=False, reason=reason))
        elif fragments and not citation.quoted and _quoted_in(cited_then, fragments):
            checks.append(CitationCheck(label=label, holds=False, reason="the quote moved away"))
        else:
            checks.append(CitationCheck(label=label, holds=True))
    return checks


def _lines_seen(events: Sequence[Event]) -> dict[str, dict[int, str]]:
    """The text of every numbered line the run's read_doc results showed, per doc."""
    seen: dict[str, dict[int, str]] = {}
    for event in events:
        if isinstance(event, ToolCallFinished) and event.name == "read_doc" and not event.error:
            lines = event.output.splitlines()
            header = READ_HEADER.match(lines[0]) if lines else None
            if header is None:
                continue
            shown = seen.setdefault(header["path"], {})
            for line in lines[1:]:
                if match := NUMBERED.match(line):
                    shown[line_number(match["n"])] = line[match.end() :]
    return seen


def _same_line(then: str, now: str) -> bool:
    """Whether a line reads as it did (read_doc cuts very long lines with an ellipsis)."""
    return then == now or (then.endswith("…") and now.startswith(then[:-1]))


def _quoted_in(seen: dict[int, str], fragments: list[str]) -> bool:
    """Whether one of the answer's quotes stood in the lines the run read (of a cited range:
    a "see also" range beside the quoted one never held the quote, so it cannot lose it)."""
    text = " ".join(" ".join(seen.values()).replace("`", "").split()).lower()
    return any(fragment in text for fragment in fragments)
