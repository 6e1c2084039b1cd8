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
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    def reserve() -> int:
        objects.append(b"")
        return len(objects)

    catalog = reserve()
    tree = reserve()
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    page_ids = []
    for n, lines in enumerate(pages):
        if raw_content and n in raw_content:
            stream = raw_content[n]
        elif lines is None:
            stream = b"0.5 g 56 56 400 600 re f"
        else:
            stream = _content(lines)
        extra = b""
        if compress:
            stream, extra = zlib.compress(stream, 9), b" /Filter /FlateDecode"
        if flate_content and n in flate_content:
            stream, extra = flate_content[n], b" /Filter /FlateDecode"
        content = add(
            b"<< /Length %d%s >>\nstream\n" % (len(stream), extra) + stream + b"\nendstream"
        )
        page_ids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "
                b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>"
                % (tree, font, content)
            )
        )
    kids = b" ".join(b"%d 0 R" % p for p in page_ids)
    objects[tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids))
    extras = b""
    if labels:
        nums = b" ".join(b"%d << %s >>" % (k, v.encode()) for k, v in sorted(labels.items()))
        extras += b" /PageLabels << /Nums [%s] >>" % nums
    if outline:
        root = reserve()

        def items(marks: Sequence[Bookmark], parent: int) -> tuple[int, int]:
            ids = [reserve() for _ in marks]
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
                    first, last = items(mark.children, own)
                    body += b" /First %d 0 R /Last %d 0 R /Count %d" % (
                        first,
                        last,
                        len(mark.children),
                    )
                objects[own - 1] = body + b" >>"
            return ids[0], ids[-1]

        first, last = items(outline, root)
        objects[root - 1] = b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (
            first,
            last,
            len(outline),
        )
        extras += b" /Outlines %d 0 R" % root
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R%s >>" % (tree, extras)
    trailer_extra = b""
    if encrypt:
        key = add(
            b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P -44 >>" % (b"11" * 32, b"22" * 32)
        )
        trailer_extra = b" /Encrypt %d 0 R /ID [<%s> <%s>]" % (key, b"ab" * 16, b"ab" * 16)
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
