from __future__ import annotations

import ast
from pathlib import Path

import agent


def test_all_is_sorted_and_complete() -> None:
    assert agent.__all__ == sorted(agent.__all__)
    for name in agent.__all__:  # a name imported on first use is imported here
        getattr(agent, name)
    public = {name for name in vars(agent) if not name.startswith("_")}
    modules = {name for name in public if type(getattr(agent, name)).__name__ == "module"}
    assert public - modules - {"annotations"} == set(agent.__all__)


def test_names_imported_on_first_use_are_the_ones_mypy_sees() -> None:
    tree = ast.parse(Path(agent.__file__).read_text())
    typing_only = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "typing.TYPE_CHECKING"
    )
    seen = {
        alias.asname or alias.name: (node.module, alias.name)
        for node in typing_only.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert seen == agent._ON_FIRST_USE


def test_an_unknown_name_is_an_attribute_error() -> None:
    assert not hasattr(agent, "Nothing")
