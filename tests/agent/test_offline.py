"""The offline model playing the agent through the real docs tools, on docs the tests write."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from agent.config import Config, build_agent
from agent.events import RunFinished, ToolCallStarted
from agent.messages import Message, assistant, tool_result, user
from agent.models.base import Delta, Reply
from agent.models.offline import OfflineModel
from agent.observation import truncate
from agent.outcome import is_decline
from agent.session import Session
from agent.tools.citations import find_citations
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry

RETRIES = """\
# Retries

Gizmo retries failed requests by default.

## Configuring retries

You can set the number of retries on the client:

```python
client = gizmo.Client(retries=3)
```

## Retry strategies

There are three different retry strategies. These are **fixed**, **linear**
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
    """A small docs folder: Markdown with a list, an install page, an FAQ and an rST page."""
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "guide" / "retries.md").write_text(RETRIES)
    (docs / "install.md").write_text(INSTALL)
    (docs / "faq.md").write_text(FAQ)
    (docs / "logging.rst").write_text(LOGGING)
    return docs


def converse(
    docs: Path, question: str, *, history: list[Message] | None = None, limit: int = 3000
) -> tuple[str, list[Message]]:
    """Drive the model turn by turn through the real tools; the answer and all messages."""
    context = DocsContext(Corpus.open(docs))
    model, registry = OfflineModel(context), docs_registry()
    messages = [*(history or []), user(question)]
    for _ in range(6):
        chunks = list(model.query(messages, registry.schemas()))
        assert [type(c) for c in chunks].count(Reply) == 1 and isinstance(chunks[-1], Reply)
        reply = chunks[-1].message
        messages.append(reply)
        if not reply.tool_calls:
            assert "".join(c.text for c in chunks if isinstance(c, Delta)) == reply.content
            return reply.content or "", messages
        for call in reply.tool_calls:
            outcome = registry.call(call.name, call.arguments, [context])
            messages.append(tool_result(call, truncate(outcome.output, limit)))
    raise AssertionError("no answer within 6 turns")


def calls_of(messages: list[Message]) -> list[list[tuple[str, dict[str, object]]]]:
    """The tool calls of each assistant turn, as (name, arguments)."""
    return [
        [(c.name, json.loads(c.arguments)) for c in m.tool_calls]
        for m in messages
        if m.role == "assistant" and m.tool_calls
    ]


def test_searches_reads_then_quotes_the_whole_list_and_cites_what_it_read(gizmo: Path) -> None:
    answer, messages = converse(gizmo, "What kinds of retry strategies does gizmo have?")
    assert calls_of(messages) == [
        [("search_docs", {"query": "kinds retry strategies gizmo"})],
        [
            ("read_doc", {"path": "guide/retries.md", "start": 13, "end": 22}),
        ],
    ]
    assert answer == (
        "According to `guide/retries.md` (Retries > Retry strategies):\n\n"
        "> There are three different retry strategies. These are **fixed**, **linear**\n"
        "> and **exponential** backoff.\n>\n"
        "> * The **fixed** strategy waits the same time between attempts.\n"
        "> * The **linear** strategy waits a little longer each time.\n"
        "> * The **exponential** strategy doubles the wait after every attempt.\n>\n"
        "> Pick the exponential strategy for flaky networks.\n\n"
        "Source: guide/retries.md:13-22"
    )  # "kinds" is plain English, how the question is put: never named as what the docs lack


def test_quotes_a_how_to_example_and_reads_rst(gizmo: Path) -> None:
    answer, _ = converse(gizmo, "How do I install gizmo with pip?")
    assert "> pip install gizmo" in answer and "Source: install.md:1-9" in answer
    answer, _ = converse(gizmo, "How do I turn on debug logging?")
    assert "> Turn on debug logging to see every request and response." in answer
    assert "Source: logging.rst:1-5" in answer


def test_a_long_section_is_quoted_around_the_paragraph_that_answers(tmp_path: Path) -> None:
    filler = "".join(f"Paragraph {n} talks about nothing much at all.\n\n" for n in range(30))
    text = f"# Widgets\n\n{filler}The **sprocket** setting takes these values:\n\n"
    text += "* small\n* medium\n* large\n\nThat is all.\n"
    (tmp_path / "widgets.md").write_text(text)
    (tmp_path / "other.md").write_text("# Other\n\nNothing about widgets here.\n")
    answer, _ = converse(tmp_path, "Which values does the sprocket setting take?")
    assert "> The **sprocket** setting takes these values:\n>\n> * small\n> * medium\n" in answer
    assert "> * large\n>\n> That is all." in answer
    assert "Paragraph 0 " not in answer and "Source: widgets.md:" in answer


def test_a_section_cut_in_two_is_read_from_its_opening_too(tmp_path: Path) -> None:
    filler = "".join(f"Paragraph {n} is about ranges of lines.\n\n" for n in range(35))
    text = "# Substitution\n\nThe :substitute command changes text: `:%s/old/new/g`.\n\n"
    text += filler + "To search and replace in one step, add the c flag to confirm each one.\n"
    (tmp_path / "edit.md").write_text(text)
    (tmp_path / "other.md").write_text("# Other\n\nNothing about editing here.\n")
    answer, messages = converse(tmp_path, "search and replace")
    reads = [args for name, args in calls_of(messages)[1] if name == "read_doc"]
    assert [r["path"] for r in reads] == ["edit.md", "edit.md"]  # the part, then the opening
    assert reads[1]["start"] == 1 and reads[0]["start"] > reads[1]["end"]  # type: ignore[operator]
    assert f"See also: edit.md:1-{reads[1]['end']} (Substitution)." in answer


def test_a_page_introduction_is_quoted_after_the_part_that_says_how(tmp_path: Path) -> None:
    text = "# Proxies\n\nGizmo can send requests through a proxy server.\n\n## Setting one\n\n"
    text += "".join(f"Line {n} of the setup.\n" for n in range(12))
    text += "Pass `proxy=URL` to the client to send every request through a proxy.\n"
    (tmp_path / "proxies.md").write_text(text)
    (tmp_path / "other.md").write_text("# Other\n\nNothing about routing here.\n")
    answer, messages = converse(tmp_path, "proxy server")
    reads = [(args["path"], args["start"]) for name, args in calls_of(messages)[1]]
    assert reads == [("proxies.md", 5), ("proxies.md", 1)]
    assert answer.startswith("According to `proxies.md` (Proxies > Setting one):")
    assert "Pass `proxy=URL`" in answer and "See also: proxies.md:1-3 (Proxies)." in answer


def test_a_part_quoted_before_its_introduction_keeps_the_rare_word_cited(tmp_path: Path) -> None:
    text = "# Proxy server\n\nGizmo can send requests through a proxy server.\n\n"
    text += "## Setting the proxy\n\nPass `proxy=URL` to the client, for every request.\n"
    text += "".join(f"Line {n} of how the client settings are given.\n" for n in range(5))
    (tmp_path / "proxies.md").write_text(text)
    pools = "# Pools\n\nEach proxy server connection is pooled, and requests reuse it.\n"
    (tmp_path / "pools.md").write_text(pools)
    mounting = "# Mounting\n\nMount the flange on a proxy server rack when requests peak and the "
    (tmp_path / "mounting.md").write_text(mounting + "load goes up.\n")
    for n in range(1, 5):  # "flange" is in five sections: the question's rarest word
        text = f"# Flange part {n}\n\nThe flange part {n} fits the frame, with bolts and washers "
        (tmp_path / f"part{n}.md").write_text(text + "and nuts and more words to pad it.\n")
    for n, extra in enumerate(["requests and ", "", ""], start=1):
        text = f"# Note {n}\n\nA proxy or a server may be involved in note {n}, with {extra}"
        (tmp_path / f"note{n}.md").write_text(text + "more filler words to pad it out.\n")
    for n in range(1, 31):
        subject = "requests" if n == 1 else "subject"
        text = f"# Topic {n}\n\nUnrelated text about {subject} number {n} and nothing else.\n"
        (tmp_path / f"topic{n}.md").write_text(text)
    answer, messages = converse(tmp_path, "proxy server requests flange")
    reads = [args["path"] for name, args in calls_of(messages)[1]]
    # The introduction is best, then pools.md and mounting.md; only mounting.md says "flange".
    assert reads == ["proxies.md", "proxies.md", "mounting.md"]
    assert answer.startswith("According to `proxies.md` (Proxy server > Setting the proxy):")


def test_declines_when_the_docs_never_mention_what_is_asked(gizmo: Path) -> None:
    answer, messages = converse(gizmo, "How do I bake sourdough bread?")
    assert answer.startswith("The docs don't seem to cover this")
    assert '"bake", "sourdough" or "bread"' in answer
    assert calls_of(messages) == [[("search_docs", {"query": "bake sourdough bread"})]]
    assert find_citations(answer, Corpus.open(gizmo)) == []


def test_a_word_the_docs_never_use_weighs_toward_declining_name_or_not(gizmo: Path) -> None:
    for question in ("How does gizmo set retries on Kubernetes?", "gizmo retries kubernetes"):
        answer, _ = converse(gizmo, question)
        assert answer.startswith("The docs don't seem to cover this")
        assert '(the docs never mention "kubernetes")' in answer
    answer, _ = converse(gizmo, "What kinds of retry strategies does gizmo have?")
    assert answer.startswith("According to")  # "kinds" is how it is asked, not what


def test_an_acronym_is_matched_as_written_not_as_the_stemmers_plural(tmp_path: Path) -> None:
    (tmp_path / "endings.md").write_text(
        "# Line endings\n\nStore text files with LF endings; binary files are left alone.\n"
    )
    (tmp_path / "large.md").write_text("# Large files\n\nLarge binary files slow clones.\n")
    answer, messages = converse(tmp_path, "How do I store large binary files with LFS?")
    assert answer.startswith("The docs don't seem to cover this")  # "LFS" is not "LF"s
    assert calls_of(messages)[0] == [("search_docs", {"query": "store large binary files LFS"})]
    (tmp_path / "lfs.md").write_text("# Storage\n\nLFS stores large binary files outside.\n")
    answer, _ = converse(tmp_path, "How do I store large binary files with LFS?")
    assert "Source: lfs.md:1-3" in answer


def test_declines_when_no_section_holds_enough_of_the_question(tmp_path: Path) -> None:
    for word in ["alpha", "bravo", "charlie", "delta", "echo"]:
        (tmp_path / f"{word}.md").write_text(f"# {word.title()}\n\nAll about {word}.\n")
    answer, _ = converse(tmp_path, "alpha bravo charlie delta echo")
    assert answer.startswith("The docs don't seem to cover this")
    assert "the best match shares only" in answer


def test_a_question_without_search_terms_asks_for_one(gizmo: Path) -> None:
    answer, messages = converse(gizmo, "What is it?")
    assert answer.startswith("Please ask a question about the docs")
    assert calls_of(messages) == []


def test_needs_the_search_and_read_tools(gizmo: Path) -> None:
    model = OfflineModel(DocsContext(Corpus.open(gizmo)))
    chunks = list(model.query([user("How do I install gizmo?")], []))
    assert isinstance(chunks[-1], Reply)
    assert chunks[-1].message.content == (
        "I can't answer from the docs here: I need the search_docs and read_doc tools."
    )
    assert chunks[-1].usage.estimated and chunks[-1].finish_reason == "stop"


def test_decides_from_the_index_not_from_the_printed_tool_text(gizmo: Path) -> None:
    question = "What retry strategies does gizmo have?"
    full, _ = converse(gizmo, question)
    clipped, _ = converse(gizmo, question, limit=20)
    assert clipped == full


def test_a_follow_up_question_starts_a_fresh_search(gizmo: Path) -> None:
    _, first = converse(gizmo, "How do I install gizmo with pip?")
    answer, messages = converse(gizmo, "What retry strategies are there?", history=first)
    assert "Source: guide/retries.md:13-22" in answer
    assert calls_of(messages[len(first) :])[0] == [("search_docs", {"query": "retry strategies"})]


def test_cancel_stops_before_the_reply(gizmo: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    model = OfflineModel(DocsContext(Corpus.open(gizmo)))
    assert list(model.query([user("hi there")], docs_registry().schemas(), cancel=cancel)) == []


def test_a_tool_call_turn_has_no_text_and_estimated_usage(gizmo: Path) -> None:
    model = OfflineModel(DocsContext(Corpus.open(gizmo)))
    messages = [user("Why?"), assistant("Because."), user("How do I install gizmo?")]
    chunks = list(model.query(messages, docs_registry().schemas()))
    assert len(chunks) == 1 and isinstance(chunks[0], Reply)
    reply = chunks[0]
    assert reply.message.content is None and reply.finish_reason == "tool_calls"
    assert reply.usage.estimated and reply.usage.prompt_tokens > 0
    assert [(c.id, c.name) for c in reply.message.tool_calls] == [("call_2_1", "search_docs")]


def test_end_to_end_its_citations_are_lines_it_read(gizmo: Path) -> None:
    events = list(build_agent(Config(docs=gizmo)).run("What retry strategies does gizmo have?"))
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.stop_reason == "answered"
    assert finished.stats.steps == 3 and finished.answer is not None
    citations = find_citations(finished.answer, Corpus.open(gizmo), events)
    assert [c.label for c in citations] == ["guide/retries.md:13-22"]
    assert all(c.valid and c.read for c in citations) and citations[0].quoted
    assert not is_decline(finished, citations)


def test_call_ids_do_not_repeat_across_questions(gizmo: Path, tmp_path: Path) -> None:
    session = Session(build_agent(Config(docs=gizmo)), trace_dir=tmp_path / "traces")
    ids = []
    for question in ["How do I install gizmo with pip?", "What retry strategies are there?"]:
        ids += [e.tool_call_id for e in session.ask(question) if isinstance(e, ToolCallStarted)]
    assert len(ids) >= 4 and len(set(ids)) == len(ids)
