from __future__ import annotations

import ast
import graphlib
import importlib.util
import itertools
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in out.stdout.split()}


def test_importing_agent_loads_no_ui_library() -> None:
    import_all = "import agent, agent.config, agent.session, agent.trace, agent.loop, agent.testing"
    modules = loaded_after(import_all)
    assert {"textual", "rich", "typer", "mcp"} & modules == set()


def test_cli_help_does_not_load_textual_or_openai() -> None:
    modules = loaded_after("import tui.cli")
    assert {"textual", "openai", "mcp"} & modules == set()


def test_offline_ask_loads_no_endpoint_client_tui_or_unneeded_module(
    tmp_path: Path, cli_env: Path
) -> None:
    """`ask` with the offline model on Markdown docs loads nothing it does not use."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "timeouts.md").write_text(
        "# Timeouts\n\nThe connect timeout limits the wait for a connection to the server.\n"
    )
    code = (
        "import sys, tui.cli\n"
        "try:\n    tui.cli.main()\n"
        "finally:\n    print('--- modules', *sys.modules, sep='\\n')"
    )
    question = "How long does the connect timeout wait?"
    command = [sys.executable, "-c", code, "ask", question, "--docs", str(docs)]
    out = subprocess.run([*command, "--model", "offline"], capture_output=True, text=True)
    answer, _, listed = out.stdout.partition("--- modules\n")
    modules = set(listed.split())
    assert out.returncode == 0, out.stderr
    assert "timeouts.md" in answer
    assert "agent.models.offline" in modules
    unneeded = {"agent.eval", "agent.export", "agent.rerun", "agent.models.openai", "html.parser"}
    # markdown_it is needed: an answer's citations are read from its prose (agent.tools.prose)
    libraries = {"textual", "openai", "httpx2", "pydantic"}
    assert [name for name in libraries if importlib.util.find_spec(name) is None] == []
    assert (libraries | unneeded) & modules == set()


def test_no_module_under_agent_imports_a_ui_library() -> None:
    """Nor the MCP SDK: `docsagent mcp` is a front end over the core, like the TUI."""
    offenders = []
    for path in (ROOT / "agent").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            ui = [n for n in names if n.split(".")[0] in {"textual", "rich", "typer", "mcp"}]
            offenders += [f"{path.name}: {n}" for n in ui]
    assert offenders == []


def imported_modules(path: Path) -> list[str]:
    """The modules a source file imports, anywhere in it (deferred imports too), as written."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def module_name(path: Path) -> str:
    """`agent/tools/docs.py` -> `agent.tools.docs`; a package's `__init__.py` is the package."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, dict[str, int]]:
    """Each module of agent/ and tui/ -> the modules of agent/ and tui/ it imports, with the
    line of the first such import: at the top, inside a function or under TYPE_CHECKING,
    relative imports resolved, `from package import module` naming the module."""
    paths = {module_name(p): p for top in ("agent", "tui") for p in (ROOT / top).rglob("*.py")}
    graph: dict[str, dict[str, int]] = {}
    for name, path in sorted(paths.items()):
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        graph[name] = {}
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    above = package[: len(package) - node.level + 1]
                    base = ".".join([*above, *([node.module] if node.module else [])])
                targets = [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for target in targets:
                while target and target not in paths:  # a name in a module, or not ours
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].setdefault(target, node.lineno)
    return graph


def test_the_import_graph_has_no_cycle() -> None:
    """A deferred import counts: the modules it ties together can no longer be understood,
    tested or moved one at a time, and importing them works only in one order."""
    graph = import_graph()
    cycle: list[str] = []
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        found = exc.args[1][::-1]  # graphlib lists it from the imported to the importer
        cycle = [f"{a}:{graph[a][b]} imports {b}" for a, b in itertools.pairwise(found)]
    assert cycle == [], "an import cycle:\n" + "\n".join(cycle)


LAYERS: tuple[tuple[str, ...], ...] = (
    ("agent.readers",),
    ("agent.defaults", "agent.errors", "agent.files", "agent.newfile", "agent.atomic")
    + ("agent.messages", "agent.events", "agent.observation"),
    ("agent.search",),
    ("agent.tools",),
    ("agent.models", "agent.testing"),
    ("agent.compaction", "agent.loop", "agent.outcome", "agent.session")
    + ("agent.trace", "agent.ending", "agent.tail", "agent.traces"),
    ("agent.config", "agent.pricing", "agent.eval", "agent.rerun", "agent.export")
    + ("agent.markdown", "agent.markdown_inert", "agent.served", "agent.budget", "agent.docset"),
)
"""The core's layers, lowest first; a module (or a package, for all of its modules) imports
only from its own layer and the layers before it. The readers turn a doc's bytes into lines
and import nothing else of the core; the values every layer passes (defaults, errors, files,
messages, events); search indexes the readers' lines; the tools serve both to a model; the
models; a run, its session and its trace; what the commands use (the factory, eval, rerun,
export, the served tools). Above the core: the `agent` package, which names the public
ones, then `tui/`."""


def layer(module: str) -> int | None:
    """The layer of `module`: its entry in LAYERS (or its package's), the package `agent`
    above them, `tui/` above that; None for a module of the core not in LAYERS."""
    if module == "agent":
        return len(LAYERS)
    if module.split(".")[0] == "tui":
        return len(LAYERS) + 1
    return next(
        (
            rank
            for rank, names in enumerate(LAYERS)
            for name in names
            if module == name or module.startswith(f"{name}.")
        ),
        None,
    )


def test_every_module_has_a_layer_and_imports_none_from_a_higher_one() -> None:
    graph = import_graph()
    ranks = {module: rank for module in graph if (rank := layer(module)) is not None}
    assert [f"{module}: in no layer of LAYERS" for module in graph if module not in ranks] == []
    offenders = [
        f"{module}:{line} imports {imported}"
        for module, imports in graph.items()
        for imported, line in imports.items()
        if ranks[imported] > ranks[module]
    ]
    assert offenders == [], "imports from a higher layer:\n" + "\n".join(offenders)


def test_tui_imports_only_the_agent_package_and_its_public_names() -> None:
    import agent

    private = []
    for path in (ROOT / "tui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                private += [
                    f"{path.name}: import {a.name}"
                    for a in node.names
                    if a.name.split(".")[0] == "agent"
                ]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "agent":
                private += [
                    f"{path.name}: {node.module}.{a.name}"
                    for a in node.names
                    if node.module != "agent" or a.name not in agent.__all__  # type: ignore[attr-defined]
                ]
    assert private == []


def test_no_module_under_agent_imports_names_from_the_package_itself() -> None:
    """`from agent import X` inside the core would run through `agent/__init__` (a cycle)."""
    offenders = [
        f"{path.relative_to(ROOT)}: from agent import ..."
        for path in (ROOT / "agent").rglob("*.py")
        if path.name != "__init__.py"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module == "agent"
    ]
    assert offenders == []


def test_no_module_under_agent_reads_the_environment() -> None:
    """The environment is read at the CLI edge (`tui/commands/options.py`); the core takes
    values."""
    offenders = []
    for path in (ROOT / "agent").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv", "environb"}:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: os.{node.attr}")
            elif isinstance(node, ast.ImportFrom) and node.module == "os":
                names = {a.name for a in node.names} & {"environ", "getenv", "environb"}
                offenders += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names]
    assert offenders == []
