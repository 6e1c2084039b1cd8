"""The offline model says plainly when the docs hold no answer, and keeps its call ids unique."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import Config, build_agent
from agent.events import RunFinished, ToolCallStarted
from agent.session import Session

HTTPX = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "httpx-docs"
needs_httpx = pytest.mark.skipif(
    not HTTPX.is_dir(), reason=f"the httpx docs corpus is not at {HTTPX}"
)
NOT_COVERED = "The docs don't seem to cover this"

GUIDE = """\
# Guide

Header names are case-insensitive, so you can use any capitalization.

## Timeouts

Requests time out after five seconds by default. Set the timeout on the client:

```python
client = Client(timeout=10.0)
```

## Recording

Every run is recorded to a trace file, and traces can be replayed later.
"""


@pytest.fixture
def guide(tmp_path: Path) -> Path:
    """A one-doc folder whose words contain other words: capital in capitalization."""
    (tmp_path / "guide.md").write_text(GUIDE)
    return tmp_path


def answer(docs: Path, question: str) -> str:
    """The offline model's answer, through the agent loop and the real tools."""
    events = list(build_agent(Config(docs=docs)).run(question))
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.stop_reason == "answered"
    return finished.answer or ""


def test_a_term_inside_a_longer_word_is_no_match(guide: Path) -> None:
    reply = answer(guide, "What is the capital of Ruritania?")
    assert reply.startswith(NOT_COVERED)
    assert "`capital` (1 match, only inside other words)" in reply
    assert "`ruritania` (no matches)" in reply and "Source:" not in reply


def test_a_stem_still_matches_its_inflections(guide: Path) -> None:
    assert answer(guide, "Can traces be replayed?").endswith("Source: guide.md:15-15")
    assert "Client(timeout=10.0)" in answer(guide, "How do I set timeouts?")


def test_a_main_term_in_no_doc_means_no_answer(guide: Path) -> None:
    reply = answer(guide, "What is a Kubernetes timeout?")
    assert reply.startswith(NOT_COVERED) and "`kubernet` (no matches)" in reply
    assert "`timeout` (" in reply


@needs_httpx
@pytest.mark.parametrize(
    "question",
    [
        "What is the capital of France?",
        "Comment configurer un délai d'attente ?",
        "Wie konfiguriere ich eine Zeitüberschreitung?",
        "What is the meaning of life?",
        "How do I configure kubernetes ingress?",
        "What were the football scores last night?",
    ],
)
def test_httpx_docs_do_not_cover_off_topic_questions(question: str) -> None:
    reply = answer(HTTPX, question)
    assert reply.startswith(f'{NOT_COVERED}: nothing in them answers "{question}"')
    assert "I searched for `" in reply and "Source:" not in reply


def test_call_ids_do_not_repeat_across_questions(guide: Path, tmp_path: Path) -> None:
    session = Session(build_agent(Config(docs=guide)), trace_dir=tmp_path / "traces")
    started = [
        event.tool_call_id
        for question in ("How do I set timeouts?", "Can traces be replayed?")
        for event in session.ask(question)
        if isinstance(event, ToolCallStarted)
    ]
    assert started[:2] == ["call_1_1_1", "call_1_1_2"] and "call_2_1_1" in started
    assert len(started) == len(set(started))
    sent = [m.tool_call_id for m in session.history if m.role == "tool"]
    assert sorted(sent) == sorted(started)
