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

An ended app is a whole widget tree of cycles (~2.7 MB, ~19,000 objects for a
spectator's), all long-lived by then: only a full collection frees it.  A
spectator who follows another's drawing has her app torn down (issue 37), so a
crowd of arriving spectators ends apps by the hundred, and with full
collections that rare all of them stayed in memory, the process's peak as if
none had ended.  So ended apps are counted (:class:`EndedApps`, told by every
app's driver): once as many have ended since the last full collection as are
running (and at least ``LEAST_ENDED_APPS``), a full collection runs.  Its cost
is that of the running apps' objects, once per as many ended apps: a constant
share of each app's own cost, as building it is; the garbage waiting is never
more than about the running apps' own size.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

#: gc's third threshold: young (generation 1) collections between two full ones (Python's default: 10).
FULL_AFTER_YOUNG = 1000
#: Ended apps that make a full collection even when fewer are running (each ~2.7 MB of garbage till then).
LEAST_ENDED_APPS = 10


class EndedApps:
    """The process's running apps and those ended since the last full collection: enough of them ended, a full
    collection (see the module doc).  Only while a server's :class:`CollectorPolicy` is on."""

    def __init__(self, collect: Callable[[], object] = gc.collect, least: int = LEAST_ENDED_APPS) -> None:
        self._collect = collect
        self.least = least
        self.running = 0
        self.ended = 0
        #: Servers of this process whose policy is on (tests run several).
        self.servers = 0

    def started(self) -> None:
        self.running += 1

    def ended_one(self) -> None:
        """An app ended (it is still being closed: freed at the next full collection)."""
        self.running = max(0, self.running - 1)
        self.ended += 1
        if self.servers and self.ended > max(self.least, self.running):
            self.ended = 1  # this one: still closing, it waits for the next
            self._collect()


#: Every app of the process (Python's collector is the process's).
APPS = EndedApps()


class CollectorPolicy:
    """Tunes the process's collector while a server runs; ``close`` puts it back as it was."""

    def __init__(self) -> None:
        self._thresholds: tuple[int, int, int] | None = None
        self._counting = False

    def start(self) -> None:
        if self._thresholds is not None:
            return
        self._thresholds = gc.get_threshold()
        gc.collect()
        gc.freeze()  # what the process holds before any session lives as long as the process
        young, middle, _full = self._thresholds
        gc.set_threshold(young, middle, FULL_AFTER_YOUNG)
        APPS.servers += 1
        self._counting = True

    def stopping(self) -> None:
        """The server stops: every app ends now, and a full collection while they do would only delay that (each
        as long as a second with hundreds open): no more of them."""
        if self._counting:
            self._counting = False
            APPS.servers -= 1

    def close(self) -> None:
        if self._thresholds is None:
            return
        self.stopping()
        gc.set_threshold(*self._thresholds)
        self._thresholds = None
        gc.unfreeze()
