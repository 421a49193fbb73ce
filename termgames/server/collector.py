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
Strips caching themselves (``divide_without_cycles``, below).  One full
collection still pauses every screen, 0.3-1.4 s at 30 sessions.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Sequence

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


_strips_patched = False


def divide_without_cycles() -> None:
    """Textual's ``Strip.divide`` caches ``[self]`` on the strip itself: every line it draws becomes a cycle.

    The compositor divides every line it renders, and a line that is not cut is
    kept in its own cache, so each such Strip (with its segments and seven
    caches) can only be freed by the cyclic collector; those kept in render
    caches across moves reach the oldest generation first and make full
    collections frequent and slow.  Not caching the uncut case (it costs
    nothing to recompute) leaves 250 cyclic objects a move where there were
    7,000 (a Mono table, 5 screens).
    """
    global _strips_patched
    if _strips_patched:
        return
    from textual.strip import Strip

    divide = Strip.divide

    def divide_uncut_alone(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
        length = self.cell_length
        cuts = [cut for cut in cuts if cut <= length]
        if cuts == [length]:
            return [self]
        return divide(self, cuts)

    Strip.divide = divide_uncut_alone  # type: ignore[method-assign]  # patching Textual's method is the point
    _strips_patched = True
