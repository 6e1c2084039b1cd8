"""The PDF reader's worker: pypdfium2 in a child process held to bounds of memory and time.

PDFium decodes a page's streams whole, in its own memory: a 500 KB PDF whose page inflates
to 500 MB took 1.5 GB and 3 s in the process that read it (measured). So a PDF is read in
a child (`agent.readers.pdfworker` starts it), whose address space and CPU time per PDF
are capped: a hostile file ends the child, never the program. The child reads PDFs on
stdin, each its length on a line and then its bytes, and answers each on stdout with
the length of a JSON object on a line, then the object: `{"pages": [[label, text], ...],
"outline": [[level, title, page], ...]}`, or `{"error": "..."}` in the few words a skip
note shows.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from typing import Any

CONTROLS: dict[int, str | None] = {
    **{n: " " for n in (*range(0, 9), 11, 12, *range(14, 32), 127, *range(128, 160))},
    0x02: None,
    0xFFFE: None,
}
"""C0 and C1 controls but tab and line breaks become spaces (a broken font's bytes come as
they are); the marks PDFium leaves where it joined a hyphenated word (\\x02, U+FFFE) go."""


def extract(
    data: bytes, *, max_pages: int, max_chars: int, max_marks: int, max_depth: int, seconds: float
) -> dict[str, Any]:
    """Each page's label and text and the outline of a PDF's bytes, or an error, as a dict."""
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        text = str(exc).lower()
        if "password" in text:
            return {"error": "encrypted: it needs a password"}
        return {"error": "damaged: not a PDF that can be read"}
    try:
        return _read(pdf, max_pages, max_chars, max_marks, max_depth, seconds)
    finally:
        pdf.close()  # the next PDF read in this process starts from PDFium's memory freed


def _read(
    pdf: Any, max_pages: int, max_chars: int, max_marks: int, max_depth: int, seconds: float
) -> dict[str, Any]:
    """Each page's label and text and the outline of an open PDF, or an error, as a dict."""
    count = len(pdf)
    if count > max_pages:
        return {"error": f"too big: {count:,} pages (at most {max_pages:,} are read)"}
    began = time.process_time()
    pages: list[list[str]] = []
    chars = 0
    for index in range(count):
        page = pdf[index]
        textpage = page.get_textpage()
        text = textpage.get_text_range().translate(CONTROLS)
        textpage.close()
        page.close()
        chars += len(text)
        if chars > max_chars:
            return {"error": f"too big: more than {max_chars // 1_000_000:,} million characters"}
        if time.process_time() - began > 0.9 * seconds:  # before the system ends it
            return {"error": f"too slow: more than {seconds:g} s to read"}
        pages.append([pdf.get_page_label(index), text])
    outline: list[list[Any]] = []
    for item in pdf.get_toc(max_depth=max_depth):  # it stops at a bookmark seen before
        if len(outline) >= max_marks:
            break
        dest = item.get_dest()
        where = dest.get_index() if dest is not None else None
        if where is not None and 0 <= where < count:
            outline.append([item.level, item.get_title(), where])
    return {"pages": pages, "outline": outline}


def limit_resources(memory: int) -> None:
    """Cap this process's address space (past it an allocation fails, or PDFium aborts)."""
    try:
        import resource
    except ImportError:  # not on this system: the parent's deadline still holds
        return
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))


def allow_cpu(seconds: int) -> None:
    """Let this process take `seconds` more of CPU time, for the next PDF (past them the
    system ends it): the limit counts all the process took, so it moves on per PDF."""
    try:
        import resource
    except ImportError:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime) + seconds
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(
        resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard)
    )


def main() -> None:
    """Read PDFs from stdin until it ends: each its length on a line, then its bytes;
    answer each with the JSON's length on a line, then the JSON."""
    memory, cpu, max_pages, max_chars, max_marks, max_depth = map(int, sys.argv[1:7])
    limit_resources(memory)
    stdin, stdout = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever else writes to stdout (a library's C code) goes to stderr
    while (header := stdin.readline().strip()).isdigit():
        data = stdin.read(int(header))
        allow_cpu(cpu)
        try:
            found = extract(
                data,
                max_pages=max_pages,
                max_chars=max_chars,
                max_marks=max_marks,
                max_depth=max_depth,
                seconds=cpu,
            )
        except MemoryError:
            found = {"error": f"too big: more than {memory >> 20:,} MB to read"}
        # UTF-8 whatever the locale's: at most 4 bytes a character (escaped ASCII took up to 6)
        reply = json.dumps(found, ensure_ascii=False).encode("utf-8", "replace")
        stdout.write(b"%d\n" % len(reply) + reply)
        stdout.flush()


if __name__ == "__main__":
    main()
