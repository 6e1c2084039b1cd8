"""Gzipped docs (`NAME.gz`, read as NAME): unzipped up to a bound."""

from __future__ import annotations

import re
import zlib

from agent.readers.base import NotText

MAX_UNZIPPED = 32 * 1024 * 1024
"""Bytes a gzipped doc may unzip to: a bound on memory for a hostile or broken file."""

_PADDING = re.compile(rb"\0*")  # zero bytes between gzip members, as gzip itself allows


def gunzip(data: bytes, limit: int = MAX_UNZIPPED) -> bytes:
    """The unzipped bytes of a gzip file (every member), NotText past `limit` or if broken.

    Each member is fed in growing pieces from where the last one ended: zlib copies what it
    did not use, so feeding it the rest of the file for each member was quadratic (tens of
    thousands of empty members took minutes).
    """
    out = bytearray()
    view = memoryview(data)
    at = 0
    try:
        while at < len(data):
            unzip = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            piece = 64
            while not unzip.eof:
                if at >= len(data):
                    raise NotText("a gzip file cut short")
                chunk = view[at : at + piece]
                out += unzip.decompress(chunk, limit + 1 - len(out))
                if len(out) > limit:
                    raise NotText(f"unzips to more than {limit // (1024 * 1024)} MB")
                at += len(chunk) - len(unzip.unused_data)
                piece = min(piece * 2, 1 << 16)
            at = _PADDING.match(data, at).end()  # type: ignore[union-attr]
    except zlib.error:
        raise NotText("not a valid gzip file") from None
    return bytes(out)
