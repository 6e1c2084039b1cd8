"""A doc named after the question's topic is read and quoted, from its opening first."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent.config import Config, build_agent
from agent.events import RunFinished, ToolCallStarted
from agent.evidence import DocInfo, GrepResult, Hit
from agent.retrieval import plan_reads, rank_files
from agent.textutil import doc_name, name_share

HTTPX = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "httpx-docs"
needs_httpx = pytest.mark.skipif(
    not HTTPX.is_dir(), reason=f"the httpx docs corpus is not at {HTTPX}"
)
SOURCE = re.compile(r"Source: (?P<path>\S+):(?P<start>\d+)-(?P<end>\d+)")
NOT_COVERED = "The docs don't seem to cover this"

WIDGETS = """\
Gizmo can route everything through a widget with the `widget` argument of the client.

## Widgets

To send all requests through one widget, pass its address to the client:

```python
client = gizmo.Client(widget="http://localhost:8030")
```

For more advanced use cases, pass a mapping of widget addresses per scheme:

```python
client = gizmo.Client(widgets={"http://": "w1", "https://": "w2"})
```

## Widget internals

A widget forwards the request, or tunnels it. Widget tunnels need a widget that
speaks the tunnel protocol; most widgets do, and the widget tells the client so.
"""
TROUBLE = """\
# Troubleshooting

## Errors when using a widget

If a widget refuses the connection, check the widget address. A widget behind a
widget needs the outer widget's address:

```python
client = gizmo.Client(widget="http://outer-widget:8030")
```
"""
TRANSPORT = """\
# Transports

A transport sends requests. The widget transport sends them through a widget, the
mock transport answers them in memory. Each widget transport holds its own widget
pool; widget pools are shared between widget transports of one client.

```python
transport = gizmo.WidgetTransport(widget="http://localhost:8030")
```
"""


@pytest.fixture
def gizmo(tmp_path: Path) -> Path:
    """Docs where two other pages mention widgets more than the page named after them."""
    (tmp_path / "advanced").mkdir()
    (tmp_path / "advanced" / "widgets.md").write_text(WIDGETS)
    (tmp_path / "troubleshooting.md").write_text(TROUBLE)
    (tmp_path / "advanced" / "transports.md").write_text(TRANSPORT)
    (tmp_path / "install.md").write_text("# Install\n\nInstall gizmo with pip.\n")
    return tmp_path


def run(docs: Path, question: str) -> tuple[str, list[ToolCallStarted]]:
    """The offline model's answer through the agent loop, and the tool calls it made."""
    events = list(build_agent(Config(docs=docs)).run(question))
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.stop_reason == "answered"
    return finished.answer or "", [e for e in events if isinstance(e, ToolCallStarted)]


def test_a_doc_name_names_the_question_terms() -> None:
    name = doc_name("advanced/http-proxies.md", "HTTP Proxies")
    assert name == "advanced http proxies HTTP Proxies"
    assert name_share(name, {"prox": 0.6}) == 1.0
    assert name_share(name, {"prox": 0.6, "configur": 0.6}) == 0.5
    assert name_share("", {"prox": 0.6}) == 0.0


def test_a_named_doc_ranks_first_and_is_read_from_the_top() -> None:
    many = tuple(Hit("guide.md", n, "a widget") for n in range(100, 120))
    greps = {"widget": GrepResult("widget", (*many, Hit("widgets.md", 90, "widget")), 60)}
    docs = [DocInfo("guide.md", 300), DocInfo("widgets.md", 200, "Widgets")]
    weights = {"widget": 0.7}
    assert [path for _, path in rank_files(weights, greps, docs)] == ["widgets.md", "guide.md"]
    reads = plan_reads(weights, greps, docs)
    assert reads[0] == ("widgets.md", 1, 40) and ("widgets.md", 80, 119) in reads


def test_quotes_the_opening_of_the_doc_named_after_the_topic(gizmo: Path) -> None:
    answer, calls = run(gizmo, "How do I use a widget?")
    cited = SOURCE.search(answer)
    assert cited is not None and cited["path"] == "advanced/widgets.md"
    assert int(cited["start"]) == 1 and 'Client(widget="http://localhost:8030")' in answer
    reads = [json.loads(c.arguments)["path"] for c in calls if c.name == "read_doc"]
    assert reads[0] == "advanced/widgets.md"


def test_a_named_doc_does_not_answer_what_the_docs_do_not_cover(gizmo: Path) -> None:
    for question in ("How do I paint a widget?", "What is the capital of France?"):
        answer, _ = run(gizmo, question)
        assert answer.startswith(NOT_COVERED) and "Source:" not in answer


@needs_httpx
@pytest.mark.parametrize(
    "question",
    [
        "How do I use a proxy?",
        "How do I configure an HTTP proxy?",
        "What are HTTP proxies?",
    ],
)
def test_httpx_proxy_questions_quote_the_proxies_page_opening(question: str) -> None:
    answer, _ = run(HTTPX, question)
    cited = SOURCE.search(answer)
    assert cited is not None and cited["path"] == "advanced/proxies.md"
    assert int(cited["start"]) <= 10 and "proxy" in answer


@needs_httpx
@pytest.mark.parametrize(
    "question", ["How do I bake sourdough bread?", "What is the capital of France?"]
)
def test_httpx_still_refuses_off_topic_questions(question: str) -> None:
    answer, _ = run(HTTPX, question)
    assert answer.startswith(NOT_COVERED) and "Source:" not in answer
