"""Pure scoring helpers of the offline model: weigh terms, rank files, plan searches and reads."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from agent.evidence import DocInfo, GrepResult
from agent.passages import Passage
from agent.textutil import Query, count_terms, doc_name, name_share, stem

_HEADING = re.compile(r"^#{2,6}\s")
NAMED = 0.5
"""The share of the question's weight a doc's name must hold to name its main topic."""


def term_weights(
    keywords: Sequence[str],
    greps: Mapping[str, GrepResult],
    n_docs: int,
    *,
    bigrams: Sequence[str] = (),
) -> dict[str, float]:
    """IDF-like weights: rare across files is heavy; unseen terms weigh like the rarest seen.

    A capped search counts the files its per-doc list names; without that list the
    number of files is extrapolated from the files among the hits shown (a search cut
    short by truncation is taken to have had twice the hits it showed). A bigram
    weighs no more than its lighter word.
    """
    weights: dict[str, float] = {}
    unseen: list[str] = []
    for keyword in keywords:
        result = greps.get(keyword)
        if result is None or not result.hits:
            unseen.append(keyword)
            continue
        files = len({hit.path for hit in result.hits})
        if result.per_doc:
            df = float(len(result.per_doc) + result.more_docs)
        else:
            total = 2 * result.total if result.cut else result.total
            df = min(float(max(n_docs, files)), max(float(files), files * total / len(result.hits)))
        weights[keyword] = max(0.05, math.log((n_docs + 1) / (df + 0.5)))
    ceiling = math.log((n_docs + 1) / 0.5)
    heaviest = max(weights.values(), default=ceiling)
    for keyword in unseen:
        weights[keyword] = min(ceiling, heaviest) if keyword in greps else 1.0
    for bigram in bigrams:
        # Two words side by side are evidence for their lighter word, not a new topic.
        parts = [weights.get(stem(word), 0.0) for word in bigram.split()]
        if bigram in weights and parts:
            weights[bigram] = min(weights[bigram], *parts)
    return weights


def uncovered(query: Query, weights: Mapping[str, float], greps: Mapping[str, GrepResult]) -> float:
    """The share of the question's term weight that no doc holds as a word.

    `greps` are word matches (`as_words`). A term in no doc weighs like the rarest term
    found, so it is one of the question's main terms: no passage can cover its share.
    """
    terms = tuple(dict.fromkeys(query.phrases + query.terms))
    total = sum(weights.get(t, 1.0) for t in terms)
    missing = sum(weights.get(t, 1.0) for t in terms if t in greps and not greps[t].total)
    return missing / total if total else 0.0


def _hits_by_file(greps: Mapping[str, GrepResult]) -> dict[str, dict[int, str]]:
    by_file: dict[str, dict[int, str]] = {}
    for result in greps.values():
        for hit in result.hits:
            by_file.setdefault(hit.path, {})[hit.line] = hit.text
    return by_file


def _line_score(text: str, weights: Mapping[str, float]) -> float:
    counts = count_terms(text, tuple(weights))
    boost = 1.5 if _HEADING.match(text) else 1.0
    return boost * sum(weights[t] * (1 + 0.3 * math.log(n)) for t, n in counts.items())


def _term_counts(
    weights: Mapping[str, float], greps: Mapping[str, GrepResult]
) -> dict[str, dict[str, int]]:
    """Per file, the lines matching each term: among the hits, or as the search counted them."""
    per_file: dict[str, dict[str, int]] = {}
    for path, lines in _hits_by_file(greps).items():
        per_term = per_file.setdefault(path, {})
        for text in lines.values():
            for term in count_terms(text, tuple(weights)):
                per_term[term] = per_term.get(term, 0) + 1
    for keyword, result in greps.items():
        if keyword in weights and result.path is None:
            for path, n in result.counts().items():
                per_term = per_file.setdefault(path, {})
                per_term[keyword] = max(n, per_term.get(keyword, 0))
    return per_file


def rank_files(
    weights: Mapping[str, float], greps: Mapping[str, GrepResult], docs: Sequence[DocInfo]
) -> list[tuple[float, str]]:
    """Files by evidence: weighted matches (diminishing per term), lifted by terms in the name.

    A doc whose path or title names the question's terms is about them: its evidence
    grows with the share of the question's weight its name holds (doubled if it names all).
    """
    titles = {doc.path: doc.title for doc in docs}
    scores: dict[str, float] = {}
    for path, per_term in _term_counts(weights, greps).items():
        scores[path] = sum(weights[t] * (1 + math.log(n)) for t, n in per_term.items())
    for path in set(scores) | set(titles):
        share = name_share(doc_name(path, titles.get(path, "")), weights)
        if share:
            bonus = 1.5 * share * sum(weights.values())
            scores[path] = (scores.get(path, 0.0) + bonus) * (1 + share**2)
    return sorted(((s, p) for p, s in scores.items() if s > 0), key=lambda sp: (-sp[0], sp[1]))


def plan_searches(
    weights: Mapping[str, float],
    greps: Mapping[str, GrepResult],
    docs: Sequence[DocInfo],
    *,
    max_calls: int = 4,
    span: int = 40,
) -> list[tuple[str, str]]:
    """`(keyword, path)` searches that show the top files' matches the cap hid."""
    ranked = rank_files(weights, greps, docs)
    sizes = {doc.path: doc.lines for doc in docs}
    searches: list[tuple[float, str, str]] = []
    for rank, (score, path) in enumerate(ranked[:2]):
        if score < 0.7 * ranked[0][0] or _read_whole(sizes.get(path), rank, span):
            continue
        for keyword, result in greps.items():
            hidden = result.counts().get(path, 0) - result.shown().get(path, 0)
            if keyword in weights and result.path is None and hidden > 0:
                searches.append((weights[keyword] * (1 - 0.5 * rank), keyword, path))
    searches.sort(key=lambda s: (-s[0], s[2], s[1]))
    return [(keyword, path) for _, keyword, path in searches[:max_calls]]


def _read_whole(size: int | None, rank: int, span: int) -> bool:
    """Whether a file is short enough to read whole: two spans for the top file, else one."""
    return size is not None and size <= (2 if rank == 0 else 1) * span


def best_windows(
    lines: Mapping[int, str], weights: Mapping[str, float], *, radius: int = 8
) -> list[tuple[float, int]]:
    """Hit lines as window centres, scored by the distinct terms and hits within `radius`."""
    scored = {n: count_terms(text, tuple(weights)) for n, text in lines.items()}
    windows = []
    for centre in scored:
        around = [n for n in scored if abs(n - centre) <= radius]
        present = {t for n in around for t in scored[n]}
        score = sum(weights[t] for t in present) + 0.1 * len(around)
        score += 0.5 * _line_score(lines[centre], weights)
        windows.append((score, centre))
    return sorted(windows, key=lambda sc: (-sc[0], sc[1]))


def _window_start(lines: Mapping[int, str], centre: int, span: int) -> int:
    """Where to start reading around `centre`: a heading hit just above it, else a bit above."""
    headings = [
        n for n, text in lines.items() if _HEADING.match(text) and 0 <= centre - n < span // 2
    ]
    start = min(headings) if headings else centre - span // 4
    return 1 if start <= span // 4 else start


def plan_reads(
    weights: Mapping[str, float],
    greps: Mapping[str, GrepResult],
    docs: Sequence[DocInfo],
    *,
    max_calls: int = 4,
    span: int = 40,
) -> list[tuple[str, int, int]]:
    """`(path, start, end)` reads: short top files whole, long ones around their best hits.

    A long doc named after the question's main topic is also read from the top, where
    it introduces the topic.
    """
    ranked = rank_files(weights, greps, docs)
    if not ranked:
        return []
    sizes = {doc.path: doc.lines for doc in docs}
    titles = {doc.path: doc.title for doc in docs}
    hits = _hits_by_file(greps)
    reads: list[tuple[str, int, int]] = []
    for rank, (score, path) in enumerate(ranked):
        if score < 0.5 * ranked[0][0] or len(reads) >= max_calls:
            break
        size = sizes.get(path)
        if size is not None and _read_whole(size, rank, span):
            starts = range(1, size + 1, span)
            reads += [(path, s, min(size, s + span - 1)) for s in starts]
            continue
        windows = best_windows(hits.get(path, {}), weights)
        taken: list[int] = []
        for window_score, centre in windows:
            if taken and (rank > 0 or window_score < 0.7 * windows[0][0]):
                break
            if any(abs(centre - t) < span for t in taken):
                continue
            start = _window_start(hits.get(path, {}), centre, span)
            end = start + span - 1 if size is None else min(size, start + span - 1)
            reads.append((path, start, end))
            taken.append(centre)
        opening = (path, 1, span if size is None else min(size, span))
        if not taken:
            reads.append(opening)
        elif name_share(doc_name(path, titles.get(path, "")), weights) >= NAMED:
            first, top = len(reads) - len(taken), opening[2]
            rest = [(p, max(a, top + 1), b) for p, a, b in reads[first:] if b > top]
            reads[first:] = [opening, *rest]
    return reads[:max_calls]


def _runs(lines: Mapping[int, str]) -> list[tuple[int, int]]:
    """The contiguous ranges of line numbers read."""
    runs: list[tuple[int, int]] = []
    for n in sorted(lines):
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def read_on(passage: Passage, lines: Mapping[int, str], size: int) -> list[tuple[str, int, int]]:
    """Reads that complete a passage cut off at the edge of what was read."""
    run = next(r for r in _runs(lines) if r[0] <= passage.start <= r[1])
    reads = []
    if passage.start == run[0] > 1 and passage.blocks[0].kind in ("item", "code"):
        reads.append((passage.path, max(1, run[0] - 15), run[0] - 1))
    if passage.end == run[1] and run[1] < size:
        reads.append((passage.path, run[1] + 1, min(size, run[1] + 25)))
    return reads
