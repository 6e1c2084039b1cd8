"""The embedded offline model: answers from the docs' search index, through visible tools.

It plays the agent the way a real model would, so its trace reads like one:

1. `search_docs` with the question's search terms;
2. `read_doc` of the best sections, the lines it will quote and cite;
3. an answer quoting the best section and citing up to three ranges it read, or a
   decline that cites nothing when the docs do not cover the question.

It decides from the index's typed results (`DocsIndex.search`, `term_counts`) and the
docs' lines, never by reading back the text a tool printed; `agent.models.weighing` holds
how it weighs, `agent.models.policy` how it judges and quotes. It is stateless: each call
looks at the conversation since the last question and at the tool calls it made there, so
it can pick up any run.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from agent.messages import Message, ToolCall
from agent.models.base import Chunk, Delta, Reply, ToolSchema, estimate_usage
from agent.models.policy import (
    SEARCH_LIMIT,
    Verdict,
    by_paragraphs,
    intro_last,
    judge,
    together,
    with_opening,
)
from agent.models.quoting import cut_short, quote_range
from agent.models.weighing import Term, weigh
from agent.search import Hit
from agent.search.query import acronyms
from agent.tools.docs import DocsContext, Shown, read_range
from agent.tools.registry import ToolError

NEEDED = ("search_docs", "read_doc")

Call = tuple[str, dict[str, Any]]


class OfflineModel:
    """The embedded deterministic model over the docs (and index) of `docs`."""

    name = "offline"

    def __init__(self, docs: DocsContext) -> None:
        self.docs = docs
        self._stop = threading.Event()  # the query in flight's: `cancel` sets it

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        """Yield the next step: tool calls, or the answer streamed a paragraph at a time."""
        stop = self._stop = threading.Event()

        def stopped() -> bool:
            return stop.is_set() or (cancel is not None and cancel.is_set())

        asked, made = _since_question(messages)
        offered = {t.get("function", {}).get("name", "") for t in tools}
        step = self._step(asked, made, offered)
        if isinstance(step, str):
            pieces = step.split("\n\n")
            for i, piece in enumerate(pieces):
                if stopped():
                    return
                yield Delta(piece + ("\n\n" if i < len(pieces) - 1 else ""))
            reply = Message(role="assistant", content=step)
            finish = "stop"
        else:
            turn = sum(1 for m in messages if m.role == "user")
            calls = tuple(
                ToolCall(f"call_{turn}_{len(made) + i}", name, json.dumps(args))
                for i, (name, args) in enumerate(step, start=1)
            )
            reply = Message(role="assistant", tool_calls=calls)
            finish = "tool_calls"
        if not stopped():
            yield Reply(reply, estimate_usage(messages, tools, reply), finish)

    def cancel(self) -> None:
        """Stop the query in flight before its reply (the search itself takes milliseconds)."""
        self._stop.set()

    def _step(self, question: str, made: list[Call], offered: set[str]) -> str | list[Call]:
        """The answer text, or the tool calls to make next."""
        index = self.docs.search_index()
        terms = weigh(question, index)
        if not terms:
            return "Please ask a question about the docs: I found no words to search for in that."
        missing = [name for name in NEEDED if name not in offered]
        if missing:
            return f"I can't answer from the docs here: I need the {' and '.join(missing)} tools."
        capitals = acronyms(question)  # kept as written: the search matches them so
        texts = [t.text.upper() if t.text in capitals else t.text for t in terms]
        query = " ".join(f'"{text}"' if " " in text else text for text in texts)
        if any(t.focus < 1 for t in terms):  # context around a question of its own
            query = " ".join(question.split())
        if not any(name == "search_docs" for name, _ in made):
            return [("search_docs", {"query": query})]
        found = index.search(query, limit=SEARCH_LIMIT)
        found = by_paragraphs(found, index.bodies(found), terms)
        verdict = judge(terms, found)
        if not verdict.hits:  # where every word it asks about meets, the docs answer
            verdict = Verdict(hits=together(terms, index), reason=verdict.reason)
        if not verdict.hits:
            return _decline(question, query, verdict)
        rare = verdict.rare
        sections = index.sections(verdict.hits[0].path)
        hits = intro_last(verdict.hits, found, sections, terms=terms, rare=rare)
        hits = with_opening(hits, sections, rare=rare)  # the first is of the same page
        try:
            shown = [self._shown(hit) for hit in hits]
        except ToolError as exc:  # the doc went away since it was indexed
            return f"I can't answer from the docs: {exc}."
        reads = [("read_doc", {"path": s.path, "start": s.start, "end": s.end}) for s in shown]
        unread = [call for call in reads if call not in made]
        if unread:
            return unread
        return self._answer(hits, shown, terms)

    def _shown(self, hit: Hit) -> Shown:
        """The lines of a section that one read_doc call shows."""
        return read_range(self.docs.corpus, hit.path, hit.start, hit.end)

    def _answer(self, hits: Sequence[Hit], shown: Sequence[Shown], terms: Sequence[Term]) -> str:
        """The best section quoted, its read lines cited, and the other sections cited."""
        best, read = hits[0], shown[0]
        lines = [read.lines[n] for n in range(read.start, read.end + 1)]
        first, last = quote_range(lines, read.start, terms)
        quoted = _without_heading(lines[first - read.start : last - read.start + 1])
        if cut_short(lines, last - read.start):
            quoted = [*quoted, "…"]
        trail = " > ".join(best.headings)
        where = f"`{read.path}`" + (f" ({trail})" if trail else "")
        parts = [
            f"According to {where}:",
            "\n".join(f"> {line.rstrip()}" if line.strip() else ">" for line in quoted),
            f"Source: {read.path}:{read.start}-{read.end}",
        ]
        others = [
            f"{s.path}:{s.start}-{s.end}" + (f" ({' > '.join(h.headings)})" if h.headings else "")
            for h, s in zip(hits[1:], shown[1:], strict=True)
        ]
        if others:
            parts.append("See also: " + "; ".join(others) + ".")
        absent = [
            t.text
            for t in terms
            if t.absent and t.weight and not t.everyday and not t.text.isdigit()
        ]
        if absent:  # what the question asks that the docs lack, never its situation's words
            parts.append("The docs never mention " + ", ".join(absent) + ".")
        return "\n\n".join(parts)


def _decline(question: str, query: str, verdict: Verdict) -> str:
    """Why the docs do not answer, citing nothing."""
    asked = " ".join(question.split())
    return (
        f'The docs don\'t seem to cover this: I searched them for "{query}" and found no '
        f'section that answers "{asked}" ({verdict.reason}).'
    )


def _since_question(messages: Sequence[Message]) -> tuple[str, list[Call]]:
    """The last question asked, and the tool calls this model made since (name, arguments)."""
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    question = (messages[last].content or "") if last >= 0 else ""
    made: list[Call] = []
    for message in messages[last + 1 :]:
        for call in message.tool_calls:
            try:
                arguments = json.loads(call.arguments or "{}")
            except ValueError:
                arguments = {}
            made.append((call.name, arguments if isinstance(arguments, dict) else {}))
    return question, made


def _without_heading(lines: list[str]) -> list[str]:
    """The quote without its leading heading lines: the answer names the heading already."""
    body = list(lines)
    while body and (not body[0].strip() or body[0].lstrip().startswith("#")):
        body.pop(0)
    return body or lines
