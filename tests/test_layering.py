from __future__ import annotations

import ast
import importlib.util
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


LAYERS = ("agent.readers", "agent.search", "agent.tools")
"""The core's lower layers, lowest first: the readers turn a doc's bytes into lines, search
indexes those lines, the tools serve both to the model. A layer imports only from itself
and the layers before it."""


def imported_modules(path: Path) -> list[str]:
    """The modules a source file imports, anywhere in it (deferred imports too)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def test_no_module_imports_one_from_a_higher_layer() -> None:
    offenders = []
    for rank, layer in enumerate(LAYERS):
        higher = LAYERS[rank + 1 :]
        for path in sorted((ROOT / layer.replace(".", "/")).rglob("*.py")):
            offenders += [
                f"{path.relative_to(ROOT)}: {name}"
                for name in imported_modules(path)
                if any(name == h or name.startswith(f"{h}.") for h in higher)
            ]
    assert offenders == []


def test_the_readers_import_nothing_else_of_the_core() -> None:
    """The bottom layer: a reader needs only the standard library and its own package."""
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted((ROOT / "agent" / "readers").rglob("*.py"))
        for name in imported_modules(path)
        if name.split(".")[0] == "agent" and not name.startswith("agent.readers")
    ]
    assert offenders == []


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
                    if node.module != "agent" or a.name not in agent.__all__
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
