from __future__ import annotations

from pathlib import Path

import pytest

from agent.search import DocsIndex
from agent.search.examples import as_question, example_questions
from agent.tools.corpus import Corpus


@pytest.mark.parametrize(
    ("heading", "question"),
    [
        ("Set the API key", "How do I set the API key?"),
        ("Escape: cancel a run", "How do I cancel a run?"),
        ("Ask your first question", "How do I ask my first question?"),
        ("Sending JSON Encoded Data", "How do I send JSON encoded data?"),
        ("Setting a default timeout on a client", "How do I set a default timeout on a client?"),
        ("Making Async requests", "How do I make async requests?"),
        ("Using the offline model", "How do I use the offline model?"),
        ("Which files count as docs", "Which files count as docs?"),
        ("Where are my traces?", "Where are my traces?"),
        ("How do I retry?", "How do I retry?"),
        ("Create A Path Variable", "How do I create a path variable?"),
        ("Write Vim script ~", "How do I write vim script?"),  # Vim help's heading mark
        ("CREATE TEXT SEARCH DICTIONARY", "How do I use CREATE TEXT SEARCH DICTIONARY?"),
        ("32.2. When to JIT?", "When to JIT?"),  # DocBook's numbered headings (PostgreSQL)
        ("12.1.1. What Is a Document?", "What Is a Document?"),
        ("1.2 How do I retry?", "How do I retry?"),  # reST section numbers
        ("Replay a trace", "How do I replay a trace?"),
    ],
)
def test_headings_that_read_as_questions(heading: str, question: str) -> None:
    assert as_question(heading) == question


@pytest.mark.parametrize(
    "heading",
    [
        "Timeouts",  # a topic, not a question
        "The agent loop",
        "How the agent works",  # a clause
        "What docsagent does",
        "Replay keys",  # "replay" is a noun here
        "Run it",  # says nothing without its context
        "Streaming and --no-stream",
        "Opening and closing clients",  # no plain form known for "closing"
        "`Client`",
        "Step limit (--max-steps)",
        "3 ways to retry?",  # a count, not a section's number
        "Install docsagent with pip from a checkout of the repository on a new machine",
    ],
)
def test_headings_that_do_not(heading: str) -> None:
    assert as_question(heading) is None


def test_one_question_per_doc_spread_over_the_folder_and_no_project_files() -> None:
    headings = [
        ("CODE_OF_CONDUCT.md", "Report a problem"),
        ("a.md", "Timeouts"),
        ("a.md", "Set a timeout"),
        ("a.md", "Set a pool limit"),  # a second from the same doc: passed over
        ("b.md", "Use a proxy"),
        ("c.md", "Use a proxy"),  # the same question again: passed over
        ("d.md", "Send a form"),
        ("e.md", "Write a test"),
        ("f.md", "Open a stream"),
        ("license.md", "Use the code"),
    ]
    assert example_questions(headings, 3) == [
        "How do I set a timeout?",
        "How do I send a form?",
        "How do I open a stream?",
    ]
    assert example_questions(headings, 10) == [
        "How do I set a timeout?",
        "How do I use a proxy?",
        "How do I send a form?",
        "How do I write a test?",
        "How do I open a stream?",
    ]
    assert example_questions([("a.md", "Timeouts")]) == []


def test_the_index_draws_examples_from_the_docs_headings(tmp_path: Path) -> None:
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "proxies.md").write_text("# Proxies\n\n## Use a proxy\n\nSet it.\n")
    (tmp_path / "timeouts.md").write_text("# Timeouts\n\nText.\n\n## Setting a timeout\n\nHow.\n")
    (tmp_path / "index.md").write_text("# Welcome\n\n```\n# Run the tests\n```\n")
    index = DocsIndex(Corpus.open(tmp_path))
    assert index.example_questions() == ["How do I use a proxy?", "How do I set a timeout?"]
