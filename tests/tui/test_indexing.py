"""Indexing progress: one rewritten line on a terminal, the header in the TUI."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent.config import Config, build_agent, open_docs
from agent.search.index import IndexReport
from agent.search.store import Progress
from agent.session import Session
from agent.testing import ScriptedModel
from tests.tui.conftest import until
from tui.app import chat_app
from tui.commands.indexing import IndexAhead
from tui.commands.printer import IndexProgress
from tui.messages import IndexProgressed, IndexReady
from tui.render import indexing_label
from tui.screens.chat import ChatScreen
from tui.widgets.header_bar import HeaderBar
from tui.widgets.notice_bar import NoticeBar
from tui.widgets.question_input import QuestionInput


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_one_line_rewritten_on_a_terminal_and_then_cleared() -> None:
    err = Terminal()
    progress = IndexProgress(err)
    for done in range(1, 401):
        progress(done, 400)
    progress.close()
    writes = err.getvalue().split("\r")[1:]
    assert len(writes) == 102  # once per percent from 0 to 100, then the clearing
    assert writes[1] == "indexing the docs: 4 of 400 files (1%)\x1b[K"
    assert writes[-2] == "indexing the docs: 400 of 400 files (100%)\x1b[K"
    assert writes[-1] == "\x1b[K"


def test_progress_writes_nothing_when_not_on_a_terminal() -> None:
    err = io.StringIO()
    progress = IndexProgress(err)
    progress(1, 2)
    progress.close()
    assert err.getvalue() == ""


def test_the_header_label() -> None:
    assert indexing_label(1234, 10000) == "indexing docs 1,234/10,000"


@pytest.mark.asyncio
async def test_the_tui_indexes_as_it_opens_and_shows_a_notice_if_it_must(
    docs: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    config = Config(docs=docs, model="script:x", trace_dir=tmp_path, cache_dir=blocker / "c")
    opened = open_docs(config)
    session = Session(build_agent(config, model=ScriptedModel([]), docs=opened), trace_dir=tmp_path)
    app = chat_app(session, config, index=opened.index)
    async with app.run_test() as pilot:
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        bar = screen.query_one(NoticeBar)
        await until(pilot, lambda: bool(bar.notices))
        assert screen.indexing is None and screen.header_extra() == ""
        (notice,) = bar.notices
        assert notice.startswith(f"cannot keep the search index in {blocker / 'c'} (")
        assert not app._notifications  # a standing notice, not a toast
        assert opened.index is not None and opened.index.prepare().docs == 2


@pytest.mark.asyncio
async def test_the_header_shows_indexing_progress_until_the_index_is_ready(
    docs: Path, tmp_path: Path
) -> None:
    config = Config(docs=docs, model="script:x", trace_dir=tmp_path)
    session = Session(build_agent(config, model=ScriptedModel([])), trace_dir=tmp_path)
    app = chat_app(session, config)
    async with app.run_test(size=(100, 10)) as pilot:
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        screen.post_message(IndexProgressed(1234, 10000))
        await until(pilot, lambda: screen.indexing == (1234, 10000))
        await pilot.pause()
        header = screen.query_one(HeaderBar).render().plain
        assert header.endswith("indexing docs 1,234/10,000  ● idle")
        screen.post_message(IndexReady(None))
        await until(pilot, lambda: screen.indexing is None)
        assert not app._notifications


@pytest.mark.asyncio
async def test_the_first_frame_is_drawn_before_the_index_is_opened(
    docs: Path, tmp_path: Path
) -> None:
    config = Config(docs=docs, model="script:x", trace_dir=tmp_path, cache_dir=tmp_path / "c")
    opened = open_docs(config)
    session = Session(build_agent(config, model=ScriptedModel([]), docs=opened), trace_dir=tmp_path)
    index = opened.index
    assert index is not None
    app = chat_app(session, config, index=index)
    drawn_first: list[bool] = []
    prepare = index.prepare

    def watched(progress: Progress | None = None) -> IndexReport:
        screen = app.screen
        drawn_first.append(
            isinstance(screen, ChatScreen) and screen.query_one(QuestionInput).size.width > 0
        )
        return prepare(progress)

    index.prepare = watched  # type: ignore[method-assign]
    async with app.run_test() as pilot:
        await until(pilot, lambda: bool(drawn_first))
        assert drawn_first[0]  # the question box was laid out when indexing began


@pytest.mark.asyncio
async def test_the_tui_names_the_docs_the_index_could_not_read(docs: Path, tmp_path: Path) -> None:
    (docs / "scan.md").write_bytes(b"\x89PNG\0\0")
    config = Config(docs=docs, model="script:x", trace_dir=tmp_path, cache_dir=tmp_path / "c")
    opened = open_docs(config)
    session = Session(build_agent(config, model=ScriptedModel([]), docs=opened), trace_dir=tmp_path)
    app = chat_app(session, config, index=opened.index)
    async with app.run_test() as pilot:
        bar = app.screen.query_one(NoticeBar)
        await until(pilot, lambda: bool(bar.notices))
        assert list(bar.notices) == ["skipped scan.md: binary"]


@pytest.mark.parametrize("quieted", [False, True])
def test_indexing_ahead_prints_nothing_once_the_session_ended(
    tmp_path: Path, quieted: bool
) -> None:
    """`docsagent mcp`'s last line ("the MCP session ended ...") is never followed by the
    index's own lines: the server quiets the build before it prints that line."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nalpha beta\n")
    config = Config(docs=docs, cache_dir=tmp_path / "cache", trace_dir=tmp_path / "traces")
    err = io.StringIO()
    ahead = IndexAhead([(open_docs(config), "docsagent: index of docs")], err)
    if quieted:
        ahead.quiet()
    ahead.start()
    assert ahead.ready.wait(60)
    assert (err.getvalue() == "") == quieted
    assert quieted or err.getvalue().startswith("docsagent: index of docs: ")
