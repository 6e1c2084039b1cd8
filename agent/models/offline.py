"""The embedded offline model: a deterministic retrieval policy that plays the agent.

It is stateless: each call reads the conversation after the last user message and
decides the next step from the tool observations there.

1. search: `list_docs` and one `grep_docs` per key term of the question;
2. read: weigh terms by rarity, rank files and hit windows, `read_doc` the best;
3. maybe read on once, if the best passage runs off the edge of what was read;
4. answer: quote the best passage and cite it as `path:start-end`, or say plainly
   that the docs do not seem to cover the question.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.messages import Message, ToolCall
from agent.models.base import Chunk, Delta, Reply, ToolSchema, estimate_usage
from agent.passages import Passage, best_passage, lead_sentence
from agent.retrieval import (
    DocInfo,
    GrepResult,
    parse_grep,
    parse_listing,
    parse_page,
    plan_reads,
    rank_files,
    term_weights,
)
from agent.textutil import Query, parse_query

MIN_COVERAGE = 0.45
"""The share of the question's term weight a passage must contain to be an answer."""


@dataclass
class _State:
    """What the conversation since the last user message tells the model."""

    question: str = ""
    turn: int = 1
    read_rounds: int = 0
    docs: list[DocInfo] = field(default_factory=list)
    greps: dict[str, GrepResult] = field(default_factory=dict)
    pages: dict[str, dict[int, str]] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    reads: list[str] = field(default_factory=list)


def _arguments(call: ToolCall) -> dict[str, Any]:
    try:
        data = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _state(messages: Sequence[Message]) -> _State:
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    state = _State(question=messages[last_user].content or "" if last_user >= 0 else "")
    calls: dict[str, ToolCall] = {}
    for message in messages[last_user + 1 :]:
        if message.role == "assistant":
            state.turn += 1
            calls.update((c.id, c) for c in message.tool_calls)
            state.read_rounds += any(c.name == "read_doc" for c in message.tool_calls)
        elif message.role == "tool" and message.tool_call_id in calls:
            call, text = calls[message.tool_call_id], message.content or ""
            args = _arguments(call)
            if call.name == "list_docs":
                state.docs = parse_listing(text)
            elif call.name == "grep_docs" and "keyword" in args:
                state.greps[str(args["keyword"])] = parse_grep(str(args["keyword"]), text)
            elif call.name == "read_doc" and (page := parse_page(text)) is not None:
                state.pages.setdefault(page.path, {}).update(page.lines)
                state.sizes[page.path] = page.total or 0
                first, last = min(page.lines, default=0), max(page.lines, default=0)
                state.reads.append(f"{page.path}:{first}-{last}")
    return state


def _n_docs(state: _State) -> int:
    if state.docs:
        return len(state.docs)
    counted = [g.n_docs for g in state.greps.values() if g.n_docs]
    seen = {hit.path for g in state.greps.values() for hit in g.hits}
    return max(counted, default=max(10, 2 * len(seen)))


def _runs(lines: Mapping[int, str]) -> list[tuple[int, int]]:
    """The contiguous ranges of line numbers read."""
    runs: list[tuple[int, int]] = []
    for n in sorted(lines):
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def _read_on(passage: Passage, state: _State) -> list[tuple[str, int, int]]:
    """Reads that complete a passage cut off at the edge of what was read."""
    run = next(r for r in _runs(state.pages[passage.path]) if r[0] <= passage.start <= r[1])
    reads = []
    if passage.start == run[0] > 1 and passage.blocks[0].kind in ("item", "code"):
        reads.append((passage.path, max(1, run[0] - 15), run[0] - 1))
    size = state.sizes.get(passage.path, 0)
    if passage.end == run[1] and run[1] < size:
        reads.append((passage.path, run[1] + 1, min(size, run[1] + 25)))
    return reads


def _quote(passage: Passage, lines: Mapping[int, str]) -> str:
    """The passage as a Markdown quote, leaving out HTML markup (images, captions)."""
    markup = {n for b in passage.blocks if b.kind == "html" for n in range(b.start, b.end + 2)}
    quoted = [lines[n].rstrip() for n in range(passage.start, passage.end + 1) if n not in markup]
    return "\n".join(f"> {text}" if text else ">" for text in quoted)


def _answer(
    passage: Passage,
    others: list[Passage],
    state: _State,
    query: Query,
    weights: Mapping[str, float],
) -> str:
    """The lead, the quoted passage, its citation and any other files that also answer."""
    where = f"`{passage.path}`" + (f' ("{passage.heading}")' if passage.heading else "")
    lead = lead_sentence(passage, query, weights)
    head = f"According to {where}: {lead}" if lead else f"The docs answer this in {where}:"
    source = f"Source: {passage.path}:{passage.start}-{passage.end}"
    related = [f"`{o.path}`" for o in others if o.score >= 0.5 * passage.score]
    if related:
        source += "\n\nSee also: " + ", ".join(related) + "."
    return f"{head}\n\n{_quote(passage, state.pages[passage.path])}\n\n{source}"


def _not_found(state: _State, query: Query) -> str:
    searched = ", ".join(
        f"`{k}` ({g.total} matches)" if g.total else f"`{k}` (no matches)"
        for k, g in state.greps.items()
    )
    read = f", and read {', '.join(state.reads)}" if state.reads else ""
    return (
        f'The docs don\'t seem to cover this: nothing in them answers "{query.text.strip()}". '
        f"I searched for {searched or 'nothing'}{read}, but found no passage on it."
    )


class OfflineModel:
    """The embedded deterministic model: searches, reads and quotes the docs through tools."""

    name = "offline"

    def __init__(self, *, max_searches: int = 5, max_reads: int = 4) -> None:
        self.max_searches = max_searches
        self.max_reads = max_reads

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        """Yield the next step: tool calls, or the answer streamed in a few pieces."""
        state = _state(messages)
        step = self._step(state, {t.get("function", {}).get("name", "") for t in tools})
        if isinstance(step, str):
            pieces = step.split("\n\n")
            for i, piece in enumerate(pieces):
                if cancel is not None and cancel.is_set():
                    return
                yield Delta(piece + ("\n\n" if i < len(pieces) - 1 else ""))
            reply = Message(role="assistant", content=step)
            finish = "stop"
        else:
            calls = tuple(
                ToolCall(f"call_{state.turn}_{i}", name, json.dumps(args))
                for i, (name, args) in enumerate(step, start=1)
            )
            reply = Message(role="assistant", tool_calls=calls)
            finish = "tool_calls"
        if cancel is None or not cancel.is_set():
            yield Reply(reply, estimate_usage(messages, tools, reply), finish)

    def _step(self, state: _State, offered: set[str]) -> str | list[tuple[str, dict[str, Any]]]:
        """The answer text, or the tool calls to make next."""
        query = parse_query(state.question)
        if not query.terms and not query.phrases:
            return "Please ask a question about the docs: I found no search terms in that."
        if not {"grep_docs", "read_doc"} <= offered:
            return "I can't answer from the docs here: I need the grep_docs and read_doc tools."
        keywords = query.keywords[: self.max_searches]
        if not state.greps:
            listing: list[tuple[str, dict[str, Any]]] = []
            if "list_docs" in offered:
                listing.append(("list_docs", {}))
            return listing + [("grep_docs", {"keyword": k}) for k in keywords]
        weights = term_weights(keywords, state.greps, _n_docs(state))
        if not state.pages:
            plan = [] if state.read_rounds else plan_reads(weights, state.greps, state.docs)
            if not plan:
                return _not_found(state, query)
            plan = plan[: self.max_reads]
            return [("read_doc", {"path": p, "start": a, "end": b}) for p, a, b in plan]
        ranked = rank_files(weights, state.greps, state.docs)
        top = ranked[0][0] if ranked else 1.0
        priors = {path: score / top for score, path in ranked}
        found = [
            best_passage({path: lines}, query, weights, priors=priors, sizes=state.sizes)
            for path, lines in sorted(state.pages.items())
        ]
        passages = [p for p in found if p is not None and p.coverage >= MIN_COVERAGE]
        passages.sort(key=lambda p: -p.score)
        if not passages:
            return _not_found(state, query)
        more = _read_on(passages[0], state) if state.read_rounds < 2 else []
        if more:
            return [("read_doc", {"path": p, "start": a, "end": b}) for p, a, b in more]
        return _answer(passages[0], passages[1:], state, query, weights)
