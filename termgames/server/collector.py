"""Python's cyclic garbage collector on a server of many Textual apps: full collections made rare.

Every session is a Textual app on the server's one loop, and its widgets,
styles and render caches are long-lived objects by the million.  Python's
default collector rescans all of them in a full collection every ten young
collections or so (once a quarter more objects are long-lived than at the last
one): in ``bench/serve_latency.py`` (30 clients, 6 tables, a default
collector) 21 full collections took 0.5 s each on average and up to 1.1 s, a
third of the server's CPU, and every screen at every table stood still
meanwhile; they made the move-to-screen 95th percentile.

So a full collection is considered only after a hundred times as many young
ones (``FULL_AFTER_YOUNG``; young collections stay as they are, a few
milliseconds), and what the process holds once it serves (modules, Textual's
and Rich's tables) is frozen out of every later scan.  Garbage cycles are
still freed: young ones at once, long-lived ones at the next full collection,
a minute or more later under heavy play instead of every second or two.  That
waits on little memory because nearly all long-lived cycles were Textual
Strips caching themselves (a patch of Textual's Strip stops that:
:func:`~termgames.server.ui.driver.divide_without_cycles`).  One full
collection still pauses every screen, 0.3-1.4 s at 30 sessions.
"""

from __future__ import annotations

import gc

#: gc's third threshold: young (generation 1) collections between two full ones (Python's default: 10).
FULL_AFTER_YOUNG = 1000


class CollectorPolicy:
    """Tunes the process's collector while a server runs; ``close`` puts it back as it was."""

    def __init__(self) -> None:
        self._thresholds: tuple[int, int, int] | None = None

    def start(self) -> None:
        if self._thresholds is not None:
            return
        self._thresholds = gc.get_threshold()
        gc.collect()
        gc.freeze()  # what the process holds before any session lives as long as the process
        young, middle, _full = self._thresholds
        gc.set_threshold(young, middle, FULL_AFTER_YOUNG)

    def close(self) -> None:
        if self._thresholds is None:
            return
        gc.set_threshold(*self._thresholds)
        self._thresholds = None
        gc.unfreeze()
