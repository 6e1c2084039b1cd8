"""The small docs folders tests write: `docs_folder` and the pages several tests share."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

REPLAY_PAGE = "# Replay\n\nRun `docsagent replay FILE` to watch a saved run again.\n"
"""replay.md: its line 3 says how to replay a run (the scripted runs in cli_support cite it)."""

EVAL_PAGES = {
    "replay.md": REPLAY_PAGE + "Add `--speed 2` to play it twice as fast.\n",
    "install.md": (
        "# Install\n\nInstall with `pip install docsagent`.\n\n"
        "## Upgrade\n\nUpgrade with `pip install --upgrade docsagent`.\n"
    ),
}
"""Two pages that answer the eval tests' questions (replay, upgrade; not bread)."""


def docs_folder(root: Path, pages: Mapping[str, str]) -> Path:
    """`root`, made, holding `pages` (file name: text)."""
    root.mkdir()
    for name, text in pages.items():
        (root / name).write_text(text)
    return root
