"""Keeping the context small: old observations become one-line stubs that say what was read.

Once a conversation passes `after_tokens`, every tool result older than the last
`keep_steps` steps is replaced, before each model request, by a stub such as
``[read advanced/timeouts.md:41-71 at step 2 — shortened]``. Follow-up questions carry
earlier turns with every observation stubbed. The rule only looks at the messages, so the
same conversation is always shortened the same way; the trace keeps every result whole.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import Any

from agent.defaults import DEFAULT_COMPACT_AFTER, DEFAULT_COMPACT_KEEP_STEPS, DEFAULT_CONTEXT_SHARE
from agent.messages import Message, ToolCall
from agent.tools.arguments import parse_arguments
from agent.tools.schema import ArgumentError

SHORTENED = "shortened]"
CUT = "cut to fit the server's context]"


def estimate(message: Message) -> int:
    """A rough token count of one message as sent (about four characters a token)."""
    return message.tokens


@functools.lru_cache(maxsize=4096)
def describe(call: ToolCall) -> str:
    """What a tool call did, in a few words: "read guide.md:1-80", "searched for 'proxy'".

    Remembered for the latest calls (a call is frozen): every request of a long
    conversation stubs all of its earlier observations again.
    """
    try:
        args: Any = parse_arguments(call.arguments)
    except ArgumentError:
        args = {}
    args = args if isinstance(args, dict) else {}

    def text(key: str) -> str:
        return " ".join(str(args.get(key, "")).split())[:60]

    if call.name == "read_doc":
        start = args.get("start", 1)
        end = args.get("end")
        lines = f"{start}-{end}" if end is not None else f"{start}-"
        return f"read {text('path')}:{lines}"
    if call.name in {"grep_docs", "search_docs"}:
        words = text("keyword") or text("query")
        scope = f" in {text('path')}" if args.get("path") else ""
        return f"searched for '{words}'{scope}"
    if call.name == "list_docs":
        return "listed the docs"
    return f"called {call.name}"


@functools.lru_cache(maxsize=4096)
def stub(call: ToolCall, step: int) -> str:
    """The one line that stands for an observation once it is shortened."""
    return f"[{describe(call)} at step {step} — {SHORTENED}"


@dataclass(frozen=True)
class Shortened:
    """What one compaction did: the new messages, the stubs written and the tokens saved."""

    messages: list[Message]
    stubs: tuple[str, ...] = ()
    tokens_saved: int = 0
    tool_call_ids: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Compaction:
    """When and how far a conversation is shortened."""

    after_tokens: int = DEFAULT_COMPACT_AFTER
    keep_steps: int = DEFAULT_COMPACT_KEEP_STEPS
    limit: int | None = None
    """With a known context window: the estimated tokens the messages must stay under, by
    keeping fewer steps whole, down to the last one, and then cutting its results."""

    def within(self, window: int | None, *, tools: int = 0) -> Compaction:
        """This policy for a context of `window` tokens (None: unknown, unchanged).

        A quarter of the window is left for the reply (the most a request asks for then)
        and `tools` tokens for the tool schemas; the messages may fill a share of the rest.
        """
        if window is None:
            return self
        room = int((window - window // 4 - tools) * DEFAULT_CONTEXT_SHARE)
        limit = max(room, 1)
        return replace(self, after_tokens=min(self.after_tokens, limit), limit=limit)

    def needed(self, messages: Sequence[Message]) -> bool:
        """Whether the conversation has passed the threshold."""
        return _size(messages) > self.after_tokens

    def shorten(
        self, messages: Sequence[Message], *, keep_steps: int | None = None, settled: int = 0
    ) -> Shortened:
        """Stub every observation outside the last `keep_steps` steps (default: the policy's).

        Under a `limit`, fewer steps are kept whole while the messages pass it, and the
        last step's results are cut if even they do not fit. The first `settled` messages
        are earlier turns this policy has already shortened with no step kept (a follow-up
        question's history, up to its new question): they stay as they are and are only
        counted, so the work is in proportion to the messages after them.
        """
        keep = self.keep_steps if keep_steps is None else keep_steps
        head, tail = list(messages[:settled]), messages[settled:]
        shortened = self._stubbed(tail, keep)
        if self.limit is not None:
            room = self.limit - _size(head)
            while keep > 1 and _size(shortened.messages) > room:
                keep -= 1
                shortened = self._stubbed(tail, keep)
            excess = _size(shortened.messages) - room
            if excess > 0:
                shortened = _cut(tail, shortened, excess)
        return replace(shortened, messages=head + shortened.messages) if head else shortened

    def _stubbed(self, messages: Sequence[Message], keep: int) -> Shortened:
        result, stubs, ids, saved = _stub_outside(messages, keep)
        return Shortened(result, tuple(stubs), max(saved, 0), tuple(ids))


class EarlierTurns:
    """A follow-up's earlier turns as they are sent: every observation stubbed.

    The same as `shorten(history, keep_steps=0)` under any policy (nothing is left whole
    to cut). It remembers the last history it was given: a follow-up's history is that one
    and one more exchange, and only the new exchange is stubbed, so each question costs
    the same however long the conversation. Any other history is stubbed from scratch.
    """

    def __init__(self) -> None:
        self._last: tuple[tuple[Message, ...], _Stubs] | None = None

    def shorten(self, history: Sequence[Message]) -> Shortened:
        """Stub every observation in `history`."""
        start, done = 0, _Stubs((), (), (), 0)
        last = self._last  # read once: an agent may serve several sessions at a time
        if last is not None and _continues(history, last[0]):
            start, done = len(last[0]), last[1]
        result, stubs, ids, saved = _stub_outside(history[start:], 0)
        total = _Stubs(
            (*done.messages, *result), (*done.stubs, *stubs), (*done.ids, *ids), done.saved + saved
        )
        self._last = (tuple(history), total)
        return Shortened(list(total.messages), total.stubs, max(total.saved, 0), total.ids)


@dataclass(frozen=True)
class _Stubs:
    messages: tuple[Message, ...]
    stubs: tuple[str, ...]
    ids: tuple[str, ...]
    saved: int  # may be below zero: stubs longer than the short results they replace


def _continues(history: Sequence[Message], earlier: tuple[Message, ...]) -> bool:
    """Whether `history` is `earlier` (the same messages) and then whole questions."""
    size = len(earlier)
    if len(history) < size or (len(history) > size and history[size].role != "user"):
        return False
    return all(map(operator.is_, earlier, history[:size]))


def _stub_outside(
    messages: Sequence[Message], keep: int
) -> tuple[list[Message], list[str], list[str], int]:
    """The messages with every observation outside the last `keep` steps stubbed, the stubs,
    their call ids and the tokens saved."""
    located = _locate(messages)
    tool_steps = sorted({place for _, place in located.values()})
    kept = set(tool_steps[-keep:]) if keep > 0 else set()
    result, stubs, ids, saved = list(messages), [], [], 0
    for index, (call, place) in located.items():
        if place in kept:
            continue
        old = result[index]
        text = stub(call, place[1])
        if old.content == text:
            continue
        new = old.with_content(text)  # the same stub as the last question's
        saved += estimate(old) - estimate(new)
        result[index] = new
        stubs.append(text)
        ids.append(call.id)
    return result, stubs, ids, saved


def _size(messages: Sequence[Message]) -> int:
    return sum(map(attrgetter("tokens"), messages))


def _cut(original: Sequence[Message], shortened: Shortened, excess: int) -> Shortened:
    """The results still whole cut by about `excess` tokens in all, the longest first.

    A cut result starts with a line like a stub's, and is announced with the stubs.
    """
    located = _locate(original)
    result = list(shortened.messages)
    whole = [i for i in located if not (result[i].content or "").endswith(SHORTENED)]
    whole.sort(key=lambda i: -len(result[i].content or ""))
    stubs, ids, saved = list(shortened.stubs), list(shortened.tool_call_ids), 0
    for index in whole:
        if excess <= 0:
            break
        call, (_, step) = located[index]
        head = f"[{describe(call)} at step {step} — {CUT}\n"
        text = result[index].content or ""
        if text.startswith(head):
            text = text[len(head) :]
        target, room = estimate(result[index]) - excess, len(text)
        new = replace(result[index], content=head + text)
        while room > 0 and estimate(new) > target:  # two rounds at most: the head adds a little
            room = max(room - (estimate(new) - target) * 4 - 4, 0)
            new = replace(result[index], content=head + text[:room])
        gained = estimate(result[index]) - estimate(new)
        if gained <= 0:
            continue
        excess -= gained
        saved += gained
        result[index] = new
        stubs.append(new.content or "")
        ids.append(call.id)
    return Shortened(result, tuple(stubs), shortened.tokens_saved + saved, tuple(ids))


def _locate(messages: Sequence[Message]) -> dict[int, tuple[ToolCall, tuple[int, int]]]:
    """For each tool message's index: its call, and (question number, step in that question)."""
    found: dict[int, tuple[ToolCall, tuple[int, int]]] = {}
    calls: dict[str, ToolCall] = {}
    question = step = 0
    for index, message in enumerate(messages):
        if message.role == "user":
            question, step = question + 1, 0
        elif message.role == "assistant":
            step += 1
            calls = {call.id: call for call in message.tool_calls}
        elif message.role == "tool" and message.tool_call_id in calls:
            found[index] = (calls[message.tool_call_id], (question, step))
    return found
