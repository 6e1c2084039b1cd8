"""Text for `docsagent rerun`: what changed since a run, one line per call and citation."""

from __future__ import annotations

from agent import RerunReport


def rerun_lines(report: RerunReport) -> list[str]:
    """The report as lines for the terminal."""
    lines = [f"re-ran {len(report.calls)} tool calls against {report.docs}"]
    for call in report.calls:
        mark = "same" if call.same else "CHANGED"
        lines.append(f"[step {call.step}] {call.name}({call.arguments}) {mark}")
        lines += [f"    {row}" for row in call.diff]
    if not report.citations:
        lines.append("the answer cites no lines")
    for citation in report.citations:
        verdict = "holds" if citation.holds else f"CHANGED: {citation.reason}"
        lines.append(f"citation {citation.label} {verdict}")
    if report.holds:
        lines.append("nothing the answer rests on has changed")
    else:
        lines.append("the answer rests on lines that changed")
    return lines
