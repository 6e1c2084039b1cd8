"""Pure render functions: exact text for each kind of entry and card."""

from __future__ import annotations

import io

from rich.console import Console, RenderableType

from agent.events import Totals, Usage
from tests.hostile_support import finishes
from tui.render import (
    answer_notes,
    call_signature,
    card_text,
    card_view,
    duration,
    entry_text,
    header_text,
    mark_unread,
    preview,
    status_text,
    tokens,
    turn_label,
    unread_note,
)
from tui.state import ViewState
from tui.transcript.entries import Card, NoticeEntry, SystemEntry, UserEntry


def plain(text: RenderableType, width: int = 80) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None, legacy_windows=False)
    console.print(text)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in output.splitlines())


def test_call_signature_is_compact_and_elides_long_values() -> None:
    assert call_signature("list_docs", "{}") == "list_docs()"
    assert call_signature("read_doc", '{"path": "a.md", "start": 3}') == (
        'read_doc(path="a.md", start=3)'
    )
    long = call_signature("grep_docs", '{"keyword": "' + "x" * 60 + '"}')
    assert long == 'grep_docs(keyword="' + "x" * 38 + "…)"
    assert call_signature("grep_docs", "not json") == "grep_docs(not json)"
    assert call_signature("grep_docs", "") == "grep_docs()"


def test_preview_marks_what_it_leaves_out() -> None:
    assert preview("a\nb") == (["a", "b"], None)
    assert preview("\n".join(str(n) for n in range(10))) == (["0", "1", "2", "3"], "… 6 more lines")
    assert preview("1\n2\n3\n4\n5") == (["1", "2", "3", "4"], "… 1 more line")
    head, marker = preview("y" * 2540)
    assert head == ["y" * 199 + "…"] and marker == "… 2,341 more chars"


def test_duration() -> None:
    assert [duration(s) for s in (0.0123, 1.44, 125)] == ["12 ms", "1.4 s", "2 m 05 s"]


def test_card_collapsed_shows_four_lines_and_a_marker() -> None:
    output = "\n".join(f"line {n}" for n in range(1, 62))
    card = Card("c1", "read_doc", '{"path": "a.md"}', output, False, 0.004)
    assert plain(card_text(card)) == "\n".join(
        [
            '▸ read_doc(path="a.md")  4 ms',
            "  line 1",
            "  line 2",
            "  line 3",
            "  line 4",
            "  … 57 more lines",
        ]
    )


def test_card_expanded_shows_everything() -> None:
    card = Card("c1", "list_docs", "{}", "a.md\nb.md\nc.md\nd.md\ne.md", False, 1.5)
    assert plain(card_text(card, expanded=True)) == (
        "▾ list_docs()  1.5 s\n  a.md\n  b.md\n  c.md\n  d.md\n  e.md"
    )


def test_an_expanded_card_wraps_long_lines_under_its_indent() -> None:
    code = "client = httpx.Client(timeout=httpx.Timeout(10.0, connect=60.0), follow_redirects=True)"
    card = Card("c1", "read_doc", '{"path": "a.md"}', f"```python\n{code}\n```", False, 0.002)
    assert plain(card_view(card, expanded=True), width=40) == "\n".join(
        [
            '▾ read_doc(path="a.md")  2 ms',
            "  ```python",
            "  client =",
            "  httpx.Client(timeout=httpx.Timeout(10.",
            "  0, connect=60.0),",
            "  follow_redirects=True)",
            "  ```",
        ]
    )
    assert plain(card_view(card), width=40) == plain(card_text(card), width=40)  # cut with …


def test_card_error_is_labelled_and_red() -> None:
    card = Card("c1", "read_doc", '{"path": "x.md"}', "error: no file x.md", True, 0.001)
    text = card_text(card)
    assert text.plain == '▸ read_doc(path="x.md")  1 ms  error\n  error: no file x.md'
    styles = {str(span.style) for span in text.spans}
    assert "bold white on red" in styles and "red" in styles


def test_card_running() -> None:
    assert card_text(Card("c1", "list_docs", "{}")).plain == "▸ list_docs()  running…"


def test_entries() -> None:
    system = SystemEntry("You answer questions\nabout a folder of documentation.")
    assert entry_text(system, width=30).plain == "system You answer questions a…"
    assert entry_text(UserEntry("how?")).plain == "you how?"
    notice = entry_text(NoticeEntry("error: boom", "error"))
    assert notice.plain == "error: boom" and str(notice.style) == "bold red"
    assert turn_label(2, True).plain == "assistant · step 2  …"
    assert turn_label(2, False).plain == "assistant · step 2"


def test_header_puts_the_run_state_on_the_right() -> None:
    state = ViewState(run="running tool")
    text = header_text(state, docs="/srv/docs", model="gpt-x", mode="", width=60)
    assert text.plain == "docsagent · gpt-x · /srv/docs" + " " * 17 + "● running tool"
    replay = header_text(
        ViewState(run="answered"),
        docs="d",
        model="offline",
        mode="replay",
        width=70,
        extra="event 3 / 9 · 1×",
    )
    assert replay.plain.startswith("docsagent · offline [replay] · d ")
    assert replay.plain.endswith("event 3 / 9 · 1×  ● answered") and len(replay.plain) == 70
    narrow = header_text(state, docs="/" + "d" * 80, model="m", mode="", width=40)
    assert len(narrow.plain) == 40 and narrow.plain.endswith("● running tool")


def test_tokens_mark_estimates() -> None:
    assert tokens(Usage(3742, 666)) == "3,742 in + 666 out = 4,408 tokens"
    assert tokens(Usage(3742, 666, estimated=True)) == "≈3,742 in + 666 out = ≈4,408 tokens"
    assert tokens(Usage(3742, 666, True), short=True) == "≈3,742+666=4,408 tok"


def test_status_bar_wide_and_narrow() -> None:
    state = ViewState(
        max_steps=8, totals=Totals(steps=3, tool_calls=4, usage=Usage(3742, 666)), elapsed_s=2.1
    )
    wide = status_text(state, elapsed_s=None, trace="traces/run.jsonl", width=120)
    assert wide.plain == (
        "step 3/8 · 4 tool calls · 3,742 in + 666 out = 4,408 tokens · 2.1 s · traces/run.jsonl"
    )
    narrow = status_text(state, elapsed_s=None, trace="/long/path/traces/a-run.jsonl", width=70)
    assert narrow.plain == "step 3/8 · 4 tool calls · 3,742+666=4,408 tok · 2.1 s · a-run.jsonl"
    running = status_text(
        ViewState(max_steps=8, totals=Totals(steps=1)), elapsed_s=0.5, trace=None, width=80
    )
    assert running.plain == "step 1/8 · 0 tool calls · 0 in + 0 out = 0 tokens · 500 ms"


def test_status_bar_before_any_run_does_not_claim_a_step_count() -> None:
    empty = status_text(ViewState(), elapsed_s=None, trace=None, width=80)
    assert empty.plain.startswith("not started · 0 tool calls")


def test_status_bar_counts_repeats_and_compaction() -> None:
    totals = Totals(steps=5, tool_calls=4, usage=Usage(3742, 666), repeats=2)
    state = ViewState(max_steps=8, totals=totals, compacted=3, tokens_saved=2400, elapsed_s=2.1)
    wide = status_text(state, elapsed_s=None, trace=None, width=160)
    assert wide.plain == (
        "step 5/8 · 4 tool calls · 2 repeated calls · 3,742 in + 666 out = 4,408 tokens · "
        "compacted: 3 results, −2,400 tok · 2.1 s"
    )
    narrow = status_text(state, elapsed_s=None, trace=None, width=90)
    assert narrow.plain == (
        "step 5/8 · 4 tool calls · 2 repeated · 3,742+666=4,408 tok · compacted −2,400 tok · 2.1 s"
    )


def test_a_repeated_call_says_which_step_has_its_result() -> None:
    card = Card("c3", "grep_docs", '{"keyword":"x"}', "repeat: already called", False, 0.0, 2)
    assert plain(card_text(card)) == (
        '▸ grep_docs(keyword="x")  ↻ repeat of step 2\n  repeat: already called'
    )
    text = card_text(card)
    marked = [text.plain[s.start : s.end] for s in text.spans if s.style == "dim italic"]
    assert marked == ["  ↻ repeat of step 2"]


def test_unread_citations_are_flagged_outside_code() -> None:
    answer = "Set it (a.md:1-3); see b.md:40-50 and `b.md:40-50`, or ~~this~~.\n"
    assert mark_unread(answer, ("b.md:40-50",)) == (
        "Set it (a.md:1-3); see ~~⚠b.md:40-50~~ and `b.md:40-50`, or \\~\\~this\\~\\~.\n"
    )
    fenced = "```\nb.md:40-50 ~~\n```\nthen ./b.md:40-50"
    assert mark_unread(fenced, ("b.md:40-50",)) == "```\nb.md:40-50 ~~\n```\nthen ~~⚠./b.md:40-50~~"
    assert mark_unread(answer, ()) == answer  # nothing unread: the answer as written


def test_the_notes_under_an_answer_name_the_pages_of_its_pdf_citations() -> None:
    pages = ("guide.pdf:9-12 (p. 1–2)", "guide.pdf:4-5 (p. ii)")
    notes = answer_notes((), "answered", pages)
    assert notes.plain == "pages: guide.pdf:9-12 (p. 1–2), guide.pdf:4-5 (p. ii)"
    assert answer_notes((), "answered").plain == ""  # no PDF cited: no note


def test_the_unread_note_names_each_citation() -> None:
    assert unread_note(("b.md:40-50",)).plain == "⚠ cites b.md:40-50, which this run never read"
    two = unread_note(("a.md:1", "b.md:2-3", "c.md:9"))
    assert two.plain == "⚠ cites a.md:1, b.md:2-3 and c.md:9, lines this run never read"


def test_an_answer_of_backtick_runs_is_flagged_at_once() -> None:
    # Runs of backticks each a little longer than the next: 20,000 took 0.4 s, and four
    # times that at twice the length. A run that no later run closes is no code span.
    line = "see " + "`" * 200_000 + " b.md:40-50 " + "`" * 199_999 + " b.md:40-50\n"
    marked = finishes(lambda: mark_unread(line, ("b.md:40-50",)))
    assert marked.count("~~⚠b.md:40-50~~") == 2
    short = "see ``` b.md:40-50 `` b.md:40-50\n"  # ``` pairs up, its last ` is closed by ``
    assert mark_unread(short, ("b.md:40-50",)) == "see ``` b.md:40-50 `` ~~⚠b.md:40-50~~\n"
