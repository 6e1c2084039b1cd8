"""Compaction benchmark (`make bench`): prompt tokens of a long run with and without it.

A scripted 30-step run reads a different 80-line page of a long doc at each step; the
prompt tokens the model is sent over the whole run, with the default compaction, as a
share of the same run without it. Goal: at most 40%.
"""

from __future__ import annotations

from pathlib import Path

from agent.config import Config, build_agent
from agent.events import ModelReplied, RunFinished
from agent.testing import ScriptedModel, call, reply

STEPS = 30


def prompt_tokens(docs: Path, *, compact: bool) -> tuple[int, str | None]:
    turns = [
        reply(None, call("read_doc", {"path": "long.md", "start": 1 + 80 * k, "end": 80 + 80 * k}))
        for k in range(STEPS - 1)
    ]
    model = ScriptedModel([*turns, reply("done (long.md:1-80)")])
    config = Config(docs=docs, model="script", max_steps=STEPS, compact=compact)
    events = list(build_agent(config, model=model).run("What does long.md say?"))
    total = sum(e.usage.prompt_tokens for e in events if isinstance(e, ModelReplied))
    final = events[-1]
    return total, final.answer if isinstance(final, RunFinished) else None


def test_compaction_keeps_a_long_run_small(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    line = "Each line of this page says something about connection pools and timeouts."
    (docs / "long.md").write_text(
        "\n".join(f"{n}. {line}" for n in range(1, 80 * STEPS + 1)) + "\n"
    )
    without, answer_without = prompt_tokens(docs, compact=False)
    with_compaction, answer_with = prompt_tokens(docs, compact=True)
    share = with_compaction / without
    print(
        f"\ncompaction: {STEPS}-step scripted run, prompt tokens {with_compaction:,} with vs "
        f"{without:,} without = {share:.0%} (goal <= 40%); same answer: "
        f"{answer_with == answer_without}"
    )
    assert answer_with == answer_without
    assert share <= 0.40
