"""The docs tools on names and folders built to break them: bytes that are not UTF-8,
control characters, folders a thousand deep and paths too long to open."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.events import RunFinished
from agent.loop import Agent
from agent.tools.corpus import Corpus
from agent.tools.docs import DocsContext, docs_registry
from tests.agent.openai_support import Factory
from tests.agent.test_hostile_docs import call
from tests.chatserver import Call, ChatServer, Reply


def test_file_names_that_are_not_utf8_or_not_printable_are_shown_escaped(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    names = {
        b"caf\xe9.md": "caf\\xe9.md",  # Latin-1, not UTF-8
        b"new\nline.md": "new\\x0aline.md",
        b"\x1b]0;PWNED\x07.md": "\\x1b]0;PWNED\\x07.md",
        b"back\\slash.md": "back\\\\slash.md",
        "café.md".encode(): "café.md",
    }
    for raw in names:
        with open(os.path.join(os.fsencode(docs), raw), "wb") as f:
            f.write(b"# Notes\nthe keyword\n")
    ctx = DocsContext(Corpus.open(docs))
    shown = sorted(names.values())
    assert call(ctx, "list_docs", {}) == (
        "\n".join(f"{name}  (2 lines)  Notes" for name in shown),
        False,
    )
    assert call(ctx, "grep_docs", {"keyword": "keyword"}) == (
        "\n".join(f"{name}:2: the keyword" for name in shown),
        False,
    )
    for name in shown:  # each readable by the name it is shown under
        assert call(ctx, "read_doc", {"path": name}) == (
            f"{name} lines 1-2 of 2\n   1| # Notes\n   2| the keyword",
            False,
        )
    assert call(ctx, "read_doc", {"path": "caf\udce9.md"})[0].startswith("caf\\xe9.md lines 1-2")
    assert call(ctx, "grep_docs", {"keyword": "x\udce9"}) == (
        "no matches for 'x\\xe9' in 5 docs; try another keyword or call list_docs",
        False,
    )


def test_a_name_that_is_not_utf8_reaches_an_endpoint_escaped(
    tmp_path: Path, chat_server: ChatServer, make: Factory
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    with open(os.path.join(os.fsencode(docs), b"caf\xe9.md"), "wb") as f:
        f.write(b"# Caf\xc3\xa9\n")
    chat_server.push(Reply(calls=[Call("list_docs", "{}")]), Reply(content="Done."))
    agent = Agent(make(), docs_registry(), context=[DocsContext(Corpus.open(docs))])
    final = list(agent.run("Which docs?"))[-1]
    assert isinstance(final, RunFinished) and final.stop_reason == "answered"
    sent = chat_server.requests[-1]["messages"][-1]
    assert sent["role"] == "tool" and sent["content"] == "caf\\xe9.md  (1 lines)  Café"


def _deep(root: Path, levels: int, name: str) -> Path:
    """A folder `levels` deep under root (made by descriptor, so any length is possible)."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir(name, dir_fd=fd)
            fd, parent = os.open(name, os.O_RDONLY, dir_fd=fd), fd
            os.close(parent)
        with open(os.open("deep.md", os.O_WRONLY | os.O_CREAT, dir_fd=fd), "w") as f:
            f.write("# Deep\nthe bottom\n")
    finally:
        os.close(fd)
    return root / name


def _remove_deep(top: Path, name: str) -> None:
    """Remove a folder made by `_deep` from the bottom up, without recursion."""
    fds = [os.open(top, os.O_RDONLY)]
    while name in os.listdir(fds[-1]):
        fds.append(os.open(name, os.O_RDONLY, dir_fd=fds[-1]))
    os.unlink("deep.md", dir_fd=fds[-1])
    for child, parent in zip(reversed(fds[1:]), reversed(fds[:-1]), strict=True):
        os.close(child)
        os.rmdir(name, dir_fd=parent)
    os.close(fds[0])
    top.rmdir()


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A folder on a RAM file system when there is one: removing a thousand nested
    folders takes seconds on a disk that discards each freed block."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="docsagent-test-", dir=shm))
    try:
        yield path
    finally:
        shutil.rmtree(path)


def test_very_deep_folders_are_walked_and_overlong_paths_skipped_with_a_count(
    scratch: Path,
) -> None:
    docs = scratch / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\nAt the top.\n")
    deep = _deep(docs, 1100, "d")
    long = _deep(docs, 25, "x" * 200)  # past the 4,096-character limit on a path
    try:
        ctx = DocsContext(Corpus.open(docs))
        assert call(ctx, "list_docs", {}) == (
            f"(skipped {'x' * 39}…{'x' * 38}/: its path is too long to open)\n"
            + "d/" * 1100
            + "deep.md  (2 lines)  Deep\nguide.md  (2 lines)  Guide",
            False,
        )
        assert call(ctx, "grep_docs", {"keyword": "the bottom"}) == (
            "d/" * 1100 + "deep.md:2: the bottom",
            False,
        )
    finally:
        _remove_deep(deep, "d")
        _remove_deep(long, "x" * 200)
