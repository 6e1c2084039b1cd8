"""The PDF reader's worker: pypdfium2 in a child process held to bounds of memory and time.

PDFium decodes a page's streams whole, in its own memory: a 500 KB PDF whose page inflates
to 500 MB took 1.5 GB and 3 s in the process that read it (measured). So a PDF is read in
a child (`python -m agent.readers.pdfium`), whose address space and CPU time are capped:
a hostile file ends the child, never the program. The child reads the PDF's bytes on
stdin and writes one JSON object on stdout: `{"pages": [[label, text], ...], "outline":
[[level, title, page], ...]}`, or `{"error": "..."}` in the few words a skip note shows.
"""

from __future__ import annotations

import json
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


def limit_resources(memory: int, seconds: int) -> None:
    """Cap this process's address space and CPU time (past them the system ends it)."""
    try:
        import resource
    except ImportError:  # not on this system: the parent's timeout still holds
        return
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))


def main() -> None:
    memory, cpu, max_pages, max_chars, max_marks, max_depth = map(int, sys.argv[1:7])
    limit_resources(memory, cpu)
    data = sys.stdin.buffer.read()
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
    sys.stdout.buffer.write(json.dumps(found, ensure_ascii=False).encode("utf-8", "replace"))


if __name__ == "__main__":
    main()
