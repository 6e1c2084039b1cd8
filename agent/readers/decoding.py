"""Bytes to text: a BOM's encoding, an HTML page's declared charset, else UTF-8."""

from __future__ import annotations

import codecs
import contextlib
import re

SNIFF = 8192  # bytes looked at to tell binary data from text
UTF16 = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
BOMS = (codecs.BOM_UTF8, *UTF16)
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w.:-]+)""", re.IGNORECASE)


def is_binary(data: bytes) -> bool:
    """Whether bytes are binary data, not text: a zero byte near the start (not UTF-16)."""
    if data.find(b"\0", 0, SNIFF) < 0:
        return False
    return not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))


def decode(data: bytes, *, html: bool = False) -> str:
    """Text from bytes: a BOM's encoding, an HTML page's declared charset, else UTF-8.

    Bytes that are not valid in the encoding are replaced, never an error.
    """
    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    encoding = "utf-8"
    declared = _CHARSET.search(data[:2048]) if html else None
    if declared:
        with contextlib.suppress(LookupError):
            encoding = codecs.lookup(declared[1].decode("ascii")).name
    return data.decode(encoding, errors="replace")
