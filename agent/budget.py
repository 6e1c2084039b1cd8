"""A served tool's result kept within a token budget: paged at line breaks (docsagent mcp).

A client's context is its own to spend, so a long result (a `list_docs` of 10,000 files)
comes as pages of at most `max_tokens` (about four characters a token), each ending with
a note that says what is left out and how to read on.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.defaults import DEFAULT_RESULT_TOKENS
from agent.tools.registry import ToolError

CHARS_PER_TOKEN = 4  # as `estimate_tokens` counts
MIN_TOKENS, MAX_TOKENS = 100, 8_000
"""The `max_tokens` a client may ask for."""
NOTE_ROOM = 320  # characters kept free for the note that ends a page


@dataclass(frozen=True)
class Budget:
    """How much of a result a call may return: `max_tokens` per page, and which page."""

    max_tokens: int = DEFAULT_RESULT_TOKENS
    page: int = 1

    @classmethod
    def take(cls, arguments: dict[str, object]) -> Budget:
        """The budget arguments taken out of `arguments`; ToolError for a value out of bounds."""
        max_tokens = arguments.pop("max_tokens", DEFAULT_RESULT_TOKENS)
        page = arguments.pop("page", 1)
        if not _whole(max_tokens) or not MIN_TOKENS <= max_tokens <= MAX_TOKENS:  # type: ignore[operator]
            raise ToolError(
                f"error: max_tokens must be a whole number from {MIN_TOKENS:,} to "
                f"{MAX_TOKENS:,}; leave it out for {DEFAULT_RESULT_TOKENS:,}"
            )
        if not _whole(page) or page < 1:  # type: ignore[operator]
            raise ToolError("error: page must be a whole number from 1; leave it out for 1")
        return cls(max_tokens, page)  # type: ignore[arg-type]

    def cut(self, text: str, *, name: str, hint: str = "") -> str:
        """This budget's page of `text`, cut at line breaks, with a note when there are more.

        Raises ToolError when the page asked for is past the last.
        """
        room = self.max_tokens * CHARS_PER_TOKEN
        if self.page == 1 and len(text) <= room:
            return text
        starts = _page_starts(text, room - NOTE_ROOM)
        pages = len(starts)
        if self.page > pages:
            raise ToolError(
                f"error: page {self.page} is past the end: this result has {pages} "
                f"page{'s' if pages != 1 else ''} of {self.max_tokens:,} tokens"
            )
        begin = starts[self.page - 1]
        end = starts[self.page] if self.page < pages else len(text)
        body = text[begin:end].rstrip("\n")
        first = text.count("\n", 0, begin) + 1
        last = first + body.count("\n")
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        where = f"page {self.page} of {pages}: lines {first:,}-{last:,} of {lines:,}"
        if self.page < pages:
            more = f"call {name} again with the same arguments and page={self.page + 1} for more"
            more += f"{hint}; or a larger max_tokens (up to {MAX_TOKENS:,})"
        else:
            more = "the last page"
        return f"{body}\n[{where}, each at most {self.max_tokens:,} tokens; {more}]"


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _page_starts(text: str, room: int) -> list[int]:
    """Where each page begins: pages of at most `room` characters, cut after a line break
    when one falls in the second half of the page (linear in the text)."""
    room = max(room, 1)
    starts = [0]
    at = 0
    while len(text) - at > room:
        cut = text.rfind("\n", at + room // 2, at + room)
        at = cut + 1 if cut >= 0 else at + room
        starts.append(at)
    return starts
