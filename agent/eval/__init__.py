"""Evaluating docs and models: question sets, running them, and their scores.

`questions` reads and checks a question set, `runner` runs it (one session and trace per
question, a few at a time), `scoring` scores each run and sums up the set.
"""

from __future__ import annotations
