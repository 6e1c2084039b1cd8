"""Pure passage selection for the offline model: split read lines into blocks, score, pick.

Blocks are paragraphs, list items, code blocks, headings and HTML. A passage is one
block grown into the unit a reader would quote: a list with its lead-in paragraph, or
a paragraph with the code example right after it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from agent.textutil import Query, count_terms, doc_name, name_share, text_score

Kind = Literal["heading", "para", "item", "code", "html"]

_FENCE = re.compile(r"^\s*(```|~~~)")
_MD_HEADING = re.compile(r"^#{1,6}\s+(?P<title>.*?)\s*#*\s*$")
_RST_UNDERLINE = re.compile(r"^([=\-~^*#])\1{2,}\s*$")
_ITEM = re.compile(r"^\s{0,3}(?:[*+-]|\d+[.)])\s+")
_KIND_FACTOR: dict[str, float] = {
    "heading": 0.6,
    "para": 1.0,
    "item": 1.0,
    "code": 0.4,
    "html": 0.0,
}
MAX_LINES = 30


@dataclass(frozen=True)
class Block:
    """Consecutive lines of one kind, with the section heading they sit under."""

    start: int
    end: int
    kind: Kind
    text: str
    heading: str = ""
    list_id: int | None = None


@dataclass(frozen=True)
class Passage:
    """The lines chosen to answer from, with their score and query coverage (0 to 1)."""

    path: str
    start: int
    end: int
    blocks: tuple[Block, ...]
    score: float
    coverage: float
    heading: str = ""


def _starts_in_code(lines: Mapping[int, str], first: int) -> bool:
    """Whether a run of read lines from `first` begins inside a fenced code block.

    Its first fence is then a closing one: bare, and followed by an opening fence with
    a language tag, or by prose.
    """
    fences: list[int] = []
    n = first
    while n in lines and len(fences) < 2:
        fences += [n] if _FENCE.match(lines[n]) else []
        n += 1
    if not fences or lines[fences[0]].strip() not in ("```", "~~~"):
        return False
    if len(fences) == 2:
        return lines[fences[1]].strip() not in ("```", "~~~")
    after = next((lines[m] for m in range(fences[0] + 1, n) if lines[m].strip()), "")
    return bool(_MD_HEADING.match(after) or re.match(r"[A-Z][a-z]+ [a-z]", after))


def split_blocks(lines: Mapping[int, str]) -> list[Block]:
    """The blocks of the read lines; a gap in the numbering ends a block and forgets the heading."""
    blocks: list[Block] = []
    current: list[int] = []
    kind: Kind = "para"
    heading, lists, last, fenced = "", 0, -10, False

    def close() -> None:
        nonlocal current, lists
        if current:
            text = "\n".join(lines[n] for n in current)
            list_id = None
            if kind == "item":
                prev = blocks[-1] if blocks else None
                if prev is None or prev.kind != "item" or current[0] - prev.end > 2:
                    lists += 1
                list_id = lists
            blocks.append(Block(current[0], current[-1], kind, text, heading, list_id))
        current = []

    for n in sorted(lines):
        text = lines[n]
        if n != last + 1:
            close()
            heading, fenced = "", _starts_in_code(lines, n)
        last = n
        if fenced:
            kind = "code"
            current.append(n)
            fenced = not _FENCE.match(text)
            if not fenced:
                close()
        elif _FENCE.match(text):
            close()
            current, kind, fenced = [n], "code", True
        elif not text.strip():
            close()
        elif title := _MD_HEADING.match(text):
            close()
            heading = title["title"]
            current, kind = [n], "heading"
            close()
        elif _RST_UNDERLINE.match(text) and current and kind == "para" and len(current) == 1:
            heading = lines[current[0]].strip()
            current.append(n)
            kind = "heading"
            close()
        elif _ITEM.match(text):
            close()
            current, kind = [n], "item"
        elif current:
            current.append(n)
        else:
            current, kind = [n], "html" if text.lstrip().startswith("<") else "para"
    close()
    return blocks


def block_score(block: Block, query: Query, weights: Mapping[str, float]) -> float:
    """A block's score: its text's, scaled by kind, plus a little for its section heading."""
    score = text_score(block.text, query, weights) * _KIND_FACTOR[block.kind]
    in_heading = count_terms(block.heading, tuple(weights))
    return score + 0.3 * sum(weights[t] for t in in_heading) if score else 0.0


def _unit(blocks: list[Block], i: int) -> list[Block]:
    """The blocks a reader would quote around blocks[i]."""
    anchor = blocks[i]

    def attached(a: Block, b: Block) -> bool:
        return b.start - a.end <= 2

    lo = hi = i
    if anchor.kind == "item":
        while lo > 0 and blocks[lo - 1].list_id == anchor.list_id:
            lo -= 1
        while hi + 1 < len(blocks) and blocks[hi + 1].list_id == anchor.list_id:
            hi += 1
        if lo > 0 and blocks[lo - 1].kind == "para" and attached(blocks[lo - 1], blocks[lo]):
            lo -= 1
    elif anchor.kind == "para" and hi + 1 < len(blocks) and attached(anchor, blocks[hi + 1]):
        follower = blocks[hi + 1]
        if follower.kind == "code":
            hi += 1
        elif follower.kind == "item":
            while hi + 1 < len(blocks) and blocks[hi + 1].list_id == follower.list_id:
                hi += 1
    elif anchor.kind == "code" and lo > 0 and blocks[lo - 1].kind == "para":
        lo -= 1 if attached(blocks[lo - 1], anchor) else 0
    unit = blocks[lo : hi + 1]
    while len(unit) > 1 and unit[-1].end - unit[0].start >= MAX_LINES:
        unit = unit[:-1] if unit[-1] is not anchor else unit[1:]
    return unit


def _with_next(blocks: list[Block], unit: list[Block], scores: list[float]) -> list[Block]:
    """A unit of a few lines joined by the relevant unit right after it, if any."""
    following = blocks.index(unit[-1]) + 1
    if unit[-1].end - unit[0].start >= 4 or following >= len(blocks):
        return unit
    nxt = blocks[following]
    if nxt.kind in ("heading", "html") or nxt.start - unit[-1].end > 2:
        return unit
    extra = _unit(blocks, following)
    if extra[0] is not nxt or extra[-1].end - unit[0].start >= MAX_LINES:
        return unit
    return unit + extra if any(scores[blocks.index(b)] > 0 for b in extra) else unit


def _with_example(blocks: list[Block], unit: list[Block], scores: list[float]) -> list[Block]:
    """`unit` grown through the matching code examples that follow it, for how-to questions."""
    examples = any(b.kind == "code" and scores[blocks.index(b)] > 0 for b in unit)
    grown, headings = list(unit), 0
    for j in range(blocks.index(unit[-1]) + 1, len(blocks)):
        block = blocks[j]
        headings += block.kind == "heading"
        if headings > (0 if examples else 1) or block.start - grown[-1].end > 2:
            break
        if block.end - grown[0].start >= MAX_LINES - 5:
            break
        grown.append(block)
        if block.kind == "code" and scores[j] > 0:
            unit = list(grown)
    return unit


def _heading_factor(
    heading: str, query: Query, weights: Mapping[str, float], total: float
) -> float:
    """How much a section heading naming the question's topic (or its task) lifts a passage."""
    if not heading:
        return 1.0
    named = count_terms(heading, tuple(dict.fromkeys(query.phrases + query.terms)))
    share = sum(weights.get(t, 1.0) for t in named) / total
    task = query.wants_how and bool(query.terms) and query.terms[0] in named
    return 1 + 0.3 * share + (0.3 if task else 0.0)


def _opening(blocks: list[Block], lines: Mapping[int, str]) -> int:
    """Where a doc's opening, read from line 1, ends: at its first heading after some prose."""
    read_to = next(n for n in range(1, len(lines) + 2) if n not in lines)
    prose = [b.start for b in blocks if b.kind != "heading"]
    heads = [b.start for b in blocks if b.kind == "heading" and prose and b.start > prose[0]]
    return min([h for h in heads if h < read_to] + [read_to])


def _lift(unit: list[Block], query: Query, title: str, share: float, opening: int) -> float:
    """How much an opening unit gains when it answers in the form asked: an example for
    how-to, a list for which/kinds, or a definition; counted up to a section not the title's.
    """
    ends = [k for k, b in enumerate(unit) if b.kind == "heading" and b.heading != title]
    kinds = {b.kind for b in unit[: min(ends, default=len(unit))]}
    if query.wants_how or query.wants_list:
        ok = "item" in kinds or not query.wants_list
        ok = ok and ("code" in kinds or not query.wants_how)
    else:
        ok = query.wants_definition and "para" in kinds
    return 1 + 0.5 * share * (1 - (unit[0].start - 1) / opening) if ok else 1.0


def best_passage(
    pages: Mapping[str, Mapping[int, str]],
    query: Query,
    weights: Mapping[str, float],
    *,
    priors: Mapping[str, float] | None = None,
    sizes: Mapping[str, int] | None = None,
    titles: Mapping[str, str] | None = None,
) -> Passage | None:
    """The best-scoring unit across the read files, or None when nothing read matches.

    `priors` (0 to 1) favour files the searches pointed at; `sizes` (line counts) let
    earlier passages of a file, where docs introduce a topic, win ties. A doc whose
    name (path and `titles`) names the question's terms is about them in every passage,
    and introduces them in its opening, which its name heads.
    """
    covered_terms = tuple(dict.fromkeys(query.phrases + query.terms))
    topic = {t: weights.get(t, 1.0) for t in covered_terms}
    total = sum(topic.values()) or 1.0
    best: Passage | None = None
    early = 0.4 if query.wants_definition else 0.15
    for path in sorted(pages):
        blocks = split_blocks(pages[path])
        scores = [block_score(b, query, weights) for b in blocks]
        prior = 1 + 0.5 * (priors or {}).get(path, 0.0)
        size = max((sizes or {}).get(path, 0), max(pages[path], default=1))
        title = (titles or {}).get(path, "")
        name = doc_name(path, title)
        share = name_share(name, topic)
        opening = _opening(blocks, pages[path]) if share else 0
        heads = [b.text for b in blocks if b.kind == "heading" and b.heading != title]
        if any(name_share(h, topic) > share for h in heads):
            share = 0.0  # a section names more of the question than the doc's name does
        for i, block in enumerate(blocks):
            if scores[i] <= 0:
                continue
            unit = _unit(blocks, i)
            unit = _with_next(blocks, unit, scores)
            others = max((scores[blocks.index(b)] for b in unit if b is not block), default=0.0)
            if query.wants_how:
                unit = _with_example(blocks, unit, scores)
            score = (scores[i] + 0.5 * others) * prior
            score *= 1 + early * (1 - (unit[0].start - 1) / size)
            kinds = {b.kind for b in unit}
            score *= 1.25 if query.wants_list and "item" in kinds else 1.0
            score *= 1.15 if query.wants_how and "code" in kinds else 1.0
            sections = {unit[0].heading} | {b.heading for b in unit if b.kind == "heading"}
            if unit[0].start < opening:  # the doc's name heads its opening
                sections.add(name)
                score *= _lift(unit, query, title, share, opening)
            score *= max(_heading_factor(h, query, weights, total) for h in sections)
            text = "\n".join([name, unit[0].heading] + [b.text for b in unit])
            found = count_terms(text, covered_terms)
            coverage = sum(topic[t] for t in found) / total
            if best is None or score > best.score:
                start, end = unit[0].start, unit[-1].end
                best = Passage(path, start, end, tuple(unit), score, coverage, unit[0].heading)
    return best
