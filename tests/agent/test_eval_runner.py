from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from datetime import datetime
from pathlib import Path

import pytest

from agent.config import Config, build_agent
from agent.errors import ConfigError
from agent.eval.questions import Evidence, Question
from agent.eval.runner import EvalRun, eval_trace_dir, run_questions, trace_name
from agent.eval.scoring import QuestionResult
from agent.loop import Agent
from agent.messages import Message
from agent.models.base import Chunk, ToolSchema
from agent.testing import ScriptedModel, call, reply
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
from agent.trace import read_trace
from tests.chatserver import HOLD_LIMIT_S, MODEL, ChatServer, Hang, Reply
from tests.folders import EVAL_PAGES, docs_folder

REPLAY = Question(
    question="How do I replay a saved run?",
    id="replay",
    evidence=(Evidence("replay.md", 3, 4),),
    must_mention=("docsagent replay",),
)
UPGRADE = Question(
    question="How do I upgrade docsagent?",
    id="upgrade",
    evidence=(Evidence("install.md", 5, 7),),
    must_mention=("--upgrade",),
)
BREAD = Question(question="How do I bake sourdough bread?", id="bread", answerable=False)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return docs_folder(tmp_path / "docs", EVAL_PAGES)


def agents(docs: Path, turns: Callable[[], list[Message]]) -> Callable[[], Agent]:
    """A fresh agent per question, each with its own scripted model."""
    corpus = Corpus.open(docs)
    return lambda: Agent(ScriptedModel(turns()), docs_registry(), context=[DocsContext(corpus)])


def test_each_question_runs_in_its_own_session_with_its_own_trace(
    docs: Path, tmp_path: Path
) -> None:
    def turns() -> list[Message]:
        return [
            reply(None, call("read_doc", {"path": "replay.md"})),
            reply("Run `docsagent replay FILE` (replay.md:3-4)."),
        ]

    run = EvalRun(
        make_agent=agents(docs, turns), corpus=Corpus.open(docs), trace_dir=tmp_path / "t"
    )
    seen: list[str] = []
    results = run_questions(
        [REPLAY, UPGRADE, BREAD], run, on_result=lambda r: seen.append(r.question.id)
    )
    assert seen == ["replay", "upgrade", "bread"]
    assert [r.outcome for r in results] == ["hit", "miss", "answered"]
    assert [r.mentioned for r in results] == [("docsagent replay",), (), ()]
    # each citation is checked against what that run read
    assert [(c.valid, c.read) for r in results for c in r.citations] == [(True, True)] * 3
    assert [r.steps for r in results] == [2, 2, 2]
    names = sorted(p.name for p in (tmp_path / "t").iterdir())
    assert names == ["001-replay.jsonl", "002-upgrade.jsonl", "003-bread.jsonl"]
    for result, question in zip(results, [REPLAY, UPGRADE, BREAD], strict=True):
        trace = read_trace(result.trace or "")
        assert trace.header["question"] == question.question
        assert trace.complete


def test_the_offline_model_answers_and_declines_a_tiny_set(docs: Path, tmp_path: Path) -> None:
    config = Config(docs=docs, model="offline", trace_dir=tmp_path)
    run = EvalRun(
        make_agent=lambda: build_agent(config), corpus=Corpus.open(docs), trace_dir=tmp_path / "t"
    )
    results = run_questions([REPLAY, UPGRADE, BREAD], run)
    assert [r.outcome for r in results] == ["hit", "hit", "declined"]
    assert [r.missing for r in results] == [(), (), ()]
    assert all(r.tokens_estimated and r.tokens > 0 for r in results)


class MeetingModel:
    """Answers only once `party` models are in `query` at the same time."""

    name = "meeting"

    def __init__(self, barrier: threading.Barrier) -> None:
        self.barrier = barrier
        self.inner = ScriptedModel([reply("Met (replay.md:3-3).")])

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        self.barrier.wait()
        yield from self.inner.query(messages, tools, cancel=cancel)

    def cancel(self) -> None:
        self.inner.cancel()


def test_concurrent_questions_run_at_once_and_come_back_in_question_order(
    docs: Path, tmp_path: Path
) -> None:
    barrier = threading.Barrier(3, timeout=10)  # fails the test if they never meet
    corpus = Corpus.open(docs)
    run = EvalRun(
        make_agent=lambda: Agent(
            MeetingModel(barrier), docs_registry(), context=[DocsContext(corpus)]
        ),
        corpus=corpus,
        trace_dir=tmp_path / "t",
        concurrency=3,
    )
    results = run_questions([REPLAY, UPGRADE, BREAD], run)
    assert [r.question.id for r in results] == ["replay", "upgrade", "bread"]
    # The model answers at once, calling no tool: answers that read nothing.
    assert [r.outcome for r in results] == ["read nothing"] * 3


class HoldsUpgrades:
    """Answers at once, except a question about upgrading: that one waits to be cancelled."""

    name = "holds"

    def __init__(self, holding: threading.Event) -> None:
        self.holding = holding  # set once an upgrade question is being held

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        if "upgrade" in (messages[-1].content or "") and cancel is not None:
            self.holding.set()
            cancel.wait(timeout=10)  # the test fails if it is never cancelled
            return
        yield from ScriptedModel([reply("Quick (replay.md:3-3).")]).query(messages, tools)

    def cancel(self) -> None:
        """Nothing to cut short: a held question returns once the run's cancel is set."""


def test_stopping_early_cancels_the_runs_still_going(docs: Path, tmp_path: Path) -> None:
    corpus = Corpus.open(docs)
    holding = threading.Event()
    run = EvalRun(
        make_agent=lambda: Agent(
            HoldsUpgrades(holding), docs_registry(), context=[DocsContext(corpus)]
        ),
        corpus=corpus,
        trace_dir=tmp_path / "t",
        concurrency=2,
    )
    results = run.results([REPLAY, UPGRADE])
    assert next(results).question.id == "replay"
    assert holding.wait(timeout=10)  # the upgrade question is running
    results.close()
    trace = read_trace(tmp_path / "t" / "002-upgrade.jsonl")
    assert trace.complete
    assert trace.events[-1].stop_reason == "cancelled"  # type: ignore[attr-defined]


def two_held(
    server: ChatServer, docs: Path, trace_dir: Path
) -> tuple[Generator[QuestionResult, None, None], QuestionResult]:
    """Three questions at once on `server`, which answers one and holds the other two
    (accepted, never answered): the results still to come, and the answered one, once the
    server holds both."""
    held = Hang(answer=False, seconds=HOLD_LIMIT_S)
    server.push(Reply(content="Quick (replay.md:3-3)."), held, held)
    config = Config(
        docs=docs, model=MODEL, base_url=server.base_url, api_key="sk-test", max_retries=0
    )
    run = EvalRun(
        make_agent=lambda: build_agent(config),
        corpus=Corpus.open(docs),
        trace_dir=trace_dir,
        concurrency=3,
    )
    results = run.results([REPLAY, UPGRADE, BREAD])
    quick = next(results)
    assert server.wait_for_requests(3)
    return results, quick


def test_stopping_early_cuts_short_requests_the_server_never_answers(
    chat_server: ChatServer, docs: Path, tmp_path: Path
) -> None:
    results, quick = two_held(chat_server, docs, tmp_path / "t")
    results.close()  # what Ctrl+C in `docsagent eval` does (its time: the bench)
    traces = sorted((tmp_path / "t").iterdir())
    assert len(traces) == 3
    for path in traces:
        trace = read_trace(path)
        assert trace.complete
        want = "answered" if path == quick.trace else "cancelled"
        assert trace.events[-1].stop_reason == want  # type: ignore[attr-defined]


def test_trace_names_sort_in_question_order() -> None:
    question = Question(question="q", id="Timeouts / terse")
    assert trace_name(7, question) == "007-timeouts-terse.jsonl"


def test_each_eval_run_gets_a_new_trace_folder(tmp_path: Path) -> None:
    when = datetime(2025, 3, 14, 9, 30, 15)
    first = eval_trace_dir(tmp_path / "traces", Path("sets/httpx docs.jsonl"), when)
    again = eval_trace_dir(tmp_path / "traces", Path("sets/httpx docs.jsonl"), when)
    assert first == tmp_path / "traces" / "eval-20250314-093015-httpx-docs"
    assert again == tmp_path / "traces" / "eval-20250314-093015-httpx-docs-2"
    assert first.is_dir() and again.is_dir()


def test_an_unwritable_trace_folder_is_a_config_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ConfigError, match=f"^cannot write traces in {blocker}: "):
        eval_trace_dir(blocker, Path("q.jsonl"))


def test_a_trace_that_cannot_be_written_is_an_error_not_an_interruption(
    docs: Path, tmp_path: Path
) -> None:
    def turns() -> list[Message]:
        return [reply("Run `docsagent replay FILE` (replay.md:3-4).")]

    taken = tmp_path / "t"
    taken.write_text("")  # a file where the traces folder would go
    run = EvalRun(make_agent=agents(docs, turns), corpus=Corpus.open(docs), trace_dir=taken)
    [result] = run_questions([REPLAY], run)
    assert result.stop_reason == "error"
    assert (result.error or "").startswith(f"cannot write the trace {taken}/001-replay.jsonl: ")
