"""A served search waits for the index being built, and says so; other tools do not wait."""

from __future__ import annotations

import threading
from pathlib import Path

from agent import ServedTools, ToolOutcome, docs_registry, open_docs
from agent.config import Config

ROOT = Path(__file__).resolve().parents[2]


def test_a_search_waits_for_the_index_and_says_it_did(tmp_path: Path) -> None:
    indexed = threading.Event()
    docs = open_docs(Config(docs=ROOT / "data" / "manual", cache_dir=None))
    served = ServedTools(
        docs_registry(), [docs], trace_dir=tmp_path, docs="manual", indexed=indexed
    )
    listed = served.call("list_docs", {})  # reads the files: no wait
    assert not listed.error and "waited" not in listed.output
    found: list[ToolOutcome] = []
    searching = threading.Thread(
        target=lambda: found.append(served.call("search_docs", {"query": "replay"}))
    )
    searching.start()
    while served.path.read_text().count("tool_start") < 2:  # the search has started
        searching.join(0.01)
    assert not found  # still waiting for the index
    indexed.set()
    searching.join()
    (result,) = found
    assert not result.error and "traces-and-replay.md:" in result.output
    assert result.output.splitlines()[-1].startswith("(waited ")
    assert result.output.endswith(" s for the search index to be built)")
    after = served.call("search_docs", {"query": "replay"})
    assert "waited" not in after.output
    served.close("done")
