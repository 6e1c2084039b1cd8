"""The garbage collector's full passes kept off what outlives a run (the live screen's)."""

from __future__ import annotations

import gc


def keep_long_lived(*, thaw: bool = False) -> None:
    """Collect the garbage, then exempt what is left from later passes (after the first
    frame, and after each run); `thaw` first puts the frozen objects back (a new
    conversation: cycles the cleared one froze are freed, about 1,000 objects a long
    answer, else kept to the end).

    What outlives a run (the conversation, its view, the app) is kept to the end, yet
    each full pass of the collector walked all of it: passes grew with the session to
    a fifth of a second, taken in the middle of the next answer's stream. Frozen, a pass
    walks only what the runs since made. Reference counting still frees frozen objects;
    only cycles among them that die later are kept (the transcript makes no widget per
    entry, so there are few). Measured in tests/bench/bench_session.py: full passes
    of 60-280 ms in the middle of answers gone, RSS growth still about 0.25 MB a question.
    """
    if thaw:
        gc.unfreeze()
    gc.collect()
    gc.freeze()
