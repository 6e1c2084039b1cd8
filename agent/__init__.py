"""docsagent's core: a hand-written tool-calling agent over a docs folder.

It emits typed events and imports nothing from textual, rich or typer. Each public name is
written once, as an import below (`X as X`, which mypy strict exports). The defaults and
errors are imported with the package; the names under `typing.TYPE_CHECKING` are imported
on first use (`__getattr__`, PEP 562), so a command pays only for what it uses
(`docsagent --help` for none of the core, `ask` not for eval). `__all__` and where each name
comes from are read from these imports when first asked for, as lazy_loader's `attach_stub`
(Scientific Python's SPEC 1) reads them from a stub.
"""

from __future__ import annotations

import functools
import importlib
import typing

from agent.defaults import DEFAULT_MAX_REPLY_TOKENS as DEFAULT_MAX_REPLY_TOKENS
from agent.defaults import DEFAULT_MAX_STEPS as DEFAULT_MAX_STEPS
from agent.defaults import DEFAULT_REQUEST_TIMEOUT as DEFAULT_REQUEST_TIMEOUT
from agent.defaults import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from agent.defaults import OFFLINE as OFFLINE
from agent.errors import AgentError as AgentError
from agent.errors import ConfigError as ConfigError
from agent.errors import ModelError as ModelError
from agent.errors import TraceError as TraceError

if typing.TYPE_CHECKING:  # what mypy sees; at run time `__getattr__` imports these on first use
    from agent.atomic import write_atomic as write_atomic
    from agent.config import Config as Config
    from agent.config import build_agent as build_agent
    from agent.config import build_model as build_model
    from agent.config import default_docs as default_docs
    from agent.config import default_trace_dir as default_trace_dir
    from agent.config import open_docs as open_docs
    from agent.config import shared_http as shared_http
    from agent.docset import DocSet as DocSet
    from agent.docset import DocsSpec as DocsSpec
    from agent.docset import find_version as find_version
    from agent.docset import name_sets as name_sets
    from agent.docset import parse_docs_spec as parse_docs_spec
    from agent.docset import title_of as title_of
    from agent.eval.questions import Evidence as Evidence
    from agent.eval.questions import Question as Question
    from agent.eval.questions import evidence_problems as evidence_problems
    from agent.eval.questions import load_questions as load_questions
    from agent.eval.runner import EvalRun as EvalRun
    from agent.eval.runner import eval_trace_dir as eval_trace_dir
    from agent.eval.runner import run_questions as run_questions
    from agent.eval.scoring import QuestionResult as QuestionResult
    from agent.eval.scoring import Summary as Summary
    from agent.eval.scoring import score as score
    from agent.eval.scoring import summarise as summarise
    from agent.events import ContextCompacted as ContextCompacted
    from agent.events import Event as Event
    from agent.events import MessageAppended as MessageAppended
    from agent.events import ModelNotice as ModelNotice
    from agent.events import ModelReplied as ModelReplied
    from agent.events import ModelRequested as ModelRequested
    from agent.events import RetryScheduled as RetryScheduled
    from agent.events import RunFinished as RunFinished
    from agent.events import RunStarted as RunStarted
    from agent.events import RunStats as RunStats
    from agent.events import StopReason as StopReason
    from agent.events import TextDelta as TextDelta
    from agent.events import ToolCallFinished as ToolCallFinished
    from agent.events import ToolCallStarted as ToolCallStarted
    from agent.events import Totals as Totals
    from agent.events import Usage as Usage
    from agent.export import EXPORT_FORMATS as EXPORT_FORMATS
    from agent.export import export_trace as export_trace
    from agent.files import NotRegularFile as NotRegularFile
    from agent.files import open_regular as open_regular
    from agent.loop import SYSTEM_PROMPT as SYSTEM_PROMPT
    from agent.loop import Agent as Agent
    from agent.messages import Message as Message
    from agent.messages import ToolCall as ToolCall
    from agent.models.base import Chunk as Chunk
    from agent.models.base import Delta as Delta
    from agent.models.base import Model as Model
    from agent.models.base import Reply as Reply
    from agent.models.base import Retry as Retry
    from agent.models.base import estimate_tokens as estimate_tokens
    from agent.newfile import write_new as write_new
    from agent.observation import RunResult as RunResult
    from agent.observation import truncate as truncate
    from agent.outcome import Outcome as Outcome
    from agent.outcome import is_decline as is_decline
    from agent.outcome import run_outcome as run_outcome
    from agent.pricing import estimate_cost as estimate_cost
    from agent.pricing import parse_prices as parse_prices
    from agent.rerun import RerunReport as RerunReport
    from agent.rerun import rerun_trace as rerun_trace
    from agent.search import DocsIndex as DocsIndex
    from agent.search import Hit as Hit
    from agent.search import IndexReport as IndexReport
    from agent.served import SERVED_MODEL as SERVED_MODEL
    from agent.served import ServedTools as ServedTools
    from agent.served import is_served as is_served
    from agent.served import newest_served as newest_served
    from agent.session import Session as Session
    from agent.tail import TraceTail as TraceTail
    from agent.tools.arguments import parse_arguments as parse_arguments
    from agent.tools.citations import Citation as Citation
    from agent.tools.citations import citation_spans as citation_spans
    from agent.tools.citations import find_citations as find_citations
    from agent.tools.citations import with_pages as with_pages
    from agent.tools.corpus import Corpus as Corpus
    from agent.tools.docs import DocsContext as DocsContext
    from agent.tools.docs import docs_registry as docs_registry
    from agent.tools.docs import grep_docs as grep_docs
    from agent.tools.docs import list_docs as list_docs
    from agent.tools.docs import read_doc as read_doc
    from agent.tools.docs import search_docs as search_docs
    from agent.tools.registry import Tool as Tool
    from agent.tools.registry import ToolContext as ToolContext
    from agent.tools.registry import ToolError as ToolError
    from agent.tools.registry import ToolOutcome as ToolOutcome
    from agent.tools.registry import ToolRegistry as ToolRegistry
    from agent.tools.registry import tool as tool
    from agent.tools.schema import ArgumentError as ArgumentError
    from agent.trace import Trace as Trace
    from agent.trace import TraceWriter as TraceWriter
    from agent.trace import event_from_dict as event_from_dict
    from agent.trace import event_to_dict as event_to_dict
    from agent.trace import read_trace as read_trace
    from agent.trace import trace_header as trace_header
    from agent.traces import TraceSummary as TraceSummary
    from agent.traces import recent_traces as recent_traces

if not typing.TYPE_CHECKING:  # hidden from mypy, which would otherwise accept any name

    def __getattr__(name: str) -> object:
        """`__all__`, or a public name not yet imported: imported when first asked for, and kept."""
        if name == "__all__":
            value: object = sorted(_public())
        elif name in _public():
            module, attribute = _public()[name]
            value = getattr(importlib.import_module(module), attribute)
        else:
            raise AttributeError(f"module 'agent' has no attribute {name!r}")
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        """The public names with the module's own, imported or not."""
        return sorted({*globals(), *_public()})


@functools.cache
def _public() -> dict[str, tuple[str, str]]:
    """Each public name -> (its module, its name there): this file's `from agent.… import`s,
    at the top level and under `typing.TYPE_CHECKING`."""
    import ast  # only here: `import agent` alone never reads its own source

    with open(__file__, "rb") as source:
        tree = ast.parse(source.read())
    statements = [*tree.body]
    statements += [node for each in tree.body if isinstance(each, ast.If) for node in each.body]
    return {
        alias.asname or alias.name: (node.module, alias.name)
        for node in statements
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("agent.")
        for alias in node.names
    }
