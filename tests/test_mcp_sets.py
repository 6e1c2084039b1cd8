"""Several named doc sets with versions in one `docsagent mcp`, through the SDK's client."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

mcp = pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install '.[mcp]')")
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 60  # a bound on a hang, never a wait


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content)


@pytest.fixture
def versions(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "lib-1" / "docs", tmp_path / "lib-2" / "docs"
    old.mkdir(parents=True)
    new.mkdir(parents=True)
    (old / "index.md").write_text("# Lib\n\n## Timeouts\n\nThe default timeout is 5 seconds.\n")
    (new / "index.md").write_text("# Lib\n\n## Timeouts\n\nThe default timeout is 30 seconds.\n")
    (new.parent / "pyproject.toml").write_text('[project]\nname = "lib"\nversion = "2.0.0"\n')
    return old, new


async def run(args: list[str], tmp_path: Path, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "import tui.cli; tui.cli.main()", "mcp", *args],
        env={
            "DOCSAGENT_CACHE_DIR": os.environ["DOCSAGENT_CACHE_DIR"],
            "DOCSAGENT_TRACE_DIR": str(tmp_path / "traces"),
        },
        cwd=ROOT,
    )
    with anyio.fail_after(TIMEOUT_S):
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            started = await session.initialize()
            tools = (await session.list_tools()).tools
            results = [await session.call_tool(name, arguments) for name, arguments in calls]
    return started, tools, results


@pytest.mark.asyncio
async def test_two_versions_of_one_set_answer_differently_and_say_which(
    versions: tuple[Path, Path], tmp_path: Path
) -> None:
    old, new = versions
    question = {"query": "default timeout"}
    started, tools, results = await run(
        ["--docs", f"lib@1.0={old}", "--docs", f"lib={new}"],
        tmp_path,
        [
            ("search_docs", question),
            ("search_docs", {**question, "set": "lib@1.0"}),
            ("search_docs", {**question, "set": "lib@2.0.0"}),
            ("read_doc", {"path": "index.md", "start": 5, "end": 5, "set": "lib@2.0.0"}),
            ("search_docs", {**question, "set": "lib@3"}),
        ],
    )
    assert "lib@1.0: Lib, version 1.0; lib@2.0.0: Lib, version 2.0.0" in started.instructions
    (search,) = (t for t in tools if t.name == "search_docs")
    assert search.input_schema["properties"]["set"]["enum"] == ["lib@1.0", "lib@2.0.0"]
    both, one, two, read, unknown = results
    assert "[set lib@1.0]\n" in text_of(both) and "[set lib@2.0.0]\n" in text_of(both)
    assert text_of(one).startswith("[set lib@1.0] ") and "5 seconds" in text_of(one)
    assert text_of(two).startswith("[set lib@2.0.0] ") and "30 seconds" in text_of(two)
    assert "30 seconds" not in text_of(one) and "5 seconds" not in text_of(two)
    assert text_of(read) == (
        "[set lib@2.0.0] index.md lines 5-5 of 5\n   5| The default timeout is 30 seconds."
    )
    assert unknown.is_error and "the sets are lib@1.0, lib@2.0.0" in text_of(unknown)


@pytest.mark.asyncio
async def test_one_set_is_served_as_before_and_named_in_the_instructions(
    versions: tuple[Path, Path], tmp_path: Path
) -> None:
    _, new = versions
    started, tools, (found,) = await run(
        ["--docs", str(new)], tmp_path, [("search_docs", {"query": "default timeout"})]
    )
    assert started.instructions.startswith(
        "Search and read a local documentation folder: Lib (docs 2.0.0). Start with search_docs"
    )
    assert "set" not in tools[0].input_schema["properties"]
    assert text_of(found).startswith("1 best section for default, timeout:")
