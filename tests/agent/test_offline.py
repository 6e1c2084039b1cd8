"""The offline model playing the agent through the real docs tools, turn by turn and end to end."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest

from agent.config import Config, build_agent
from agent.events import RunFinished
from agent.messages import Message, assistant, tool_result, user
from agent.models.base import Delta, Reply
from agent.models.offline import OfflineModel
from agent.observation import truncate
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry

HTTPX = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "httpx-docs"
needs_httpx = pytest.mark.skipif(
    not HTTPX.is_dir(), reason=f"the httpx docs corpus is not at {HTTPX}"
)
SOURCE = re.compile(r"Source: (?P<path>\S+):(?P<start>\d+)-(?P<end>\d+)")

RETRIES = """\
# Retries

Gizmo retries failed requests by default.

## Configuring retries

You can set the number of retries on the client:

```python
client = gizmo.Client(retries=3)
```

## Retry strategies

There are three different kinds of retry strategies. These are **fixed**, **linear**
and **exponential** backoff.

* The **fixed** strategy waits the same time between attempts.
* The **linear** strategy waits a little longer each time.
* The **exponential** strategy doubles the wait after every attempt.

Pick the exponential strategy for flaky networks.
"""
INSTALL = "# Installation\n\nInstall gizmo with pip:\n\n```shell\npip install gizmo\n```\n\n"
INSTALL += "Gizmo needs Python 3.10 or later.\n"
FAQ = "# FAQ\n\n## Is gizmo fast?\n\nYes. Gizmo keeps connections open and reuses them.\n"
LOGGING = "Logging\n=======\n\nGizmo writes its log records to the ``gizmo`` logger.\n"
LOGGING += "Turn on debug logging to see every request and response.\n"


@pytest.fixture
def gizmo(tmp_path: Path) -> Path:
    """A small synthetic docs folder."""
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "retries.md").write_text(RETRIES)
    (tmp_path / "install.md").write_text(INSTALL)
    (tmp_path / "faq.md").write_text(FAQ)
    (tmp_path / "logging.rst").write_text(LOGGING)
    return tmp_path


def converse(
    docs: Path, question: str, *, history: list[Message] | None = None, limit: int = 3000
) -> tuple[str, list[Message]]:
    """Drive the model turn by turn through the real tools; the answer and all messages."""
    model, registry = OfflineModel(), docs_registry()
    context = [DocsContext(Corpus.open(docs))]
    messages = [*(history or []), user(question)]
    for _ in range(8):
        chunks = list(model.query(messages, registry.schemas()))
        assert [type(c) for c in chunks].count(Reply) == 1 and isinstance(chunks[-1], Reply)
        reply = chunks[-1].message
        messages.append(reply)
        if not reply.tool_calls:
            assert "".join(c.text for c in chunks if isinstance(c, Delta)) == reply.content
            return reply.content or "", messages
        for call in reply.tool_calls:
            outcome = registry.call(call.name, call.arguments, context)
            messages.append(tool_result(call, truncate(outcome.output, limit)))
    raise AssertionError("no answer within 8 turns")


def calls_of(messages: list[Message]) -> list[list[tuple[str, dict[str, object]]]]:
    """The tool calls of each assistant turn, as (name, arguments)."""
    return [
        [(c.name, json.loads(c.arguments)) for c in m.tool_calls]
        for m in messages
        if m.role == "assistant" and m.tool_calls
    ]


def test_answers_a_list_question_with_the_list_and_its_citation(gizmo: Path) -> None:
    answer, messages = converse(gizmo, "What kinds of retry strategies does gizmo have?")
    assert answer == (
        'According to `guide/retries.md` ("Retry strategies"): There are three different '
        "kinds of retry strategies.\n\n"
        "> There are three different kinds of retry strategies. These are **fixed**, "
        "**linear**\n> and **exponential** backoff.\n>\n"
        "> * The **fixed** strategy waits the same time between attempts.\n"
        "> * The **linear** strategy waits a little longer each time.\n"
        "> * The **exponential** strategy doubles the wait after every attempt.\n\n"
        "Source: guide/retries.md:15-20"
    )
    search, read = calls_of(messages)
    assert search == [
        ("list_docs", {}),
        ("grep_docs", {"keyword": "retr"}),
        ("grep_docs", {"keyword": "strateg"}),
        ("grep_docs", {"keyword": "gizmo"}),
        ("grep_docs", {"keyword": "retry strateg"}),
    ]
    assert read == [("read_doc", {"path": "guide/retries.md", "start": 1, "end": 22})]
    ids = [c.id for m in messages if m.role == "assistant" for c in m.tool_calls]
    assert ids[:2] == ["call_1_1_1", "call_1_1_2"] and ids[-1] == "call_1_2_1"


def test_how_to_question_quotes_the_example(gizmo: Path) -> None:
    answer, _ = converse(gizmo, "How do I install gizmo?")
    assert "> pip install gizmo" in answer
    assert answer.endswith("Source: install.md:3-7")


def test_reads_rst_docs(gizmo: Path) -> None:
    answer, _ = converse(gizmo, "How do I turn on debug logging?")
    assert "Turn on debug logging to see every request and response." in answer
    assert answer.endswith("Source: logging.rst:4-5")


def test_says_plainly_when_the_docs_do_not_cover_it(gizmo: Path) -> None:
    answer, messages = converse(gizmo, "How do I bake sourdough bread?")
    assert answer.startswith("The docs don't seem to cover this")
    assert "`sourdough` (no matches)" in answer and "Source:" not in answer
    assert not any(name == "read_doc" for turn in calls_of(messages) for name, _ in turn)


def test_a_question_without_search_terms_asks_for_one(gizmo: Path) -> None:
    answer, messages = converse(gizmo, "What is it?")
    assert answer.startswith("Please ask a question about the docs")
    assert calls_of(messages) == []


def test_needs_the_docs_tools() -> None:
    chunks = list(OfflineModel().query([user("How do I install gizmo?")], []))
    assert len(chunks) >= 1 and isinstance(chunks[-1], Reply)
    assert chunks[-1].message.content == (
        "I can't answer from the docs here: I need the grep_docs and read_doc tools."
    )
    assert chunks[-1].usage.estimated and chunks[-1].finish_reason == "stop"


def test_follow_up_question_starts_a_fresh_search(gizmo: Path) -> None:
    _, first = converse(gizmo, "How do I install gizmo?")
    answer, messages = converse(gizmo, "What kinds of retry strategies are there?", history=first)
    assert answer.endswith("Source: guide/retries.md:15-20")
    later = calls_of(messages[len(first) :])
    assert ("grep_docs", {"keyword": "retr"}) in later[0]


def test_truncated_observations_are_read_up_to_the_marker(gizmo: Path) -> None:
    answer, _ = converse(gizmo, "What kinds of retry strategies does gizmo have?", limit=400)
    assert answer.startswith("According to `guide/retries.md`")
    cited = SOURCE.search(answer)
    assert cited is not None and (cited["start"], cited["end"]) == ("15", "20")


def test_cancel_stops_before_the_reply() -> None:
    cancel = threading.Event()
    cancel.set()
    tools = docs_registry().schemas()
    assert list(OfflineModel().query([user("hi there")], tools, cancel=cancel)) == []


def test_tool_call_turn_has_no_text_and_estimated_usage() -> None:
    messages = [user("Why?"), assistant("Because."), user("How do I install gizmo?")]
    chunks = list(OfflineModel().query(messages, docs_registry().schemas()))
    assert len(chunks) == 1 and isinstance(chunks[0], Reply)
    reply = chunks[0]
    assert reply.message.content is None and reply.finish_reason == "tool_calls"
    assert reply.usage.estimated and reply.usage.prompt_tokens > 0
    assert [c.name for c in reply.message.tool_calls] == ["list_docs"] + ["grep_docs"] * 3


def test_end_to_end_through_the_agent_loop(gizmo: Path) -> None:
    agent = build_agent(Config(docs=gizmo))
    finished = [e for e in agent.run("How do I install gizmo?") if isinstance(e, RunFinished)]
    assert finished[-1].stop_reason == "answered" and finished[-1].stats.steps == 3
    assert finished[-1].answer is not None
    assert finished[-1].answer.endswith("Source: install.md:3-7")


@needs_httpx
def test_httpx_kinds_of_timeouts() -> None:
    answer, _ = converse(HTTPX, "What kinds of timeouts does httpx have?")
    cited = SOURCE.search(answer)
    assert cited is not None and cited["path"] == "advanced/timeouts.md"
    assert 45 <= int(cited["start"]) <= int(cited["end"]) <= 61
    for kind in ("connect", "read", "write", "pool"):
        assert f"**{kind}** timeout" in answer


@needs_httpx
def test_httpx_does_not_cover_sourdough() -> None:
    answer, _ = converse(HTTPX, "How do I bake sourdough bread?")
    assert answer.startswith("The docs don't seem to cover this")


@needs_httpx
@pytest.mark.parametrize(
    ("question", "path", "quoted"),
    [
        ("How do I use a proxy with httpx?", "advanced/proxies.md", 'proxy="http://localhost'),
        ("How does authentication work?", "advanced/authentication.md", "`auth` argument"),
        ("How do I enable HTTP/2?", "http2.md", ": `client = httpx.AsyncClient(http2=True)`"),
        ("What are event hooks?", "advanced/event-hooks.md", "two event hooks"),
        ("How can I disable SSL verification?", "advanced/ssl.md", "verify=False"),
        ("How do I set a timeout on a client?", "advanced/timeouts.md", "Client(timeout=10.0)"),
        ("How do I send a JSON body?", "quickstart.md", '("Sending JSON Encoded Data")'),
        ("How do I stream a large response?", "quickstart.md", '("Streaming Responses")'),
    ],
)
def test_httpx_questions_cite_the_right_page(question: str, path: str, quoted: str) -> None:
    answer, _ = converse(HTTPX, question)
    cited = SOURCE.search(answer)
    assert cited is not None and cited["path"] == path
    assert quoted in answer


REFRESH = """
## Refreshing a token

A token expires after an hour. To refresh a token before it expires, call
`client.refresh()`:

```python
client.refresh(token)
```

Refresh tokens in a background task for long jobs; refresh again on error.
A refresh returns the new token; the old token stops working.
"""


@pytest.fixture
def crowded(tmp_path: Path) -> Path:
    """Docs where the right doc's hits hide behind 20 hits in earlier-sorting docs."""
    (tmp_path / "api").mkdir()
    for name in ("a1", "a2", "a3"):
        body = [f"The token field {n} of {name} holds a value." for n in range(1, 8)]
        body += [f"Step {n} of {name} may refresh the cache." for n in range(1, 8)]
        (tmp_path / "api" / f"{name}.md").write_text(f"# API {name}\n\n" + "\n".join(body))
    guide = ["# Tokens\n"] + [f"Rule {n}: a token lasts a session." for n in range(1, 11)]
    guide += [f"Filler line {n} about servers." for n in range(1, 50)] + [REFRESH]
    guide += [f"Closing line {n} about servers." for n in range(1, 40)]
    (tmp_path / "tokens.md").write_text("\n".join(guide) + "\n")
    (tmp_path / "faq.md").write_text(FAQ)
    return tmp_path


def test_searches_the_best_doc_again_when_the_cap_hid_its_hits(crowded: Path) -> None:
    answer, messages = converse(crowded, "How do I refresh a token?")
    search, again, read = calls_of(messages)
    assert [args for _, args in search[1:]] == [{"keyword": "refresh"}, {"keyword": "token"}]
    assert again == [
        ("grep_docs", {"keyword": "refresh", "path": "tokens.md"}),
        ("grep_docs", {"keyword": "token", "path": "tokens.md"}),
    ]
    assert ("tokens.md", 63) in [(args["path"], args["start"]) for _, args in read]
    assert answer.startswith('According to `tokens.md` ("Refreshing a token")')
    assert "> client.refresh(token)" in answer
    cited = SOURCE.search(answer)
    assert cited is not None and cited["path"] == "tokens.md" and int(cited["start"]) > 63


MANUAL = Path(__file__).resolve().parents[2] / "data" / "manual"


@pytest.mark.parametrize(
    ("question", "path", "quoted"),
    [
        ("how do I replay a trace?", "traces-and-replay.md", "> docsagent replay"),
        ("what keys does the TUI have?", "actions-and-keys.md", "Escape"),
        ("how do I cancel a run?", "actions-and-keys.md", "Escape"),
        ("how do I use Ollama?", "providers.md", "ollama"),
        ("where are traces saved?", "trace-files.md", "~/.local/state/docsagent/traces"),
        ("what does exit code 3 mean?", "asking.md", "exit code 3"),
        ("how do I set my API key?", "api-keys.md", "LLM_API_KEY"),
    ],
)
def test_manual_questions_cite_the_right_page(question: str, path: str, quoted: str) -> None:
    answer, _ = converse(MANUAL, question)
    cited = SOURCE.search(answer)
    assert cited is not None and cited["path"] == path
    assert quoted in answer
