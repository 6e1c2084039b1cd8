"""The API key kept out of what a server sends back: its replies, as they stream and whole.

A server may echo the key (a proxy that quotes the request, a model that repeats its
prompt): in any case it becomes `***` (`scrub`) before the text reaches the screen, the
trace or the answer. Streamed text is scrubbed as it comes, holding back the last few
characters of a piece when they could begin the key, so a key split across pieces is
caught too; the text handed on is the scrubbed whole reply, piece by piece.
"""

from __future__ import annotations

import dataclasses
import re

from agent.models.base import Reply
from agent.models.openai.errors import MIN_SECRET, scrub

MASK = "***"
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class KeyFilter:
    """Scrubs the key from a reply's streamed text (`feed`, then `flush`) and from the
    whole reply (`reply`). A key shorter than MIN_SECRET characters is not looked for."""

    def __init__(self, api_key: str) -> None:
        self.api_key = api_key
        self._pattern = (
            re.compile(re.escape(api_key), re.IGNORECASE) if len(api_key) >= MIN_SECRET else None
        )
        self._held = ""

    def feed(self, text: str) -> str:
        """The part of the text so far that can be handed on, scrubbed."""
        if self._pattern is None:
            return text
        buffer = self._held + text
        safe = len(buffer) - self._key_start(buffer)  # from there on a key may yet begin
        pieces: list[str] = []
        cut = 0
        for match in self._pattern.finditer(buffer):
            if match.start() >= safe:
                break
            pieces += [buffer[cut : match.start()], MASK]
            cut = match.end()
        end = max(cut, safe)
        pieces.append(buffer[cut:end])
        self._held = buffer[end:]
        return "".join(pieces)

    def _key_start(self, buffer: str) -> int:
        """The length of the longest end of `buffer` that begins the key (any case)."""
        key = self.api_key.translate(_ASCII_LOWER)  # a key is ASCII (the model checks)
        tail = buffer[-(len(key) - 1) :].translate(_ASCII_LOWER)
        start = tail.find(key[0])
        while start != -1:
            if key.startswith(tail[start:]):
                return len(tail) - start
            start = tail.find(key[0], start + 1)
        return 0

    def flush(self) -> str:
        """What was held back, once the stream has ended."""
        held, self._held = self._held, ""
        return scrub(held, self.api_key)

    def reply(self, reply: Reply) -> Reply:
        """`reply` with the key scrubbed from its text and tool calls."""
        if self._pattern is None:
            return reply
        message = reply.message
        calls = tuple(
            dataclasses.replace(
                call, name=self._clean(call.name), arguments=self._clean(call.arguments)
            )
            for call in message.tool_calls
        )
        content = self._clean(message.content) if message.content is not None else None
        if content == message.content and calls == message.tool_calls:
            return reply
        cleaned = dataclasses.replace(message, content=content, tool_calls=calls)
        return dataclasses.replace(reply, message=cleaned)

    def _clean(self, text: str) -> str:
        return scrub(text, self.api_key)
