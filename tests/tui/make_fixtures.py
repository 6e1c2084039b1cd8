"""Regenerate the trace fixtures the TUI tests replay: `python tests/tui/make_fixtures.py`.

Each fixture is a real run of a scripted model through `Session` over a small docs
folder (written to a temporary folder and named `docs` in the trace header).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent.config import Config, build_agent  # noqa: E402
from agent.errors import AgentError, ModelError, ServerError  # noqa: E402
from agent.messages import Message  # noqa: E402
from agent.session import Session  # noqa: E402
from agent.testing import ScriptedModel  # noqa: E402
from tests.tui.conftest import CLIENTS, TIMEOUTS, timeout_script  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"


def record(name: str, question: str, turns: Sequence[Message | ModelError]) -> Path:
    """Run `question` against `turns` and save the trace as tests/fixtures/<name>.jsonl."""
    target = FIXTURES / f"{name}.jsonl"
    config = Config(docs=Path("docs"), model="script:fixture", trace_dir=FIXTURES)
    model = ScriptedModel(turns, name="scripted")
    session = Session(build_agent(config, model=model), trace_dir=FIXTURES, trace_path=target)
    with contextlib.suppress(AgentError):
        for _ in session.ask(question):
            pass
    return target


def cut(source: Path, target: Path, *, keep_lines: int) -> Path:
    """A copy of `source` that stops partway through line `keep_lines + 1`."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    target.write_text("".join(lines[:keep_lines]) + lines[keep_lines][:25], encoding="utf-8")
    return target


def main() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        (Path("docs") / "advanced").mkdir(parents=True)
        (Path("docs") / "advanced" / "timeouts.md").write_text(TIMEOUTS, encoding="utf-8")
        (Path("docs") / "clients.md").write_text(CLIENTS, encoding="utf-8")
        answered = record("answered", "What is the default timeout?", timeout_script())
        record(
            "error", "What is the default timeout?", [ServerError("the server kept failing (503)")]
        )
        cut(answered, FIXTURES / "interrupted.jsonl", keep_lines=12)
    for path in sorted(FIXTURES.glob("*.jsonl")):
        print(path.relative_to(ROOT))


if __name__ == "__main__":
    main()
