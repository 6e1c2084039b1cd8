"""Lines of a doc's text found, counted and cut out without splitting the whole text.

A doc is searched as one buffer: its text lower-cased and encoded as UTF-8 (`fold`), with
every line break already turned into `\\n` (`agent.readers.lines.normalize_breaks`), so a
match inside one line of the buffer is a match inside one line of the doc, and a line
number is a count of `\\n` before it. Lines are split out only around the hits that are
shown, so time and memory stay bounded by the doc's size, never by the number of matches.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

from agent.readers.lines import BREAK_CHARS

_SPARSE = 8  # lines skipped one by one before whole windows of lines are counted
CHUNK = 1 << 20  # bytes of whole lines counted at once
MARK_FROM = 1 << 16  # a chunk this large and dense with matches is counted by marking
_MARKERS = [bytes([b]) for b in (0, 1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16, 17, 18, 19, 20)]
SAMPLE = 1 << 16  # bytes of a doc counted to tell which of a needle's bytes is rarest
FOUND_ONE_BY_ONE = 8  # lines of a doc found by `bytes.find` before the regex counts the rest
_KEEP_ONLY = {m: bytes(b for b in range(256) if b not in (m[0], 10)) for m in _MARKERS}


def has_break(text: str) -> bool:
    """Whether `text` holds a line break (a keyword that does can match no line)."""
    return "\n" in text or any(ch in text for ch in BREAK_CHARS)


def fold(text: str) -> tuple[bytes, bool]:
    """`text` as UTF-8 with its letters lower-cased, and whether all of them are.

    Only ASCII letters are lowered when that is all an ASCII keyword can tell apart
    (`str.lower` on other letters is slow, and none of them but two lowers to ASCII);
    `fold_fully` finishes the job for a keyword that is not ASCII.
    """
    data = text.encode("utf-8", "surrogatepass").lower()
    if text.isascii():
        return data, True
    if "\u0130" in text or "\u212a" in text:  # İ and the Kelvin sign lower to ASCII letters
        return fold_fully(data), True
    return data, False


def lowers_to_ascii(data: bytes) -> bool:
    """Whether UTF-8 `data` holds İ or the Kelvin sign, the letters that lower to ASCII ones.

    Each is looked for by a byte of its own first (a `memchr`): looking for two or three
    bytes at once costs ten times more in text whose curly quotes and dashes start with
    the Kelvin sign's `\xe2`.
    """
    return (b"\xc4" in data and b"\xc4\xb0" in data) or (
        b"\xaa" in data and b"\xe2\x84\xaa" in data
    )


def fold_fully(folded: bytes) -> bytes:
    """Folded text with every letter lower-cased, not only the ASCII ones."""
    return folded.decode("utf-8", "surrogatepass").lower().encode("utf-8", "surrogatepass")


def first_heading(text: str, within: int) -> str | None:
    """The first line of `text` that starts with `#` among its first `within` lines."""
    at = 0 if text.startswith("#") else text.find("\n#") + 1
    if (at == 0 and not text.startswith("#")) or text.count("\n", 0, at) >= within:
        return None
    end = text.find("\n", at)
    return text[at : end if end >= 0 else len(text)]


def count_lines(
    folded: bytes, needle: bytes, *, chunk: int = CHUNK, mark_from: int = MARK_FROM
) -> int:
    """How many lines of `folded` hold `needle` (a needle without a line break).

    The regex engine finds one match per line (the pattern runs to the line's end) and,
    with an empty group, returns an empty bytes for each: memory stays bounded by the
    chunk. A large chunk dense with matches is counted by marking instead, which costs
    a few passes over the chunk however many matches it holds.

    Args:
        folded: The text searched, lines ending in `\\n`.
        needle: What a line must hold.
        chunk: Bytes of whole lines counted at once.
        mark_from: A chunk this large and dense with matches is counted by marking.
    """
    pattern = line_pattern(needle, rarest(needle, folded))
    size = len(folded)
    if size <= chunk and size < mark_from:  # a doc of common size: one call
        return len(pattern.findall(folded))
    count, start = 0, 0
    while start < size:
        stop = folded.find(b"\n", start + chunk) if start + chunk < size else -1
        stop = size if stop < 0 else stop + 1
        if stop - start >= mark_from and folded.count(needle, start, stop) > (stop - start) >> 5:
            count += _count_marked(folded[start:stop], needle, pattern)
        else:
            count += len(pattern.findall(folded, start, stop))
        start = stop
    return count


def count_lines_from(
    folded: bytes, needle: bytes, at: int, findall: Callable[[bytes, int], list[bytes]]
) -> int:
    """How many lines of `folded` hold `needle`, its first match being at `at`.

    The first `FOUND_ONE_BY_ONE` lines are found by `bytes.find`, which skips ahead faster
    than the regex engine when the needle's rarest byte is common in the text (`zqxq` in
    text full of `x`); a doc with more is counted on by `findall` (a `line_pattern`'s),
    from the line after the last one found.
    """
    count = 0
    while at >= 0:
        count += 1
        end = folded.find(b"\n", at)
        if end < 0:
            break
        if count == FOUND_ONE_BY_ONE:
            return count + len(findall(folded, end + 1))
        at = folded.find(needle, end + 1)
    return count


def rarest(needle: bytes, sample: bytes) -> int:
    """Where in `needle` its byte least frequent in `sample` (the first `SAMPLE` bytes of a
    text like the one searched) first occurs: where `line_pattern` should start.

    Counted, not looked up in a table of English letters: docs in another language,
    or of code, make other letters rare.
    """
    counts = {b: sample.count(b, 0, SAMPLE) for b in set(needle)}
    return min(range(len(needle)), key=lambda i: counts[needle[i]])


@functools.lru_cache(maxsize=16)
def line_pattern(needle: bytes, at: int = 0) -> re.Pattern[bytes]:
    """A regex matching once per line that holds `needle`: from its first match on the
    line to the line's end, with an empty group (so `findall` makes no copies).

    The regex engine looks for a pattern's literal start one byte at a time, so the
    pattern starts at the needle's rarest byte, `needle[at]` (see `rarest`), and looks
    behind for the whole needle: `timeout` is found as `meout(?<=timeout)`, which stops
    at every `m` rather than at every `t`. Matching bytes behind the point reached is
    what a look-behind does, and one match per line is kept because each runs on to the
    line's end.
    """
    behind = b"(?<=" + re.escape(needle) + b")" if at else b""
    return re.compile(re.escape(needle[at:]) + behind + b"[^\n]*()")


def _count_marked(chunk: bytes, needle: bytes, pattern: re.Pattern[bytes]) -> int:
    """Lines of `chunk` holding `needle`: each match becomes a marker byte the chunk lacks,
    every other byte but the line breaks is dropped, and markers before a break are counted."""
    marker = next((m for m in _MARKERS if m not in chunk and m not in needle), None)
    if marker is None:  # every byte occurs in the chunk
        return len(pattern.findall(chunk))
    marks = chunk.replace(needle, marker).translate(None, _KEEP_ONLY[marker])
    return marks.count(marker + b"\n") + marks.endswith(marker)


def hit_lines(folded: bytes, needle: bytes, limit: int) -> list[int]:
    """The numbers (1-based) of the first `limit` lines of `folded` that hold `needle`."""
    numbers: list[int] = []
    line, counted = 1, 0
    pos = folded.find(needle)
    while pos >= 0 and len(numbers) < limit:
        line += folded.count(b"\n", counted, pos)
        numbers.append(line)
        end = folded.find(b"\n", pos)
        if end < 0:
            break
        line, counted = line + 1, end + 1
        pos = folded.find(needle, end + 1)
    return numbers


def line_count(text: str | bytes) -> int:
    """The number of lines in a text with `\\n` breaks, as `splitlines` counts them."""
    if not text:
        return 0
    if isinstance(text, str):
        return text.count("\n") + (not text.endswith("\n"))
    return text.count(b"\n") + (not text.endswith(b"\n"))


def lines_at(text: str, numbers: Iterable[int]) -> dict[int, str]:
    """The lines of `text` (with `\\n` breaks) at the given 1-based numbers, if it has them."""
    found: dict[int, str] = {}
    line, offset = 1, 0
    for number in sorted(set(numbers)):
        offset = _skip_lines(text, offset, number - line)
        line = number
        if offset > len(text) or (offset == len(text) and number > line_count(text)):
            break
        end = text.find("\n", offset)
        found[number] = text[offset : end if end >= 0 else len(text)]
    return found


def _skip_lines(text: str, offset: int, count: int) -> int:
    """The offset `count` lines after `offset` (past the end if there are fewer)."""
    size = CHUNK
    while count > _SPARSE and offset < len(text):  # far ahead: skip whole windows first
        window = text.count("\n", offset, offset + size)
        if window < count:
            count, offset = count - window, offset + size
        elif size > 1024:
            size //= 2  # the line is in this window: look closer
        else:
            break
    for _ in range(count):
        end = text.find("\n", offset)
        if end < 0:
            return len(text) + 1
        offset = end + 1
    return offset
