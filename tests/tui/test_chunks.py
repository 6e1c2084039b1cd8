"""Cutting a turn's text into chunks that render on their own (pure, no app)."""

from __future__ import annotations

from tui.transcript.chunks import CHUNK_CHARS, FORCE_CHARS, MARKDOWN_CHARS, Chunks, chunks


def paragraphs(count: int) -> str:
    return "".join(f"Paragraph {n} " + "word " * 40 + "\n\n" for n in range(count))


def test_a_short_text_is_one_markdown_chunk() -> None:
    assert [(c.text, c.markdown) for c in chunks("Hello **there**.")] == [
        ("Hello **there**.", True)
    ]


def test_chunks_join_back_to_the_text_and_end_at_blank_lines() -> None:
    text = paragraphs(60)
    cut = chunks(text)
    assert "".join(c.text for c in cut) == text
    assert len(cut) > 3
    for chunk in cut[:-1]:
        assert chunk.text.endswith("\n\n") and len(chunk.text) >= CHUNK_CHARS


def test_growing_a_text_piece_by_piece_cuts_it_as_seen_whole() -> None:
    text = paragraphs(30) + "```python\n" + "x = 1\n\n" * 300 + "```\n\nThe end."
    growing = Chunks()
    for end in range(0, len(text) + 7, 7):
        growing.extend(text[:end])
    assert growing.of(text) == chunks(text)


def test_a_code_fence_is_not_cut_at_its_blank_lines() -> None:
    code = "```python\n" + "x = 1\n\n" * 200 + "```\n"
    cut = chunks("Intro.\n\n" + code + "\nAfter.\n")
    fenced = [c for c in cut if "x = 1" in c.text]
    assert len(fenced) == 1 and fenced[0].text.count("```") == 2


def test_past_the_markdown_limit_the_rest_is_plain_text() -> None:
    text = paragraphs(400)
    cut = chunks(text)
    markdown = "".join(c.text for c in cut if c.markdown)
    assert MARKDOWN_CHARS <= len(markdown) < MARKDOWN_CHARS + FORCE_CHARS
    assert not cut[-1].markdown
    assert [c.markdown for c in cut] == sorted((c.markdown for c in cut), reverse=True)


def test_one_endless_line_is_still_cut() -> None:
    text = "x" * (FORCE_CHARS * 5 + 3)
    cut = chunks(text)
    assert "".join(c.text for c in cut) == text
    assert max(len(c.text) for c in cut) <= FORCE_CHARS * 2


def test_the_note_says_how_much_is_plain_and_how_much_is_not_drawn() -> None:
    from tui.transcript.pieces import plain_note

    assert plain_note(5_000).plain == (
        "… past 20,000 characters the text is shown as plain text, so the screen keeps up: "
        "5,000 more characters"
    )
    assert plain_note(5_000_000, 4_600_000).plain.endswith(
        "5,000,000 more characters; the last 4,600,000 are not drawn (ctrl+y copies the whole text)"
    )
