from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_carries_the_manual_samples_and_styles(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
         "-q", "-w", str(tmp_path)],
        check=True, capture_output=True, cwd=tmp_path,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("docsagent-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    pages = {f"docsagent_data/manual/{p.name}" for p in (ROOT / "data" / "manual").glob("*.md")}
    assert len(pages) >= 8
    assert pages <= names
    assert "docsagent_data/samples/script.json" in names
    styles = {f"tui/{p.relative_to(ROOT / 'tui').as_posix()}" for p in ROOT.glob("tui/**/*.tcss")}
    assert styles <= names
    assert any(n.endswith("entry_points.txt") for n in names)
    code = [*ROOT.glob("agent/**/*.py"), *ROOT.glob("tui/**/*.py")]
    assert {p.relative_to(ROOT).as_posix() for p in code} <= names


def test_the_default_docs_are_the_bundled_manual() -> None:
    from agent.config import default_docs

    assert (default_docs() / "index.md").is_file()
