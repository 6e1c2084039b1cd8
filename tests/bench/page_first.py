"""How often `search_docs`' first section lies on a page that answers: run as a script, so
that the same count can be taken with another version of `agent` on PYTHONPATH.

    python tests/bench/page_first.py QUESTIONS DOCS CACHE   # prints {"agent": ..., "hits": [...]}

It imports only names every version of docsagent's core has had (Corpus, DocsIndex,
load_questions), and prints, for each answerable question in order, whether the first
result's file is one its evidence names.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def page_first(questions: Path, docs: Path, cache: Path) -> list[bool]:
    import agent

    questions_asked = [q for q in agent.load_questions(questions) if q.answerable]
    try:
        corpus = agent.Corpus.open(docs)
    except agent.ConfigError:  # a version that reads none of these files finds nothing
        return [False] * len(questions_asked)
    index = agent.DocsIndex(corpus, cache_dir=cache)
    found = []
    for question in agent.load_questions(questions):
        if question.answerable:
            hits = index.search(question.question, limit=1)
            found.append(bool(hits) and any(e.path == hits[0].path for e in question.evidence))
    index.close()
    return found


if __name__ == "__main__":
    import agent

    questions, docs, cache = (Path(arg) for arg in sys.argv[1:4])
    hits = page_first(questions, docs, cache)
    print(json.dumps({"agent": str(Path(agent.__file__).parent), "hits": hits}))
