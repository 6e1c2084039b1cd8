"""docsagent's core: a hand-written tool-calling agent over a docs folder.

It emits typed events and imports nothing from textual, rich or typer. Its defaults and
errors are imported with it; every other name is imported on first use, so a command
pays only for what it uses (`docsagent --help` for none of the core, `ask` not for eval).
"""

from __future__ import annotations

import importlib
import typing

from agent.defaults import (
    DEFAULT_MAX_REPLY_TOKENS,
    DEFAULT_MAX_STEPS,
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_TIMEOUT,
    OFFLINE,
)
from agent.errors import (
    AgentError,
    ConfigError,
    ModelError,
    TraceError,
)

if typing.TYPE_CHECKING:  # what mypy sees; at run time `__getattr__` below imports these
    from agent.atomic import write_atomic
    from agent.config import (
        Config,
        build_agent,
        build_model,
        default_docs,
        default_trace_dir,
        open_docs,
        shared_http,
    )
    from agent.docset import (
        DocSet,
        DocsSpec,
        find_version,
        name_sets,
        parse_docs_spec,
        title_of,
    )
    from agent.eval.questions import Evidence, Question, evidence_problems, load_questions
    from agent.eval.runner import EvalRun, eval_trace_dir, run_questions
    from agent.eval.scoring import QuestionResult, Summary, score, summarise
    from agent.events import (
        ContextCompacted,
        Event,
        MessageAppended,
        ModelNotice,
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
    from agent.export import FORMATS as EXPORT_FORMATS
    from agent.export import export as export_trace
    from agent.files import NotRegularFile, open_regular
    from agent.loop import SYSTEM_PROMPT, Agent
    from agent.messages import Message, ToolCall
    from agent.models.base import Chunk, Delta, Model, Reply, Retry, estimate_tokens
    from agent.newfile import write_new
    from agent.observation import RunResult, truncate
    from agent.outcome import Outcome, is_decline, run_outcome
    from agent.pricing import estimate_cost, parse_prices
    from agent.rerun import RerunReport
    from agent.rerun import rerun as rerun_trace
    from agent.search import DocsIndex, Hit, IndexReport
    from agent.served import SERVED_MODEL, SERVED_TRACES, ServedTools, is_served
    from agent.session import Session
    from agent.tail import TraceTail
    from agent.tools.arguments import parse_arguments
    from agent.tools.citations import Citation, citation_spans, find_citations, with_pages
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

_ON_FIRST_USE = {
    "Agent": ("agent.loop", "Agent"),
    "ArgumentError": ("agent.tools.schema", "ArgumentError"),
    "Chunk": ("agent.models.base", "Chunk"),
    "Citation": ("agent.tools.citations", "Citation"),
    "Config": ("agent.config", "Config"),
    "ContextCompacted": ("agent.events", "ContextCompacted"),
    "Corpus": ("agent.tools.corpus", "Corpus"),
    "Delta": ("agent.models.base", "Delta"),
    "DocSet": ("agent.docset", "DocSet"),
    "DocsSpec": ("agent.docset", "DocsSpec"),
    "DocsContext": ("agent.tools.docs", "DocsContext"),
    "find_version": ("agent.docset", "find_version"),
    "name_sets": ("agent.docset", "name_sets"),
    "parse_docs_spec": ("agent.docset", "parse_docs_spec"),
    "title_of": ("agent.docset", "title_of"),
    "DocsIndex": ("agent.search", "DocsIndex"),
    "EXPORT_FORMATS": ("agent.export", "FORMATS"),
    "EvalRun": ("agent.eval.runner", "EvalRun"),
    "Event": ("agent.events", "Event"),
    "Evidence": ("agent.eval.questions", "Evidence"),
    "Hit": ("agent.search", "Hit"),
    "IndexReport": ("agent.search", "IndexReport"),
    "Message": ("agent.messages", "Message"),
    "MessageAppended": ("agent.events", "MessageAppended"),
    "Model": ("agent.models.base", "Model"),
    "NotRegularFile": ("agent.files", "NotRegularFile"),
    "ModelNotice": ("agent.events", "ModelNotice"),
    "ModelReplied": ("agent.events", "ModelReplied"),
    "ModelRequested": ("agent.events", "ModelRequested"),
    "Outcome": ("agent.outcome", "Outcome"),
    "Question": ("agent.eval.questions", "Question"),
    "QuestionResult": ("agent.eval.scoring", "QuestionResult"),
    "Reply": ("agent.models.base", "Reply"),
    "RerunReport": ("agent.rerun", "RerunReport"),
    "Retry": ("agent.models.base", "Retry"),
    "RetryScheduled": ("agent.events", "RetryScheduled"),
    "RunFinished": ("agent.events", "RunFinished"),
    "RunResult": ("agent.observation", "RunResult"),
    "RunStarted": ("agent.events", "RunStarted"),
    "RunStats": ("agent.events", "RunStats"),
    "SERVED_MODEL": ("agent.served", "SERVED_MODEL"),
    "SERVED_TRACES": ("agent.served", "SERVED_TRACES"),
    "SYSTEM_PROMPT": ("agent.loop", "SYSTEM_PROMPT"),
    "ServedTools": ("agent.served", "ServedTools"),
    "Session": ("agent.session", "Session"),
    "StopReason": ("agent.events", "StopReason"),
    "Summary": ("agent.eval.scoring", "Summary"),
    "TextDelta": ("agent.events", "TextDelta"),
    "Tool": ("agent.tools.registry", "Tool"),
    "ToolCall": ("agent.messages", "ToolCall"),
    "ToolCallFinished": ("agent.events", "ToolCallFinished"),
    "ToolCallStarted": ("agent.events", "ToolCallStarted"),
    "ToolContext": ("agent.tools.registry", "ToolContext"),
    "ToolError": ("agent.tools.registry", "ToolError"),
    "ToolOutcome": ("agent.tools.registry", "ToolOutcome"),
    "ToolRegistry": ("agent.tools.registry", "ToolRegistry"),
    "Totals": ("agent.events", "Totals"),
    "Trace": ("agent.trace", "Trace"),
    "TraceSummary": ("agent.traces", "TraceSummary"),
    "TraceTail": ("agent.tail", "TraceTail"),
    "TraceWriter": ("agent.trace", "TraceWriter"),
    "Usage": ("agent.events", "Usage"),
    "build_agent": ("agent.config", "build_agent"),
    "build_model": ("agent.config", "build_model"),
    "citation_spans": ("agent.tools.citations", "citation_spans"),
    "default_docs": ("agent.config", "default_docs"),
    "default_trace_dir": ("agent.config", "default_trace_dir"),
    "docs_registry": ("agent.tools.docs", "docs_registry"),
    "estimate_cost": ("agent.pricing", "estimate_cost"),
    "estimate_tokens": ("agent.models.base", "estimate_tokens"),
    "eval_trace_dir": ("agent.eval.runner", "eval_trace_dir"),
    "event_from_dict": ("agent.trace", "event_from_dict"),
    "event_to_dict": ("agent.trace", "event_to_dict"),
    "evidence_problems": ("agent.eval.questions", "evidence_problems"),
    "export_trace": ("agent.export", "export"),
    "find_citations": ("agent.tools.citations", "find_citations"),
    "grep_docs": ("agent.tools.docs", "grep_docs"),
    "is_decline": ("agent.outcome", "is_decline"),
    "is_served": ("agent.served", "is_served"),
    "list_docs": ("agent.tools.docs", "list_docs"),
    "load_questions": ("agent.eval.questions", "load_questions"),
    "open_docs": ("agent.config", "open_docs"),
    "open_regular": ("agent.files", "open_regular"),
    "parse_arguments": ("agent.tools.arguments", "parse_arguments"),
    "parse_prices": ("agent.pricing", "parse_prices"),
    "read_doc": ("agent.tools.docs", "read_doc"),
    "read_trace": ("agent.trace", "read_trace"),
    "recent_traces": ("agent.traces", "recent_traces"),
    "rerun_trace": ("agent.rerun", "rerun"),
    "run_outcome": ("agent.outcome", "run_outcome"),
    "run_questions": ("agent.eval.runner", "run_questions"),
    "score": ("agent.eval.scoring", "score"),
    "search_docs": ("agent.tools.docs", "search_docs"),
    "shared_http": ("agent.config", "shared_http"),
    "summarise": ("agent.eval.scoring", "summarise"),
    "tool": ("agent.tools.registry", "tool"),
    "trace_header": ("agent.trace", "trace_header"),
    "truncate": ("agent.observation", "truncate"),
    "with_pages": ("agent.tools.citations", "with_pages"),
    "write_atomic": ("agent.atomic", "write_atomic"),
    "write_new": ("agent.newfile", "write_new"),
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
    "DEFAULT_MAX_REPLY_TOKENS",
    "DEFAULT_MAX_STEPS",
    "DEFAULT_REQUEST_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "Delta",
    "DocSet",
    "DocsContext",
    "DocsIndex",
    "DocsSpec",
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
    "ModelNotice",
    "ModelReplied",
    "ModelRequested",
    "NotRegularFile",
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
    "SERVED_MODEL",
    "SERVED_TRACES",
    "SYSTEM_PROMPT",
    "ServedTools",
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
    "TraceTail",
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
    "find_version",
    "grep_docs",
    "is_decline",
    "is_served",
    "list_docs",
    "load_questions",
    "name_sets",
    "open_docs",
    "open_regular",
    "parse_arguments",
    "parse_docs_spec",
    "parse_prices",
    "read_doc",
    "read_trace",
    "recent_traces",
    "rerun_trace",
    "run_outcome",
    "run_questions",
    "score",
    "search_docs",
    "shared_http",
    "summarise",
    "title_of",
    "tool",
    "trace_header",
    "truncate",
    "with_pages",
    "write_atomic",
    "write_new",
]
