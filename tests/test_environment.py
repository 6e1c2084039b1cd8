"""The tests clear every environment variable the program reads, found in its code."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PROGRAM_ENV, PROGRAM_PREFIXES

ROOT = Path(__file__).resolve().parent.parent
ENVIRON_TYPES = {"Mapping[str, str]", "Mapping[str, str] | None"}
"""How a parameter that receives the environment is annotated (`env.get(...)` reads it)."""


def _is_environ(node: ast.AST, mappings: set[str]) -> bool:
    """`os.environ`, or a name that holds it."""
    if isinstance(node, ast.Attribute):
        return node.attr == "environ" and isinstance(node.value, ast.Name)
    return isinstance(node, ast.Name) and node.id in mappings


def _key(node: ast.AST, mappings: set[str]) -> ast.expr | None:
    """The key a read of the environment asks for, if `node` is one."""
    if isinstance(node, ast.Subscript) and _is_environ(node.value, mappings):
        return node.slice
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
        return None
    func = node.func
    if func.attr in ("get", "pop", "setdefault") and _is_environ(func.value, mappings):
        return node.args[0]
    if func.attr == "getenv" and isinstance(func.value, ast.Name) and func.value.id == "os":
        return node.args[0]
    return None


def _reads(function: ast.AST, mappings: set[str]) -> Iterator[ast.expr]:
    """The keys `function` reads from the environment."""
    for node in ast.walk(function):
        key = _key(node, mappings)
        if key is not None:
            yield key


def _strings(node: ast.AST) -> list[str]:
    """The string constants of a constant, or of a tuple or list of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [name for item in node.elts for name in _strings(item)]
    return []


def environment_reads(files: list[Path]) -> set[str]:
    """Every variable the code in `files` reads; AssertionError for a read it cannot name."""
    names: set[str] = set()
    by_parameter: dict[str, int] = {}  # a function whose parameter is a variable's name
    trees = [(file, ast.parse(file.read_text(), str(file))) for file in files]
    for file, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "envvar":
                names.update(_strings(node.value))
        functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        for function in functions:
            arguments = [*function.args.args, *function.args.kwonlyargs]
            mappings = {
                a.arg
                for a in arguments
                if a.annotation is not None and ast.unparse(a.annotation) in ENVIRON_TYPES
            }
            for node in ast.walk(function):  # `e = os.environ if ... else ...`
                if isinstance(node, ast.Assign) and any(
                    isinstance(sub, ast.Attribute) and sub.attr == "environ"
                    for sub in ast.walk(node.value)
                ):
                    mappings.update(t.id for t in node.targets if isinstance(t, ast.Name))
            loops = {
                node.target.id: _strings(node.iter)
                for node in ast.walk(function)
                if isinstance(node, (ast.For, ast.comprehension))
                and isinstance(node.target, ast.Name)
                and _strings(node.iter)
            }
            parameters = [a.arg for a in function.args.args]
            for key in _reads(function, mappings):
                if _strings(key):
                    names.update(_strings(key))
                elif isinstance(key, ast.Name) and key.id in loops:
                    names.update(loops[key.id])
                elif isinstance(key, ast.Name) and key.id in parameters:
                    by_parameter[function.name] = parameters.index(key.id)
                else:
                    raise AssertionError(
                        f"{file.name}:{key.lineno}: reads the environment by "
                        f"{ast.unparse(key)!r}; name the variable, or teach this test"
                    )
    for _, tree in trees:  # the names passed to those functions: xdg_home(env, "XDG_...")
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                index = by_parameter.get(node.func.id)
                if index is not None and index < len(node.args):
                    names.update(_strings(node.args[index]))
    return names


def program_files() -> list[Path]:
    """Every module of agent/ and tui/."""
    return sorted([*(ROOT / "agent").rglob("*.py"), *(ROOT / "tui").rglob("*.py")])


def test_the_tests_clear_every_variable_the_program_reads() -> None:
    read = environment_reads(program_files())
    assert {"COLUMNS", "LLM_API_KEY", "OPENAI_MODEL", "XDG_CONFIG_HOME"} <= read  # the finder works
    assert sorted(read) == sorted(PROGRAM_ENV)


def test_a_new_read_of_the_environment_is_found(tmp_path: Path) -> None:
    module = tmp_path / "new.py"
    module.write_text(
        "import os\n"
        "def other(env: dict): return env['NOT_A_VARIABLE']\n"
        "def width(): return os.environ.get('NEW_WIDTH') or os.getenv('NEW_HEIGHT')\n"
        "def folder(env: Mapping[str, str], name): return env[name]\n"
        "def home(env): return folder(env, 'NEW_HOME')\n"
        "def keys(): return [os.environ.get(n) for n in ('NEW_A', 'NEW_B')]\n"
    )
    assert environment_reads([module]) == {"NEW_WIDTH", "NEW_HEIGHT", "NEW_HOME", "NEW_A", "NEW_B"}


def test_a_read_it_cannot_name_fails(tmp_path: Path) -> None:
    module = tmp_path / "new.py"
    module.write_text("import os\ndef width(): return os.environ['NEW_' + 'WIDTH']\n")
    try:
        environment_reads([module])
    except AssertionError as error:
        assert "new.py:2: reads the environment by \"'NEW_' + 'WIDTH'\"" in str(error)
    else:
        raise AssertionError("a read by an expression was not reported")


@pytest.fixture(scope="module")
def module_environment() -> dict[str, str]:
    """The environment as a module-scoped fixture sees it (they run before `environment`)."""
    return dict(os.environ)


def test_a_module_scoped_fixture_sees_no_program_variable(
    module_environment: dict[str, str],
) -> None:
    leaked = [n for n in module_environment if n in PROGRAM_ENV or n.startswith(PROGRAM_PREFIXES)]
    assert [n for n in leaked if not n.startswith("XDG_")] == []


def test_a_developer_setting_reaches_no_module_scoped_fixture() -> None:
    """The test above, run with a variable set the way a developer's shell would."""
    test = (
        f"{Path(__file__).relative_to(ROOT)}::test_a_module_scoped_fixture_sees_no_program_variable"
    )
    env = {**os.environ, "DOCSAGENT_DOCS": "/nonexistent", "LLM_MODEL": "nope"}
    run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test]
    done = subprocess.run(run, cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:]
