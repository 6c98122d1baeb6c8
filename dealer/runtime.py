"""How a dealer process is set up, whichever starts it (the ``dealer`` command, the arena's
server, a Dask worker, a benchmark): its garbage collector and its log. The one owner of both."""

from __future__ import annotations

import gc


def tune_gc() -> None:
    """Collect cyclic garbage less often: a dealer makes many short-lived objects per decision
    and few cycles, so the default thresholds spend ~4% of its time in collections. What exists
    so far (modules, tables) is frozen out of them."""
    gc.freeze()
    gc.set_threshold(20_000, 20, 100)
