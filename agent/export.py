"""A saved run as a document to share: Markdown, one self-contained HTML page, or the
messages exactly as the model was sent them (OpenAI chat format, as JSON).

Everything comes from the trace, which never holds the API key.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from agent.events import (
    ContextCompacted,
    MessageAppended,
    ModelReplied,
    RunFinished,
    RunStarted,
    ToolCallFinished,
    ToolCallStarted,
    Usage,
)
from agent.markdown import markdown_html
from agent.markdown_inert import code_span, inert
from agent.messages import Message
from agent.outcome import run_outcome
from agent.served import is_served
from agent.tools.citations import find_citations
from agent.trace import Trace

Format = Literal["markdown", "html", "openai"]
EXPORT_FORMATS: tuple[Format, ...] = ("markdown", "html", "openai")
FOLD_LINES = 12  # longer tool results are folded away


@dataclass
class _Call:
    name: str
    arguments: str
    output: str = ""
    error: bool = False
    duration_s: float = 0.0
    repeat_of: int | None = None
    finished: bool = False


@dataclass
class _Step:
    number: int
    text: str = ""
    calls: list[_Call] = field(default_factory=list)
    total: Usage | None = None
    duration_s: float | None = None


@dataclass
class _Run:
    question: str
    steps: list[_Step]
    finished: RunFinished | None
    served: bool = False  # a `docsagent mcp` session: no model asked, so no tokens


def export_trace(trace: Trace, format: Format) -> str:
    """The trace in `format`."""
    if format == "openai":
        return json.dumps(sent_messages(trace), indent=2, ensure_ascii=False) + "\n"
    run = _gather(trace)
    return _markdown(trace, run) if format == "markdown" else _html(trace, run)


def sent_messages(trace: Trace) -> dict[str, Any]:
    """The run's last request as docsagent sends it (model, messages, tools, tool_choice),
    with the model's reply: a server accepts it back as a request."""
    messages: list[Message] = []
    for event in trace.events:
        if isinstance(event, RunStarted):
            messages = list(event.history)
        elif isinstance(event, MessageAppended):
            messages.append(event.message)
        elif isinstance(event, ContextCompacted):
            stubs = dict(zip(event.tool_call_ids, event.stubs, strict=False))
            messages = [
                Message(m.role, stubs[m.tool_call_id], m.tool_calls, m.tool_call_id, m.name)
                if m.role == "tool" and m.tool_call_id in stubs
                else m
                for m in messages
            ]
    from agent.models.openai.request import request_body

    tools = trace.header.get("tools") or []
    body = request_body(str(trace.header.get("model") or ""), messages, tools, stream=False)
    return body


def _gather(trace: Trace) -> _Run:
    steps: dict[int, _Step] = {}
    calls: dict[str, _Call] = {}
    question, finished = str(trace.header.get("question", "")), None
    served = False
    for event in trace.events:
        if isinstance(event, RunStarted):
            question = event.question
            served = is_served(event.model, event.max_steps)
        elif isinstance(event, MessageAppended) and event.step > 0:
            message = event.message
            if message.role == "assistant" and message.tool_calls and message.content:
                steps.setdefault(event.step, _Step(event.step)).text = message.content
        elif isinstance(event, ModelReplied):
            step = steps.setdefault(event.step, _Step(event.step))
            step.total, step.duration_s = event.total, event.duration_s
        elif isinstance(event, ToolCallStarted):
            call = calls[event.tool_call_id] = _Call(event.name, event.arguments)
            steps.setdefault(event.step, _Step(event.step)).calls.append(call)
        elif isinstance(event, ToolCallFinished) and event.tool_call_id in calls:
            call = calls[event.tool_call_id]
            call.output, call.error, call.finished = event.output, event.error, True
            call.duration_s, call.repeat_of = event.duration_s, event.repeat_of
        elif isinstance(event, RunFinished):
            finished = event
    return _Run(question, [steps[n] for n in sorted(steps)], finished, served)


def _outcome(trace: Trace, run: _Run) -> str:
    if run.finished is None:
        return "interrupted (the trace ends before the run did)"
    stats = run.finished.stats
    tokens = stats.usage
    approx = "≈" if tokens.estimated else ""
    words = {
        "answered": "answered",
        "truncated": "cut short (the reply reached its length limit)",
        "empty": "no answer (an empty reply)",
        "max_steps": "no answer (step limit)",
        "budget": "no answer (token budget used up)",
        "repeated": "stopped (a repeated call)",
        "cancelled": "cancelled",
        "error": "failed",
        "disconnected": "session ended (the client disconnected)",
        "ended": "session ended",
        "declined": "declined (the answer cites none of the docs)",
        "read_nothing": "answered without reading the docs (the model called no tool)",
    }[run_outcome(run.finished, find_citations(run.finished.answer or "", None, trace.events))]
    used = (
        f"{approx}{tokens.prompt_tokens:,} prompt + {approx}{tokens.completion_tokens:,} "
        "completion tokens · "
    )
    return (
        f"{words} after {stats.steps} step{'s' if stats.steps != 1 else ''} · "
        f"{stats.tool_calls} tool call{'s' if stats.tool_calls != 1 else ''} · "
        f"{'' if run.served else used}{stats.elapsed_s:.1f} s"
    )


def _citations(trace: Trace, run: _Run) -> list[str]:
    answer = run.finished.answer if run.finished else None
    if not answer:
        return []
    rows = []
    for citation in find_citations(answer, None, trace.events):
        marks = "read in the run" if citation.read else "NOT read in the run"
        rows.append(f"{citation.shown} ({marks})")
    return rows


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _markdown(trace: Trace, run: _Run) -> str:
    """The run as Markdown; what came from the model, the docs or the trace is made inert
    (`markdown_inert`: no raw HTML, no `javascript:` links) for any previewer."""
    header = trace.header
    out = [f"# {inert(run.question)}", ""]
    meta = f"model {header.get('model', '?')} · docs {header.get('docs', '?')}"
    out += [f"*docsagent run · {inert(meta)}*"]
    for step in run.steps:
        out += ["", f"## Step {step.number}", ""]
        if step.text:
            out += [inert(step.text), ""]
        for call in step.calls:
            out += [f"**{inert(call.name)}** {code_span(call.arguments)}" + _call_note(call), ""]
            out += _markdown_result(call)
    out += ["", "## Answer", ""]
    if run.finished and run.finished.answer:
        out += [inert(run.finished.answer), ""]
        cited = _citations(trace, run)
        if cited:
            out += ["Citations:", *[f"- {inert(row)}" for row in cited], ""]
    else:
        error = run.finished.error if run.finished else None
        out += [inert(f"No answer{': ' + error if error else ''}."), ""]
    out += ["## Totals", "", _outcome(trace, run), ""]
    return "\n".join(out)


def _call_note(call: _Call) -> str:
    if call.repeat_of is not None:
        return f" — repeat of step {call.repeat_of}, not run again"
    if not call.finished:
        return " — no result (the run stopped here)"
    return f" — {'error, ' if call.error else ''}{call.duration_s * 1000:.0f} ms"


def _markdown_result(call: _Call) -> list[str]:
    if not call.finished:
        return []
    fence = _fence(call.output)
    block = [f"{fence}text", call.output, fence]
    lines = call.output.count("\n") + 1
    if lines <= FOLD_LINES:
        return [*block, ""]
    first = call.output.splitlines()[0][:80]
    summary = html.escape(f"{first} ({lines} lines)")
    return [f"<details><summary>{summary}</summary>", "", *block, "", "</details>", ""]


STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; color: #1d1d1f; background: #fff; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem;
     border-bottom: 1px solid #ddd; }
.meta, .counters { color: #666; font-size: 0.9rem; }
.call { margin: 0.75rem 0; } .name { font-weight: 600; }
code, pre { font: 13px/1.4 ui-monospace, monospace; }
pre { background: #f6f6f6; padding: 0.75rem; overflow-x: auto; white-space: pre-wrap; }
details > summary { cursor: pointer; color: #444; }
.error { color: #b00020; } .repeat { color: #8a5a00; }
.answer { background: #f0f7f0; padding: 0.5rem 1rem; border-left: 4px solid #3a7d44; }
.answer blockquote { margin: 0.5rem 0; padding: 0 0 0 1rem; border-left: 3px solid #aaa; }
.answer table { border-collapse: collapse; } .answer th, .answer td {
  border: 1px solid #ccc; padding: 0.2rem 0.5rem; }
@media (prefers-color-scheme: dark) {
  body { color: #eee; background: #161618; } pre { background: #242428; }
  .answer { background: #1d2a1f; } h2 { border-color: #333; }
  .answer blockquote { border-color: #666; } .answer th, .answer td { border-color: #555; }
  details > summary { color: #bbb; }
  .answer a { color: #8ab4f8; } }
"""


def _html(trace: Trace, run: _Run) -> str:
    header, e = trace.header, html.escape
    body = [f"<h1>{e(run.question)}</h1>"]
    body.append(
        f"<p class=meta>docsagent run · model {e(str(header.get('model', '?')))} · "
        f"docs {e(str(header.get('docs', '?')))}</p>"
    )
    for step in run.steps:
        body.append(f"<h2>Step {step.number}</h2>")
        if step.total is not None:
            body.append(
                f"<p class=counters>{step.total.total_tokens:,} tokens so far · "
                f"model took {step.duration_s or 0:.2f} s</p>"
            )
        if step.text:  # what the model wrote beside its calls: Markdown, as the answer is
            body.append(
                f"<div class=step-text>\n{markdown_html(step.text, first_heading=3)}\n</div>"
            )
        body.extend(_html_call(call) for call in step.calls)
    body.append("<h2>Answer</h2>")
    if run.finished and run.finished.answer:
        answer = markdown_html(run.finished.answer, first_heading=3)
        body.append(f"<div class=answer>\n{answer}\n</div>")
        cited = _citations(trace, run)
        if cited:
            body.append("<ul>" + "".join(f"<li>{e(row)}</li>" for row in cited) + "</ul>")
    else:
        error = run.finished.error if run.finished else None
        body.append(f"<p class=error>No answer{e(': ' + error) if error else ''}.</p>")
    body.append(f"<h2>Totals</h2><p class=counters>{e(_outcome(trace, run))}</p>")
    title = e(run.question[:80])
    return (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{title} · docsagent</title><style>{STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _html_call(call: _Call) -> str:
    e = html.escape
    note = e(_call_note(call))
    css = "error" if call.error else "repeat" if call.repeat_of is not None else ""
    head = (
        f"<div class='call {css}'><span class=name>{e(call.name)}</span> "
        f"<code>{e(call.arguments)}</code>{note}"
    )
    if not call.finished:
        return head + "</div>"
    lines = call.output.count("\n") + 1
    opened = " open" if lines <= FOLD_LINES else ""
    first = e(call.output.splitlines()[0][:80] if call.output else "(empty)")
    return (
        f"{head}<details{opened}><summary>{first} ({lines} lines)</summary>"
        f"<pre>{e(call.output)}</pre></details></div>"
    )
