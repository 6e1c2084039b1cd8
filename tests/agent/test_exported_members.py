"""The public names are written once, as the imports in `agent/__init__.py`: `__all__`, the
names imported on first use and the names mypy sees must be one set."""

from __future__ import annotations

import ast
import types
from pathlib import Path

import agent


def exported() -> list[str]:
    """`agent.__all__`, which mypy does not see: it is read from the imports at run time."""
    return agent.__all__  # type: ignore[attr-defined,no-any-return]


def test_every_public_name_resolves_and_nothing_else_is_public() -> None:
    public = exported()
    assert public == sorted(set(public))
    for name in public:  # a name imported on first use is imported here
        getattr(agent, name)
    assert set(public) <= set(dir(agent))
    defined = {name for name in vars(agent) if not name.startswith("_")}
    modules = {name for name in defined if isinstance(getattr(agent, name), types.ModuleType)}
    assert defined - modules - {"annotations"} == set(public)


def mypy_exports(tree: ast.Module) -> set[str]:
    """The names mypy strict exports from a module without `__all__`: its explicit
    re-exports (`from m import X as X`), at the top or under an `if`, and what it defines."""
    statements = [*tree.body]
    statements += [node for each in tree.body if isinstance(each, ast.If) for node in each.body]
    names = set()
    for node in statements:
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            names |= {a.name for a in node.names if a.asname == a.name}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return {name for name in names if not name.startswith("_")}


def test_the_names_mypy_sees_are_the_names_loaded_at_run_time() -> None:
    """An import without `as X`, a rename or a name defined in `__init__.py` fails here."""
    tree = ast.parse(Path(agent.__file__).read_text(encoding="utf-8"))
    assert mypy_exports(tree) == set(exported())


def test_import_star_binds_every_public_name() -> None:
    namespace: dict[str, object] = {}
    exec("from agent import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(exported())


def test_an_unknown_name_is_an_attribute_error() -> None:
    assert not hasattr(agent, "Nothing")
