"""docsagent's core: a hand-written tool-calling agent over a docs folder.

It emits typed events and imports nothing from textual, rich or typer. The names that
serve one command each (`eval`, `export`, `rerun`) are imported on first use, so
starting `ask` or the TUI does not pay for them.
"""

from __future__ import annotations

import importlib
import typing

from agent.config import (
    Config,
    build_agent,
    build_model,
    default_docs,
    default_trace_dir,
    open_docs,
)
from agent.defaults import DEFAULT_MAX_STEPS, DEFAULT_REQUEST_TIMEOUT, DEFAULT_TIMEOUT, OFFLINE
from agent.errors import (
    AgentError,
    ConfigError,
    ModelError,
    TraceError,
)
from agent.events import (
    ContextCompacted,
    Event,
    MessageAppended,
    ModelReplied,
    ModelRequested,
    RetryScheduled,
    RunFinished,
    RunStarted,
    RunStats,
    StopReason,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    Totals,
    Usage,
)
from agent.loop import SYSTEM_PROMPT, Agent
from agent.messages import Message, ToolCall
from agent.models.base import Chunk, Delta, Model, Reply, Retry, estimate_tokens
from agent.observation import RunResult, truncate
from agent.outcome import Outcome, is_decline, run_outcome
from agent.pricing import estimate_cost, parse_prices
from agent.search import DocsIndex, Hit, IndexReport
from agent.session import Session
from agent.tools.arguments import parse_arguments
from agent.tools.citations import Citation, citation_spans, find_citations
from agent.tools.corpus import Corpus
from agent.tools.docs import (
    DocsContext,
    docs_registry,
    grep_docs,
    list_docs,
    read_doc,
    search_docs,
)
from agent.tools.registry import Tool, ToolContext, ToolError, ToolOutcome, ToolRegistry, tool
from agent.tools.schema import ArgumentError
from agent.trace import (
    Trace,
    TraceWriter,
    event_from_dict,
    event_to_dict,
    read_trace,
    trace_header,
)
from agent.traces import TraceSummary, recent_traces

if typing.TYPE_CHECKING:  # what mypy sees; at run time `__getattr__` below imports these
    from agent.eval.questions import Evidence, Question, evidence_problems, load_questions
    from agent.eval.runner import EvalRun, eval_trace_dir, run_questions
    from agent.eval.scoring import QuestionResult, Summary, score, summarise
    from agent.export import FORMATS as EXPORT_FORMATS
    from agent.export import export as export_trace
    from agent.rerun import RerunReport
    from agent.rerun import rerun as rerun_trace

_ON_FIRST_USE = {
    "EXPORT_FORMATS": ("agent.export", "FORMATS"),
    "EvalRun": ("agent.eval.runner", "EvalRun"),
    "Evidence": ("agent.eval.questions", "Evidence"),
    "Question": ("agent.eval.questions", "Question"),
    "QuestionResult": ("agent.eval.scoring", "QuestionResult"),
    "RerunReport": ("agent.rerun", "RerunReport"),
    "Summary": ("agent.eval.scoring", "Summary"),
    "eval_trace_dir": ("agent.eval.runner", "eval_trace_dir"),
    "evidence_problems": ("agent.eval.questions", "evidence_problems"),
    "export_trace": ("agent.export", "export"),
    "load_questions": ("agent.eval.questions", "load_questions"),
    "rerun_trace": ("agent.rerun", "rerun"),
    "run_questions": ("agent.eval.runner", "run_questions"),
    "score": ("agent.eval.scoring", "score"),
    "summarise": ("agent.eval.scoring", "summarise"),
}
"""Public names imported on first use: name -> (module, name there)."""

if not typing.TYPE_CHECKING:  # hidden from mypy, which would otherwise accept any name

    def __getattr__(name: str) -> object:
        """Import a name of `_ON_FIRST_USE` when first asked for, and keep it."""
        try:
            module, attribute = _ON_FIRST_USE[name]
        except KeyError:
            raise AttributeError(f"module 'agent' has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module), attribute)
        globals()[name] = value
        return value


__all__ = [
    "Agent",
    "AgentError",
    "ArgumentError",
    "Chunk",
    "Citation",
    "Config",
    "ConfigError",
    "ContextCompacted",
    "Corpus",
    "DEFAULT_MAX_STEPS",
    "DEFAULT_REQUEST_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "Delta",
    "DocsContext",
    "DocsIndex",
    "EXPORT_FORMATS",
    "EvalRun",
    "Event",
    "Evidence",
    "Hit",
    "IndexReport",
    "Message",
    "MessageAppended",
    "Model",
    "ModelError",
    "ModelReplied",
    "ModelRequested",
    "OFFLINE",
    "Outcome",
    "Question",
    "QuestionResult",
    "Reply",
    "RerunReport",
    "Retry",
    "RetryScheduled",
    "RunFinished",
    "RunResult",
    "RunStarted",
    "RunStats",
    "SYSTEM_PROMPT",
    "Session",
    "StopReason",
    "Summary",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolCallFinished",
    "ToolCallStarted",
    "ToolContext",
    "ToolError",
    "ToolOutcome",
    "ToolRegistry",
    "Totals",
    "Trace",
    "TraceError",
    "TraceSummary",
    "TraceWriter",
    "Usage",
    "build_agent",
    "build_model",
    "citation_spans",
    "default_docs",
    "default_trace_dir",
    "docs_registry",
    "estimate_cost",
    "estimate_tokens",
    "eval_trace_dir",
    "event_from_dict",
    "event_to_dict",
    "evidence_problems",
    "export_trace",
    "find_citations",
    "grep_docs",
    "is_decline",
    "list_docs",
    "load_questions",
    "open_docs",
    "parse_arguments",
    "parse_prices",
    "read_doc",
    "read_trace",
    "recent_traces",
    "rerun_trace",
    "run_outcome",
    "run_questions",
    "score",
    "search_docs",
    "summarise",
    "tool",
    "trace_header",
    "truncate",
]
