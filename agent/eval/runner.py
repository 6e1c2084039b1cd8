"""Running a question set: each question in its own session, a few at a time, one trace each."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from agent.errors import AgentError, ConfigError
from agent.eval.questions import Question
from agent.eval.scoring import QuestionResult, score
from agent.events import Event
from agent.loop import Agent
from agent.session import Session
from agent.tools.citations import find_citations
from agent.tools.corpus import Corpus


def eval_trace_dir(trace_dir: Path, questions: Path, now: datetime | None = None) -> Path:
    """A new folder for one eval run's traces, `eval-<time>-<question file>` in `trace_dir`.

    A folder of its own keeps a run's traces together and out of the recent-traces list;
    a second run in the same second gets `-2`. Raises ConfigError when it cannot be made.
    """
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    slug = re.sub(r"[^a-z0-9]+", "-", questions.stem.lower()).strip("-") or "questions"
    base = Path(trace_dir) / f"eval-{stamp}-{slug}"
    for n in range(1, 100):
        folder = base if n == 1 else base.with_name(f"{base.name}-{n}")
        try:
            folder.mkdir(parents=True)
        except FileExistsError:
            continue
        except OSError as exc:
            raise ConfigError(
                f"cannot write traces in {trace_dir}: {exc.strerror or exc}"
            ) from None
        return folder
    raise ConfigError(f"cannot make a new trace folder beside {base}")


def trace_name(index: int, question: Question) -> str:
    """A trace file name that sorts in question order: `007-<id>.jsonl`."""
    slug = re.sub(r"[^a-z0-9]+", "-", question.id.lower()).strip("-")[:60] or "question"
    return f"{index:03d}-{slug}.jsonl"


@dataclass
class EvalRun:
    """Runs questions with agents from `make_agent` (one agent per question).

    Args:
        make_agent: builds a fresh agent; called once per question, from worker threads.
        corpus: the docs the citations are checked against.
        trace_dir: where each question's trace is written.
        concurrency: how many questions run at once (threads).
    """

    make_agent: Callable[[], Agent]
    corpus: Corpus
    trace_dir: Path
    concurrency: int = 1
    _running: set[Session] = field(default_factory=set, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def run_one(
        self, index: int, question: Question, *, cancel: threading.Event | None = None
    ) -> QuestionResult:
        """Ask one question and score its run; the run's own failures are part of the result."""
        session = Session(
            self.make_agent(),
            trace_dir=self.trace_dir,
            trace_path=self.trace_dir / trace_name(index, question),
        )
        events: list[Event] = []
        with self._lock:
            self._running.add(session)
        try:
            for event in session.ask(question.question, cancel=cancel):
                events.append(event)  # kept for the citation check: what the run read
        except AgentError:
            pass  # the run's final event carries the error
        finally:
            with self._lock:
                self._running.discard(session)
        finished = session.ending()
        citations = find_citations(finished.answer or "", self.corpus, events)
        return score(question, finished, citations, trace=session.last_trace)

    def results(self, questions: Sequence[Question]) -> Generator[QuestionResult, None, None]:
        """Each question's result as soon as it is ready (not in question order).

        Closing the iterator early (Ctrl+C in the consumer) cancels the runs still going.
        """
        cancel = threading.Event()
        workers = max(1, self.concurrency)
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="docsagent-eval")
        try:
            futures: list[Future[QuestionResult]] = [
                pool.submit(self.run_one, n, q, cancel=cancel)
                for n, q in enumerate(questions, start=1)
            ]
            for future in as_completed(futures):
                yield future.result()
        finally:
            cancel.set()  # a question that has not started yet ends at its first step
            self._cancel_running()
            pool.shutdown(wait=True, cancel_futures=True)

    def _cancel_running(self) -> None:
        """End the questions under way at once, as `ask` does on Ctrl+C.

        The shared `cancel` alone is seen only between steps: a run waiting on a server
        that never answers would hold its worker (and eval's exit) until the timeout.
        """
        with self._lock:
            running = list(self._running)
        for session in running:
            session.cancel()

    def close_running(self) -> None:
        """End the questions under way and their traces now, from any thread (quitting)."""
        with self._lock:
            running = list(self._running)
        for session in running:
            session.close(wait_s=0)


def run_questions(
    questions: Sequence[Question],
    run: EvalRun,
    *,
    on_result: Callable[[QuestionResult], None] | None = None,
) -> list[QuestionResult]:
    """Every question's result, in question order; `on_result` sees each as it finishes."""
    by_id: dict[str, QuestionResult] = {}
    with closing(run.results(questions)) as results:
        for result in results:
            by_id[result.question.id] = result
            if on_result is not None:
                on_result(result)
    return [by_id[q.id] for q in questions]
