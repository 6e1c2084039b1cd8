"""Man pages and EPUB books, read through the same reader interface as every format."""

from __future__ import annotations

import gzip
import io
import zipfile
from pathlib import Path

import pytest

from agent.readers.base import NotText
from agent.readers.registry import doc_lines, doc_suffix
from agent.search import DocsIndex
from agent.tools.citations import find_citations
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, list_docs
from tests.agent.test_offline import converse

PAGE = r""".\" A comment
.TH ARCHIVE 1 "2024" "archive 2.0"
.de XX
.  ft B
..
.SH NAME
archive \- keep files in one file
.SH SYNOPSIS
.B archive
[\fIOPTIONS\fR] \fIFILE\fR...
.SH OPTIONS
.SS Attributes
.TP
\fB\-p\fR, \fB\-\-preserve\-permissions\fR
Keep each file's permissions when extracting (default for root).
.TP
.BR \-o " and " \-\-owner =\fINAME\fR
Set the owner \(em by \*(lqname\*(rq \e or number\[u00E9].
.nf
archive -p -x backup.arc
.fi
.SH
SEE ALSO
\&.profile, \fBtar\fP(1)
"""


def test_a_man_page_reads_as_markdown_one_line_for_each_source_line() -> None:
    lines = doc_lines(PAGE.encode(), "archive.1")
    assert lines == [
        "",
        "# archive - keep files in one file",
        "",
        "",
        "",
        "",  # the title is the NAME line: no section of the title alone
        "archive - keep files in one file",
        "## SYNOPSIS",
        "archive",
        "[OPTIONS] FILE...",
        "## OPTIONS",
        "### Attributes",
        "",
        "#### -p, --preserve-permissions",
        "Keep each file's permissions when extracting (default for root).",
        "",
        "#### -o and --owner=NAME",
        "Set the owner — by “name” \\ or numberé.",
        "```",
        "archive -p -x backup.arc",
        "```",
        "",
        "## SEE ALSO",
        ".profile, tar(1)",
    ]
    assert doc_lines(gzip.compress(PAGE.encode()), "archive.1.gz") == lines
    assert doc_suffix("CA.pl.1ssl.gz") == ".1ssl" and doc_suffix("File::Spec.3pm") == ".3pm"
    assert doc_lines(b".so man1/tar.1\n", "gtar.1") == ["See man1/tar.1."]
    code = b".nf\n# a comment\n.fi\n# not a heading\n"
    assert doc_lines(code, "x.1") == ["```", "# a comment", "```", "\\# not a heading"]
    with pytest.raises(NotText, match="binary"):
        doc_lines(b"\x7fELF\0\0\0", "python3.9")


def test_a_folder_of_man_pages_answers_which_flag_with_a_verified_citation(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "man1"
    docs.mkdir()
    (docs / "archive.1.gz").write_bytes(gzip.compress(PAGE.encode()))
    (docs / "copy.1").write_text(
        ".TH COPY 1\n.SH NAME\ncopy \\- copy files\n.SH OPTIONS\n.TP\n\\fB\\-r\\fR\nCopy folders.\n"
    )
    ctx = DocsContext(Corpus.open(docs))
    assert list_docs(ctx).splitlines() == [
        "archive.1.gz  (24 lines)  archive - keep files in one file",
        "copy.1  (7 lines)  copy - copy files",
    ]
    answer, _ = converse(docs, "Which flag of archive keeps permissions?")
    assert "> -p, --preserve-permissions" in answer
    citations = find_citations(answer, ctx.corpus)
    assert citations[0].path == "archive.1.gz" and citations[0].valid
    assert citations[0].start <= 14 <= citations[0].end


CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf"
    media-type="application/oebps-package+xml"/></rootfiles>
</container>"""
PACKAGE = """<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0">
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="c2" href="text/ch%202.xhtml" media-type="application/xhtml+xml"/>
    <item id="c1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style.css" media-type="text/css"/>
  </manifest>
  <spine><itemref idref="c1"/><itemref idref="c2"/><itemref idref="css"/></spine>
</package>"""
NAV = """<html xmlns="http://www.w3.org/1999/xhtml"><body><nav epub:type="toc"><ol>
<li><a href="text/ch1.xhtml">Setting up</a></li>
<li><a href="text/ch%202.xhtml#start">Mixing the
  glaze</a></li></ol></nav></body></html>"""
CHAPTER_1 = """<html><head><title>One</title></head><body>
<h1>Setting up</h1><p>Warm the kiln to 900 degrees.</p></body></html>"""
CHAPTER_2 = """<html><head><title>Two</title></head><body>
<p>Stir the glaze for two minutes before each use.</p></body></html>"""


def epub(members: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("mimetype", "application/epub+zip")
        book.writestr("META-INF/container.xml", CONTAINER)
        for name, data in members.items():
            book.writestr(name, data)
    return out.getvalue()


BOOK = {
    "OEBPS/content.opf": PACKAGE,
    "OEBPS/nav.xhtml": NAV,
    "OEBPS/text/ch1.xhtml": CHAPTER_1,
    "OEBPS/text/ch 2.xhtml": CHAPTER_2,
    "OEBPS/style.css": "p {}",
}


def test_an_epub_reads_its_chapters_in_reading_order_with_their_titles(tmp_path: Path) -> None:
    assert doc_lines(epub(BOOK), "kiln.epub") == [
        "# Setting up",
        "",
        "Warm the kiln to 900 degrees.",
        "",
        "# Mixing the glaze",  # no heading of its own: its title in the table of contents
        "",
        "Stir the glaze for two minutes before each use.",
    ]
    docs = tmp_path / "books"
    docs.mkdir()
    (docs / "kiln.epub").write_bytes(epub(BOOK))
    answer, _ = converse(docs, "How do I mix the glaze?")
    assert "> Stir the glaze for two minutes before each use." in answer
    assert [(c.path, c.valid) for c in find_citations(answer, Corpus.open(docs))][0] == (
        "kiln.epub",
        True,
    )


def test_an_epub_that_cannot_be_read_says_why() -> None:
    whole = epub(BOOK)
    encrypted = {**BOOK, "META-INF/encryption.xml": "<encryption><EncryptedData/></encryption>"}
    bomb = {**BOOK, "OEBPS/text/ch1.xhtml": "<p>" + "x" * (33 * 1024 * 1024)}
    no_package = {k: v for k, v in BOOK.items() if k != "OEBPS/content.opf"}
    cases = {
        r"encrypted \(DRM\)": epub(encrypted),
        "unzips to more than 32 MB": epub(bomb),
        "a damaged EPUB": whole[: len(whole) // 2],
        r"a damaged EPUB \(no OEBPS/content.opf\)": epub(no_package),
    }
    for reason, data in cases.items():
        with pytest.raises(NotText, match=f"^{reason}$"):
            doc_lines(data, "book.epub")


def test_list_docs_and_the_index_name_what_they_could_not_read_and_why(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Good\n\nThe kiln needs 230 V.\n")
    for n in range(5):
        (docs / f"blob{n}.md").write_bytes(b"\x89PNG\0\0")
    encrypted = {**BOOK, "META-INF/encryption.xml": "<encryption><EncryptedData/></encryption>"}
    (docs / "locked.epub").write_bytes(epub(encrypted))
    line = (
        "skipped 6 docs that could not be read — binary: blob0.md, blob1.md, blob2.md "
        "and 2 more; encrypted (DRM): locked.epub"
    )
    ctx = DocsContext(Corpus.open(docs))
    assert list_docs(ctx).splitlines() == [f"({line})", "good.md  (3 lines)  Good"]
    report = ctx.search_index().prepare()
    assert report.docs == 1 and report.skipped_line == line
    (docs / "locked.epub").unlink()
    for n in range(5):
        (docs / f"blob{n}.md").unlink()
    assert DocsIndex(Corpus.open(docs)).prepare().skipped_line is None
