"""What the eval bench's answers say about themselves, checked after each set's eval:

- no citation comes from quoted or code text: each answer is parsed again here, with
  markdown-it's full CommonMark parse (not `agent/tools/prose.py`), its prose text taken
  from the inline tokens outside block quotes, code spans left out; every citation
  `docsagent eval` reported must stand in that prose (target: 0 that do not);
- `docsagent rerun` of every trace the eval wrote holds on the unchanged docs (the
  check behind its exit code 0; target: all).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from agent import Citation, Corpus, read_trace, rerun_trace
from agent.tools.citations import CITATION, line_number

_PARSER = MarkdownIt("commonmark").enable("table")


@dataclass
class AnswerChecks:
    """One set's counts."""

    name: str
    citations: int = 0
    not_in_prose: int = 0
    shown_only: int = 0
    """Citation-like text in quotes or code (rightly not counted as citations)."""
    traces: int = 0
    rerun_failed: int = 0
    first_failure: str = ""

    @property
    def met(self) -> bool:
        return self.not_in_prose == 0 and self.rerun_failed == 0

    def line(self) -> str:
        where = f" (first: {self.first_failure})" if self.first_failure else ""
        return (
            f"{self.name}: citations from quoted or code text {self.not_in_prose} of "
            f"{self.citations} (target 0; {self.shown_only} citation-like texts there were "
            f"left out) · rerun holds on unchanged docs for "
            f"{self.traces - self.rerun_failed}/{self.traces} traces (target all){where}"
        )


def labels(text: str) -> list[str]:
    """The citation labels written in `text`, as `Citation.label` spells them."""
    found = []
    for match in CITATION.finditer(text):
        start = line_number(match["start"])
        end = line_number(match["end"]) if match["end"] else start
        found.append(Citation(match["path"].removeprefix("./"), start, end, False).label)
    return found


def prose_and_shown(answer: str) -> tuple[str, str]:
    """The answer's prose, and its quoted and code text, each joined by line breaks."""
    prose: list[str] = []
    shown: list[str] = []
    depth = 0
    for token in _PARSER.parse(answer):
        if token.type == "blockquote_open":
            depth += 1
        elif token.type == "blockquote_close":
            depth -= 1
        elif token.type in ("fence", "code_block", "html_block"):
            shown.append(token.content)
        elif token.type == "inline":
            for child in token.children or []:
                into = shown if depth or child.type == "code_inline" else prose
                into.append("\n" if child.type in ("softbreak", "hardbreak") else child.content)
            prose.append("\n")
    return "".join(prose), "\n".join(shown)


def check_answers(name: str, report: dict[str, Any], docs: Path) -> AnswerChecks:
    """The checks above for one set's `docsagent eval --json` report."""
    checks = AnswerChecks(name)
    corpus = Corpus.open(docs)
    for result in report["results"]:
        answer = result.get("answer") or ""
        prose, shown = prose_and_shown(answer)
        written = set(labels(prose))
        for cited in result["citations"]:
            checks.citations += 1
            label = Citation(cited["path"], cited["start"], cited["end"], False).label
            if label not in written:
                checks.not_in_prose += 1
                checks.first_failure = checks.first_failure or f"{result['id']}: {label}"
        checks.shown_only += sum(label not in written for label in labels(shown))
        if result.get("trace"):
            checks.traces += 1
            report_ = rerun_trace(read_trace(result["trace"]), corpus)
            if not report_.holds:
                checks.rerun_failed += 1
                broken = next(c for c in report_.citations if not c.holds)
                checks.first_failure = checks.first_failure or (
                    f"rerun {result['id']}: {broken.label} {broken.reason}"
                )
    return checks
