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

An app torn down while its spectator follows another's drawing (see
:mod:`~termgames.server.drawing`) is such long-lived garbage, megabytes of it:
:meth:`CollectorPolicy.collect_soon` asks for one full collection a moment
later (``COLLECT_AFTER``), one for every app let go meanwhile, and none sooner
than ``COLLECT_EVERY`` after the last, so the memory is reused at once rather
than a minute later.
"""

from __future__ import annotations

import asyncio
import gc

#: gc's third threshold: young (generation 1) collections between two full ones (Python's default: 10).
FULL_AFTER_YOUNG = 1000
#: Seconds from the first request of :meth:`CollectorPolicy.collect_soon` to its full collection, and at least
#: between two such.
COLLECT_AFTER = 2.0
COLLECT_EVERY = 10.0


class CollectorPolicy:
    """Tunes the process's collector while a server runs; ``close`` puts it back as it was."""

    def __init__(self) -> None:
        self._thresholds: tuple[int, int, int] | None = None
        self._soon: asyncio.TimerHandle | None = None
        self._last = float("-inf")

    def collect_soon(self) -> None:
        """Much long-lived garbage was just let go (an app torn down): one full collection in a moment."""
        if self._thresholds is None or self._soon is not None:
            return
        loop = asyncio.get_running_loop()
        delay = max(COLLECT_AFTER, self._last + COLLECT_EVERY - loop.time())
        self._soon = loop.call_later(delay, self._collect)

    def _collect(self) -> None:
        self._soon = None
        self._last = asyncio.get_running_loop().time()
        gc.collect()

    def start(self) -> None:
        if self._thresholds is not None:
            return
        self._thresholds = gc.get_threshold()
        gc.collect()
        gc.freeze()  # what the process holds before any session lives as long as the process
        young, middle, _full = self._thresholds
        gc.set_threshold(young, middle, FULL_AFTER_YOUNG)

    def close(self) -> None:
        if self._soon is not None:
            self._soon.cancel()
            self._soon = None
        if self._thresholds is None:
            return
        gc.set_threshold(*self._thresholds)
        self._thresholds = None
        gc.unfreeze()
