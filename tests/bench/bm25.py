"""A plain BM25 baseline over heading sections: the bar the offline model should clear.

Sections split on Markdown `#` headings, underlined titles (setext, reStructuredText)
and rulers (`====` lines after a blank line, as in Vim's help); heading words count
twice. No stemming, a few stop words, k1 = 1.2, b = 0.75.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from agent import Corpus

WORD = re.compile(r"[a-z0-9_]+")
STOP = set(
    "a an and are as at be by can do does for from how i in is it my of on or the to what "
    "when where which why with you your".split()
)
RULE = re.compile(r"^([=\-~^\"'*+#])\1{2,}\s*$")  # not ` (a code fence)


def words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in STOP]


def sections(corpus: Corpus) -> list[tuple[str, int, int, list[str]]]:
    """Every doc's sections as (path, first line, last line, words with the heading twice)."""
    found = []
    for path in corpus.paths():
        lines = corpus.read_lines(path)
        starts = {1}
        for n, line in enumerate(lines, start=1):
            above = lines[n - 2].strip() if n > 1 else ""
            if line.startswith("#") and re.match(r"#{1,6}\s", line):
                starts.add(n)
            elif RULE.match(line) and above and not RULE.match(above):
                starts.add(n - 1)  # an underlined title starts on the line above
            elif RULE.match(line) and not above and len(line.strip()) >= 20:
                starts.add(n)
        bounds = sorted(starts) + [len(lines) + 1]
        for start, end in zip(bounds, bounds[1:], strict=False):
            text = lines[start - 1 : end - 1]
            found.append((path, start, end - 1, words(" ".join(text[:2])) + words(" ".join(text))))
    return found


class BM25:
    """Ranks a corpus's sections for a query."""

    def __init__(self, corpus: Corpus, k1: float = 1.2, b: float = 0.75) -> None:
        self.sections = sections(corpus)
        self.counts = [Counter(ws) for *_, ws in self.sections]
        self.sizes = [len(ws) for *_, ws in self.sections]
        self.df = Counter(w for counts in self.counts for w in counts)
        self.avg = sum(self.sizes) / max(1, len(self.sizes))
        self.k1, self.b, self.n = k1, b, len(self.sections)

    def top(self, query: str, k: int = 3) -> list[tuple[str, int, int]]:
        """The `k` best sections as (path, start, end)."""
        terms = set(words(query))
        scores = []
        for i, counts in enumerate(self.counts):
            norm = self.k1 * (1 - self.b + self.b * self.sizes[i] / self.avg)
            score = sum(
                math.log(1 + (self.n - self.df[t] + 0.5) / (self.df[t] + 0.5))
                * counts[t] * (self.k1 + 1) / (counts[t] + norm)
                for t in terms if t in counts
            )  # fmt: skip
            scores.append((score, i))
        best = sorted(scores, key=lambda s: (-s[0], s[1]))[:k]
        return [self.sections[i][:3] for score, i in best if score > 0]
