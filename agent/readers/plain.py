"""Plain text: read as it is, decoded."""

from __future__ import annotations

from agent.readers.base import NotText
from agent.readers.decoding import decode, is_binary


def read(data: bytes) -> str:
    """The doc's text: its bytes decoded; NotText if they are binary data."""
    if is_binary(data):
        raise NotText("binary")
    return decode(data)


def verbatim(data: bytes) -> bool:
    """Always: the text is the bytes decoded."""
    return True
