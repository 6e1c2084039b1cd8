"""The PDF reader's child, shared by the PDFs of a batch (an index build), each in its bounds."""

from __future__ import annotations

import resource
from pathlib import Path

import pytest

from agent.readers import pdf
from agent.readers.base import NotText
from agent.readers.pdf import Limits
from agent.readers.pdfworker import batch
from agent.search import DocsIndex
from agent.tools.corpus import Corpus
from tests.pdf_support import bomb, pdf_bytes

INTRO = ["1 Introduction", "docsagent answers questions from your docs."]


def children_ended() -> float:
    """CPU seconds of this process's children that have ended and been waited for."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def test_the_pdfs_of_a_batch_are_read_by_one_child_that_ends_with_it() -> None:
    before = children_ended()
    pdf.read(pdf_bytes([INTRO]))
    alone = children_ended()
    assert alone > before  # outside a batch: a child for the PDF, ended with its reading
    with batch():
        texts = [pdf.read(pdf_bytes([[f"{n} Part", *INTRO]])) for n in range(3)]
        assert children_ended() == alone  # one child, still running
    assert children_ended() > alone
    assert [t.split("\n")[1] for t in texts] == ["0 Part", "1 Part", "2 Part"]


def test_a_bomb_in_a_batch_costs_its_own_pdf_only() -> None:
    limits = Limits(memory=256 << 20)
    with batch(limits):
        assert pdf.read(pdf_bytes([INTRO]), limits).startswith("[p. 1]\n1 Introduction")
        with pytest.raises(NotText, match="too big: more than 256 MB to read"):
            pdf.read(pdf_bytes([INTRO], flate_content={0: bomb(400 << 20)}), limits)
        with pytest.raises(NotText, match="damaged: not a PDF that can be read"):
            pdf.read(b"%PDF-1.7\nnot really", limits)
        assert pdf.read(pdf_bytes([INTRO]), limits).startswith("[p. 1]\n1 Introduction")


def test_an_index_build_reads_its_pdfs_in_one_child(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(4):
        (docs / f"part{n}.pdf").write_bytes(pdf_bytes([[f"{n} Part", *INTRO]]))
    seen: list[float] = []
    before = children_ended()
    index = DocsIndex(Corpus.open(docs), cache_dir=tmp_path / "cache")
    report = index.prepare(lambda done, total: seen.append(children_ended()))
    assert (report.docs, report.skipped) == (4, ())
    assert seen == [before] * 4 and children_ended() > before  # ended once, at the end
    assert [h.path for h in index.search("2 Part", limit=1)] == ["part2.pdf"]
