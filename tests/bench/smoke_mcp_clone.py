"""From a fresh clone to a coding agent's docs server, as a new user goes (`make bench`).

1. `git clone` this checkout's HEAD, then the install `make run` does (`.venv`, with
   the mcp extra);
2. `docsagent mcp --config claude-code` and `--config claude-desktop`: the MCP Inspector
   CLI (npm) starts the printed command with a PATH that holds no venv, lists the tools
   and calls `search_docs`;
3. `uv tool install '.[mcp]'` from the clone into a scratch tool folder: the installed
   `docsagent` prints its own path in `--config cursor`, which the Inspector starts too.

Target: every step works. Exits 1 when one fails, 0 (saying so) when npx is missing.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MINIMAL_PATH = "/usr/bin:/bin"  # npx and node, no virtual environment
QUESTION = "How do I replay a trace?"


def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise SystemExit(f"FAILED: {shlex.join(command)}\n{done.stderr[-3000:]}")
    return done  # type: ignore[no-any-return]


def inspector(command: list[str], home: Path, *method: str) -> dict[str, object]:
    """The Inspector CLI's JSON for one method against the server `command` starts."""
    cache = os.environ.get("npm_config_cache") or str(Path.home() / ".npm")  # noqa: SIM112
    env = {"PATH": MINIMAL_PATH, "HOME": str(home), "npm_config_cache": cache}  # npm's own cache
    done = run(
        ["npx", "-y", "@modelcontextprotocol/inspector", "--cli", *command, *method],
        env=env,
        cwd=home,
        timeout=600,
    )
    data: dict[str, object] = json.loads(done.stdout)
    return data


def check_server(label: str, command: list[str], home: Path) -> None:
    listed = inspector(command, home, "--method", "tools/list")
    names = [tool["name"] for tool in listed["tools"]]  # type: ignore[attr-defined]
    assert "search_docs" in names and "read_doc" in names, names
    found = inspector(
        command, home, "--method", "tools/call", "--tool-name", "search_docs",
        "--tool-arg", f"query={QUESTION}",
    )  # fmt: skip
    text = found["content"][0]["text"]  # type: ignore[index]
    assert not found["isError"] and "traces-and-replay.md" in text, text
    print(f"  {label}: the Inspector listed {len(names)} tools and called search_docs")


def main() -> int:
    if shutil.which("npx") is None or shutil.which("git") is None:
        print("smoke_mcp_clone: skipped: npx or git is missing")
        return 0
    print("fresh clone → make run's install → --config → MCP Inspector (target: every step works)")
    with tempfile.TemporaryDirectory(prefix="docsagent-clone-") as scratch:
        base = Path(scratch)
        home = base / "home"
        home.mkdir()
        clone = base / "docsagent"
        run(["git", "clone", "--quiet", str(ROOT), str(clone)])
        began = time.perf_counter()
        run(["make", "-C", str(clone), ".venv/.installed-runtime"])  # what `make run` installs
        print(f"  make run's install: {time.perf_counter() - began:.0f} s")
        script = clone / ".venv" / "bin" / "docsagent"
        manual = clone / "data" / "manual"
        line = run([str(script), "mcp", "--config", "claude-code", "--docs", str(manual)]).stdout
        words = shlex.split(line)
        assert words[:5] == ["claude", "mcp", "add", "docs", "--"], line
        assert words[5] == str(script), line
        check_server("--config claude-code", words[5:], home)
        desktop = run([str(script), "mcp", "--config", "claude-desktop"]).stdout
        server = json.loads(desktop)["mcpServers"]["docs"]
        check_server("--config claude-desktop", [server["command"], *server["args"]], home)
        tools, bin_dir = base / "uv-tools", base / "uv-bin"
        env = {**os.environ, "UV_TOOL_DIR": str(tools), "UV_TOOL_BIN_DIR": str(bin_dir)}
        uv = Path(sys.executable).with_name("uv")
        run([str(uv), "tool", "install", "--quiet", f"{clone}[mcp]"], env=env, cwd=base)
        installed = bin_dir / "docsagent"
        cursor = json.loads(run([str(installed), "mcp", "--config", "cursor"], cwd=base).stdout)
        server = cursor["mcpServers"]["docs"]
        assert server["command"] == str(installed), server
        check_server("uv tool install, --config cursor", [server["command"], *server["args"]], home)
    print("smoke_mcp_clone: every step works")
    return 0


if __name__ == "__main__":
    sys.exit(main())
