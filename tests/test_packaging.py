from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

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
    assert "docsagent_data/english/words.txt" in names  # the offline model's plain English
    styles = {f"tui/{p.relative_to(ROOT / 'tui').as_posix()}" for p in ROOT.glob("tui/**/*.tcss")}
    assert styles <= names
    assert any(n.endswith("entry_points.txt") for n in names)
    code = [*ROOT.glob("agent/**/*.py"), *ROOT.glob("tui/**/*.py")]
    assert {p.relative_to(ROOT).as_posix() for p in code} <= names


def test_the_default_docs_are_the_bundled_manual() -> None:
    from agent.config import default_docs

    assert (default_docs() / "index.md").is_file()


def test_constraints_pin_every_dependency_within_its_declared_bounds() -> None:
    """`make run` and `make test` install from constraints.txt: it must hold each package
    pyproject.toml names, at a version pyproject.toml allows (`make lock` rewrites it)."""
    from packaging.requirements import Requirement

    tomllib = pytest.importorskip("tomllib")  # Python 3.11 on

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = [Requirement(r) for r in project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        declared += [Requirement(r) for r in extra if Requirement(r).name != project["name"]]
    pinned: dict[str, list[str]] = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        pin = line.split("#")[0].split(";")[0].strip()
        if pin:
            name, _, version = pin.partition("==")
            pinned.setdefault(name.lower().replace("_", "-"), []).append(version)
    outside = [
        f"{req}: {pinned.get(req.name.lower(), 'not pinned')}"
        for req in declared
        if not pinned.get(req.name.lower())
        or not all(req.specifier.contains(v) for v in pinned[req.name.lower()])
    ]
    assert outside == []
