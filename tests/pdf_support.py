"""Small PDFs written byte by byte, for tests: pages of text, labels, an outline, damage."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Bookmark:
    title: str
    page: int  # 0-based
    children: list[Bookmark] = field(default_factory=list)


def _escape(text: str) -> bytes:
    data = text.encode("cp1252", "replace")
    return data.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _content(lines: Sequence[str]) -> bytes:
    out = [b"BT /F1 11 Tf 14 TL 56 780 Td"]
    for line in lines:
        out.append(b"(" + _escape(line) + b") Tj T*")
    out.append(b"ET")
    return b"\n".join(out)


def _text_string(text: str) -> bytes:
    return b"(" + _escape(text) + b")"


class _Objects:
    """A PDF's numbered objects, filled in as they are written; a number can be reserved first."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def add(self, body: bytes) -> int:
        self.bodies.append(body)
        return len(self.bodies)

    def reserve(self) -> int:
        self.bodies.append(b"")
        return len(self.bodies)

    def set(self, number: int, body: bytes) -> None:
        self.bodies[number - 1] = body


def pdf_bytes(
    pages: Sequence[Sequence[str] | None],
    *,
    labels: dict[int, str] | None = None,
    outline: Sequence[Bookmark] = (),
    encrypt: bool = False,
    compress: bool = False,
    raw_content: dict[int, bytes] | None = None,
    flate_content: dict[int, bytes] | None = None,
) -> bytes:
    """A PDF of `pages`, each a list of text lines (None: a page with only a drawn box).

    `labels`: PageLabels entries, page index -> a style spec like "/S /r" or "/P (A-) /S /D".
    `raw_content`: a page index's content stream given as it stands (compressed if asked).
    `flate_content`: a page index's content stream, already compressed (see `bomb`).
    """
    objects = _Objects()
    catalog = objects.reserve()
    tree = objects.reserve()
    font = objects.add(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    )
    page_ids = []
    for n, lines in enumerate(pages):
        stream, extra = _page_stream(
            n, lines, compress=compress, raw=raw_content or {}, flate=flate_content or {}
        )
        content = objects.add(
            b"<< /Length %d%s >>\nstream\n" % (len(stream), extra) + stream + b"\nendstream"
        )
        page_ids.append(
            objects.add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "
                b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>"
                % (tree, font, content)
            )
        )
    kids = b" ".join(b"%d 0 R" % p for p in page_ids)
    objects.set(tree, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids)))
    extras = b""
    if labels:
        nums = b" ".join(b"%d << %s >>" % (k, v.encode()) for k, v in sorted(labels.items()))
        extras += b" /PageLabels << /Nums [%s] >>" % nums
    if outline:
        extras += b" /Outlines %d 0 R" % _add_outline(objects, outline, page_ids)
    objects.set(catalog, b"<< /Type /Catalog /Pages %d 0 R%s >>" % (tree, extras))
    trailer_extra = b""
    if encrypt:
        key = objects.add(
            b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P -44 >>" % (b"11" * 32, b"22" * 32)
        )
        trailer_extra = b" /Encrypt %d 0 R /ID [<%s> <%s>]" % (key, b"ab" * 16, b"ab" * 16)
    return _file(objects.bodies, catalog, trailer_extra)


def _page_stream(
    n: int,
    lines: Sequence[str] | None,
    *,
    compress: bool,
    raw: dict[int, bytes],
    flate: dict[int, bytes],
) -> tuple[bytes, bytes]:
    """Page `n`'s content stream and the filter its dictionary names (or b"")."""
    if n in raw:
        stream = raw[n]
    elif lines is None:
        stream = b"0.5 g 56 56 400 600 re f"
    else:
        stream = _content(lines)
    extra = b""
    if compress:
        stream, extra = zlib.compress(stream, 9), b" /Filter /FlateDecode"
    if n in flate:
        stream, extra = flate[n], b" /Filter /FlateDecode"
    return stream, extra


def _add_outline(objects: _Objects, outline: Sequence[Bookmark], page_ids: list[int]) -> int:
    """Write the outline's objects; the number of its root."""
    root = objects.reserve()
    first, last = _add_bookmarks(objects, outline, root, page_ids)
    objects.set(
        root,
        b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (first, last, len(outline)),
    )
    return root


def _add_bookmarks(
    objects: _Objects, marks: Sequence[Bookmark], parent: int, page_ids: list[int]
) -> tuple[int, int]:
    """Write `marks` (and their children) under `parent`; the numbers of the first and last."""
    ids = [objects.reserve() for _ in marks]
    for i, (mark, own) in enumerate(zip(marks, ids, strict=True)):
        body = b"<< /Title %s /Parent %d 0 R /Dest [%d 0 R /Fit]" % (
            _text_string(mark.title),
            parent,
            page_ids[mark.page],
        )
        if i > 0:
            body += b" /Prev %d 0 R" % ids[i - 1]
        if i + 1 < len(ids):
            body += b" /Next %d 0 R" % ids[i + 1]
        if mark.children:
            first, last = _add_bookmarks(objects, mark.children, own, page_ids)
            body += b" /First %d 0 R /Last %d 0 R /Count %d" % (
                first,
                last,
                len(mark.children),
            )
        objects.set(own, body + b" >>")
    return ids[0], ids[-1]


def _file(objects: list[bytes], catalog: int, trailer_extra: bytes) -> bytes:
    """The file: header, numbered objects, cross-reference table and trailer."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % at for at in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        catalog,
        trailer_extra,
        xref,
    )
    return bytes(out)


def bomb(size: int) -> bytes:
    """A page's content stream, compressed, that inflates to `size` bytes (a line of text,
    then spaces), made a piece at a time: the inflated stream is never held."""
    packer = zlib.compressobj(9)
    out = [packer.compress(b"BT /F1 11 Tf 56 780 Td (hi) Tj ET\n")]
    piece = b" " * (1 << 24)
    for _ in range(size >> 24):
        out.append(packer.compress(piece))
    out.append(packer.flush())
    return b"".join(out)
