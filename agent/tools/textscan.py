"""Lines of a doc's text found, counted and cut out without splitting the whole text.

A doc is searched as one buffer: its text lower-cased and encoded as UTF-8 (`fold`), with
every line break already turned into `\\n` (`normalize_breaks`), so a match inside one
line of the buffer is a match inside one line of the doc, and a line number is a count of
`\\n` before it. Lines are split out only around the hits that are shown, so time and
memory stay bounded by the doc's size, never by the number of matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_BREAKS = re.compile("\r\n|[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_BREAK_CHARS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_SPARSE = 32  # up to this many occurrences in a doc, count matching lines one by one
_CHUNK = 1 << 20  # bytes of whole lines counted at once when a doc has many matches
_MARKERS = [bytes([b]) for b in (0, 1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16, 17, 18, 19, 20)]
_KEEP_ONLY = {m: bytes(b for b in range(256) if b not in (m[0], 10)) for m in _MARKERS}


def normalize_breaks(text: str) -> str:
    """`text` with every line break `str.splitlines` knows turned into `\\n`."""
    if any(ch in text for ch in _BREAK_CHARS):
        return _BREAKS.sub("\n", text)
    return text


def has_break(text: str) -> bool:
    """Whether `text` holds a line break (a keyword that does can match no line)."""
    return "\n" in text or any(ch in text for ch in _BREAK_CHARS)


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


def count_lines(folded: bytes, needle: bytes) -> int:
    """How many lines of `folded` hold `needle` (a needle without a line break)."""
    find = folded.find  # bound once: this loop runs for every doc on every search
    count, pos = 0, find(needle)
    while pos >= 0:
        count += 1
        end = find(b"\n", pos)
        if end < 0:
            return count
        if count == _SPARSE:  # many matches: count the rest a chunk at a time, in C
            return count + _count_dense(folded, needle, end + 1)
        pos = find(needle, end + 1)
    return count


def _count_dense(folded: bytes, needle: bytes, start: int) -> int:
    """Lines holding `needle` from `start` on, whatever their number, in bounded memory.

    In each chunk of whole lines every match becomes a marker byte the chunk lacks, and
    every other byte but the line breaks is dropped; a line with a match then ends in a
    marker, so counting markers before a break counts the lines.
    """
    count, size = 0, len(folded)
    while start < size:
        stop = folded.find(b"\n", start + _CHUNK) if start + _CHUNK < size else -1
        stop = size if stop < 0 else stop + 1
        chunk = folded[start:stop]
        marker = next((m for m in _MARKERS if m not in chunk and m not in needle), None)
        if marker is None:  # every byte occurs: let the regex engine count the lines
            count += len(re.findall(re.escape(needle) + b"[^\n]*()", chunk))
        else:
            marks = chunk.replace(needle, marker).translate(None, _KEEP_ONLY[marker])
            count += marks.count(marker + b"\n") + marks.endswith(marker)
        start = stop
    return count


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
    size = _CHUNK
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
