"""CONTRIBUTING.md's layout map names every module of agent/ and tui/, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENTRY = re.compile(r"( *)(\S+)")


def mapped() -> dict[str, int]:
    """Each path the map names (`agent/tools/docs.py`), with its line in CONTRIBUTING.md."""
    lines = (ROOT / "CONTRIBUTING.md").read_text().splitlines()
    start = lines.index("```", lines.index("## The layout")) + 1
    names: dict[str, int] = {}
    folders: list[tuple[int, str]] = []  # (indent, folder) of the lines above
    for number, line in enumerate(lines[start : lines.index("```", start)], start + 1):
        found = ENTRY.match(line)
        if found is None:
            continue
        indent, name = len(found[1]), found[2]
        while folders and folders[-1][0] >= indent:
            folders.pop()
        path = "".join(folder for _, folder in folders) + name
        if name.endswith("/"):
            folders.append((indent, name))
        else:
            names[path] = number
    return names


def modules() -> list[str]:
    """Every module of agent/ and tui/ but the `__init__.py` that only marks a package."""
    found = [
        p.relative_to(ROOT).as_posix() for d in ("agent", "tui") for p in (ROOT / d).rglob("*.py")
    ]
    return sorted(m for m in found if not m.endswith("__init__.py") or m == "agent/__init__.py")


def hint(module: str) -> str:
    folder, name = module.rsplit("/", 1)
    return f"{module}: add a line `{'  ' * module.count('/')}{name}  what it holds` under {folder}/"


def test_every_module_has_its_line_in_the_layout_map() -> None:
    names = mapped()
    missing = [hint(module) for module in modules() if module not in names]
    assert missing == [], "CONTRIBUTING.md's layout map does not name:\n" + "\n".join(missing)


def test_the_layout_map_names_no_module_that_is_not_there() -> None:
    gone = [
        f"{path} (CONTRIBUTING.md line {line})"
        for path, line in mapped().items()
        if path.startswith(("agent/", "tui/")) and not (ROOT / path).is_file()
    ]
    assert gone == [], "CONTRIBUTING.md's layout map names modules that do not exist"
