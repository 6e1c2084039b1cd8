"""The embedded offline model: a deterministic retrieval policy that plays the agent.

It is stateless: each call reads the conversation after the last user message and
decides the next step from the tool observations there.

1. search: `list_docs` and one `grep_docs` per key term of the question;
2. maybe search again inside the best files, with `grep_docs(keyword, path=doc)`,
   when the per-doc counts say the cap on hits hid some of their matches;
3. read: weigh terms by rarity, rank files and hit windows, `read_doc` the best; a doc
   whose path or title names the question's terms ranks higher and is read from the top;
4. maybe read on once, if the best passage runs off the edge of what was read;
5. answer: quote the best passage and cite it as `path:start-end`, or say plainly
   that the docs do not seem to cover the question.

A search hit counts only where the term is a word or a form of one (`capital` is not in
"capitalization"). A term no doc holds weighs like the rarest term found; when such terms
leave less than `MIN_COVERAGE` of the question's weight, the docs do not cover it, and
neither do they when no passage read holds that much.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from agent.evidence import Findings, GrepResult, as_words, findings, merge_scoped
from agent.messages import Message, ToolCall
from agent.models.base import Chunk, Delta, Reply, ToolSchema, estimate_usage
from agent.passages import Block, Passage, best_passage
from agent.retrieval import (
    plan_reads,
    plan_searches,
    rank_files,
    read_on,
    term_weights,
    uncovered,
)
from agent.textutil import Query, parse_query, text_score, tokens

MIN_COVERAGE = 0.55
"""The share of the question's term weight a passage must contain to be an answer: most."""

_Weights = Mapping[str, float]
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*`\"(\[])")
_HEDGES = frozenset("possible possibly future might perhaps not never cannot".split())
_CONNECTIVE = re.compile(r"^(?:and then|and|or|then|so|also|but),?\s+", re.IGNORECASE)
_PROMPT = re.compile(r"^\s*(?:>>>|\$|\.\.\.)\s+")
_COMMENT = re.compile(r"\s+#\s.*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _n_docs(state: Findings) -> int:
    if state.docs:
        return len(state.docs)
    counted = [g.n_docs for g in state.greps.values() if g.n_docs]
    seen = {hit.path for g in state.greps.values() for hit in g.hits}
    return max(counted, default=max(10, 2 * len(seen)))


def _sentences(passage: Passage) -> list[tuple[int, str]]:
    """The prose sentences of a passage, with the index of the block each is in."""
    return [
        (k, " ".join(s.split()))
        for k, block in enumerate(passage.blocks)
        if block.kind == "para"
        for s in _SENTENCE.split(block.text)
    ]


def _example(passage: Passage, sentences: list[tuple[int, str]], i: int) -> Block | None:
    """The code block that sentence i introduces: it ends its paragraph, the code follows."""
    k = sentences[i][0]
    if (i + 1 < len(sentences) and sentences[i + 1][0] == k) or k + 1 >= len(passage.blocks):
        return None
    after = passage.blocks[k + 1]
    return after if after.kind == "code" and after.start - passage.blocks[k].end <= 2 else None


def _sentence_score(
    passage: Passage, sentences: list[tuple[int, str]], i: int, query: Query, w: _Weights
) -> float:
    """A sentence as a lead; for how-to questions, instructions beat hedges and remarks."""
    score = text_score(sentences[i][1], query, w)
    if query.wants_how:
        score *= 0.5 if _HEDGES & set(tokens(sentences[i][1])) else 1.0
        score *= 1.5 if _example(passage, sentences, i) is not None else 1.0
    return score


def _example_line(example: Block | None, query: Query, weights: _Weights) -> str:
    """The example's short line of code that best matches the question, if any."""
    text = example.text if example else ""
    lines = [_COMMENT.sub("", _PROMPT.sub("", line)).strip() for line in text.split("\n")]
    scored = [
        (text_score(line, query, weights), -n, line)
        for n, line in enumerate(lines)
        if line and len(line) <= 80 and not _FENCE.match(line) and not line.startswith("#")
    ]
    score, _, line = max(scored, default=(0.0, 0, ""))
    return line if score > 0 else ""


def lead_sentence(passage: Passage, query: Query, weights: _Weights) -> str:
    """The passage's best prose sentence for a one-line lead (empty if it has none).

    For a how-to question, a sentence that introduces an example gets the example's
    matching line of code appended.
    """
    sentences = _sentences(passage)
    scored = [_sentence_score(passage, sentences, i, query, weights) for i in range(len(sentences))]
    best = max(range(len(sentences)), key=lambda i: (scored[i], -i), default=None)
    if best is None or scored[best] <= 0:
        return ""
    lead = sentences[best][1]
    joined = best + 1 < len(sentences) and sentences[best + 1][0] == sentences[best][0]
    if joined and len(lead) < 80 and scored[best + 1] > 0:
        best += 1
        lead = f"{lead} {sentences[best][1]}"
    lead = _CONNECTIVE.sub("", lead)
    lead = lead[:1].upper() + lead[1:]
    example = _example(passage, sentences, best) if query.wants_how else None
    code = _example_line(example, query, weights)
    if not code:
        return lead
    if lead.endswith(("...", "…")):
        lead = lead.rstrip(".…") + ":"
    return f"{lead} `{code}`" if lead.endswith(":") else f"{lead} For example: `{code}`"


def _quote(passage: Passage, lines: Mapping[int, str]) -> str:
    """The passage as a Markdown quote, leaving out HTML markup (images, captions)."""
    markup = {n for b in passage.blocks if b.kind == "html" for n in range(b.start, b.end + 2)}
    quoted = [lines[n].rstrip() for n in range(passage.start, passage.end + 1) if n not in markup]
    return "\n".join(f"> {text}" if text else ">" for text in quoted)


def _answer(
    passage: Passage,
    others: list[Passage],
    state: Findings,
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


def _matches(raw: GrepResult, words: GrepResult) -> str:
    """What one search found, e.g. "3 matches" or "1 match, only inside other words"."""
    if not raw.total:
        return "no matches"
    n = words.total if words.hits else raw.total
    found = f"{n} match" + ("" if n == 1 else "es")
    if words.hits:
        return found
    return found + (", none shown as a word" if words.total else ", only inside other words")


def _not_found(state: Findings, query: Query) -> str:
    searched = ", ".join(f"`{k}` ({_matches(g, as_words(g))})" for k, g in state.greps.items())
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
        self._stop = threading.Event()  # the query in flight's: `cancel` sets it

    def query(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        """Yield the next step: tool calls, or the answer streamed in a few pieces."""
        stop = self._stop = threading.Event()

        def stopped() -> bool:
            return stop.is_set() or (cancel is not None and cancel.is_set())

        state = findings(messages)
        step = self._step(state, {t.get("function", {}).get("name", "") for t in tools})
        if isinstance(step, str):
            pieces = step.split("\n\n")
            for i, piece in enumerate(pieces):
                if stopped():
                    return
                yield Delta(piece + ("\n\n" if i < len(pieces) - 1 else ""))
            reply = Message(role="assistant", content=step)
            finish = "stop"
        else:
            calls = tuple(
                ToolCall(f"call_{state.asked}_{state.turn}_{i}", name, json.dumps(args))
                for i, (name, args) in enumerate(step, start=1)
            )
            reply = Message(role="assistant", tool_calls=calls)
            finish = "tool_calls"
        if not stopped():
            yield Reply(reply, estimate_usage(messages, tools, reply), finish)

    def cancel(self) -> None:
        """Stop the query in flight before its reply (the search itself takes milliseconds)."""
        self._stop.set()

    def _step(self, state: Findings, offered: set[str]) -> str | list[tuple[str, dict[str, Any]]]:
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
        words = {k: as_words(g) for k, g in state.greps.items()}
        weights = term_weights(keywords, words, _n_docs(state), bigrams=query.bigrams)
        greps = merge_scoped(words, [as_words(g) for g in state.scoped])
        if uncovered(query, weights, words) > 1 - MIN_COVERAGE:
            return _not_found(state, query)
        if not state.pages:
            if state.search_rounds < 2 and not state.read_rounds:
                again = plan_searches(weights, words, state.docs)
                if again:
                    return [("grep_docs", {"keyword": k, "path": p}) for k, p in again]
            plan = [] if state.read_rounds else plan_reads(weights, greps, state.docs)
            if not plan:
                return _not_found(state, query)
            plan = plan[: self.max_reads]
            return [("read_doc", {"path": p, "start": a, "end": b}) for p, a, b in plan]
        ranked = rank_files(weights, greps, state.docs)
        top = ranked[0][0] if ranked else 1.0
        priors = {path: score / top for score, path in ranked}
        titles = {doc.path: doc.title for doc in state.docs}
        found = [
            best_passage(
                {path: lines}, query, weights, priors=priors, sizes=state.sizes, titles=titles
            )
            for path, lines in sorted(state.pages.items())
        ]
        passages = [p for p in found if p is not None and p.coverage >= MIN_COVERAGE]
        passages.sort(key=lambda p: -p.score)
        if not passages:
            return _not_found(state, query)
        best = passages[0]
        pages, size = state.pages[best.path], state.sizes.get(best.path, 0)
        more = read_on(best, pages, size) if state.read_rounds < 2 else []
        if more:
            return [("read_doc", {"path": p, "start": a, "end": b}) for p, a, b in more]
        return _answer(best, passages[1:], state, query, weights)
