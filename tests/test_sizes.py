"""The review's figures for the code of agent/ and tui/: no module over 400 lines, no
function over 60, the median module at most 130 (STYLE: split by concept past ~400)."""

from __future__ import annotations

import ast
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULE_LINES = 400
FUNCTION_LINES = 60
MEDIAN_LINES = 130


def modules() -> list[Path]:
    return sorted(p for d in ("agent", "tui") for p in (ROOT / d).rglob("*.py"))


def test_no_module_is_over_400_lines() -> None:
    sizes = {p.relative_to(ROOT).as_posix(): len(p.read_text().splitlines()) for p in modules()}
    assert {name: n for name, n in sizes.items() if n > MODULE_LINES} == {}
    assert statistics.median(sizes.values()) <= MEDIAN_LINES


def test_no_function_is_over_60_lines() -> None:
    long = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)"
        for path in modules()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (length := (node.end_lineno or node.lineno) - node.lineno + 1) > FUNCTION_LINES
    ]
    assert long == []
