"""Core benchmarks: `make bench`. Each reports a ratio measured in one run.

- grep_docs over a corpus 8x larger should cost about 8x (linear, no blow-up);
- reading a 2,000-step trace should cost about 10x a 200-step one, and its memory
  should stay within a small multiple of the file size.
"""

from __future__ import annotations

import shutil
import time
import tracemalloc
from pathlib import Path

import pytest

from agent.loop import Agent
from agent.session import Session
from agent.testing import ScriptedModel, call, reply
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
from agent.trace import read_trace

HTTPX_DOCS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "httpx-docs"


def best_of(runs: int, fn: object) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return min(times)


def corpus_copies(tmp_path: Path, copies: int) -> Corpus:
    root = tmp_path / f"x{copies}"
    for n in range(copies):
        shutil.copytree(HTTPX_DOCS, root / f"copy{n}")
    corpus = Corpus.open(root)
    for rel in corpus.paths():
        corpus.doc(rel)  # warm the cache: measure searching, not disk
    return corpus


@pytest.mark.skipif(not HTTPX_DOCS.is_dir(), reason="../shared/corpora/httpx-docs is absent")
def test_grep_scales_linearly_with_corpus_size(tmp_path: Path) -> None:
    registry = docs_registry()
    small = [DocsContext(corpus_copies(tmp_path, 1))]
    large = [DocsContext(corpus_copies(tmp_path, 8))]
    t1 = best_of(5, lambda: registry.call("grep_docs", '{"keyword": "timeout"}', small))
    t8 = best_of(5, lambda: registry.call("grep_docs", '{"keyword": "timeout"}', large))
    ratio = t8 / t1
    print(
        f"\ngrep_docs: 1x corpus {t1 * 1000:.2f} ms, 8x corpus {t8 * 1000:.2f} ms, "
        f"ratio {ratio:.1f}"
    )
    assert ratio < 16


def record_trace(tmp_path: Path, steps: int) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "a.md").write_text("# A\n" + "text line\n" * 50)
    turns = [  # distinct arguments each step: a repeated call would end the run early
        reply(None, call("read_doc", {"path": "a.md", "start": 1, "end": n}))
        for n in range(1, steps)
    ]
    model = ScriptedModel([*turns, reply("done")])
    agent = Agent(model, docs_registry(), context=[DocsContext(Corpus.open(docs))], max_steps=steps)
    session = Session(agent, trace_dir=tmp_path, trace_path=tmp_path / f"run{steps}.jsonl")
    for _ in session.ask("q"):
        pass
    return tmp_path / f"run{steps}.jsonl"


def test_trace_reading_is_linear_and_lean(tmp_path: Path) -> None:
    small, large = record_trace(tmp_path, 200), record_trace(tmp_path, 2000)
    t_small = best_of(3, lambda: read_trace(small))
    t_large = best_of(3, lambda: read_trace(large))
    tracemalloc.start()
    read_trace(large)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    size = large.stat().st_size
    assert len(read_trace(large).events) > 6 * 2000  # the whole run was recorded
    print(
        f"\nread_trace: 200 steps {t_small * 1000:.1f} ms, 2,000 steps {t_large * 1000:.1f} ms, "
        f"ratio {t_large / t_small:.1f}; peak memory {peak / size:.1f}x the file "
        f"({size / 1e6:.1f} MB)"
    )
    assert t_large / t_small < 20
    assert peak / size < 15
