"""The time a computer player may think: one :class:`Deadline` per decision, shared by every game's bot.

Time is part of a level's strength: a player who waits a minute for a probe
has a worse game, whatever the probe.  Every bot's ``choose(view,
deadline=None)`` takes a Deadline (a fresh one of :data:`TIME_CAP` seconds
when none is given) and looks at it wherever its search loops: when it has
expired the bot stops searching and plays the best move found so far.  A
front end that wants the move now (a key in a game on one terminal) calls
:meth:`Deadline.stop` from another thread; the bot answers at its next look.

A level that needs less time narrows the deadline with :meth:`Deadline.within`
(its own budget, never past the cap).  The clock is a parameter so that tests
can drive a deadline with a fake clock instead of asserting on wall time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

#: Seconds a decision may take at most, at every level, board size and option (issue 16: 2 s on two cores).
#: Bots aim below it: the search stops at :data:`SEARCH_SHARE` of the cap, the rest is the answer's slack.
TIME_CAP = 2.0
#: Share of a deadline a search may use before it stops and answers.
SEARCH_SHARE = 0.8

Clock = Callable[[], float]


class Deadline:
    """The moment a decision must stop thinking, and a flag a front end can raise to stop it sooner."""

    def __init__(self, seconds: float = TIME_CAP, clock: Clock = time.perf_counter) -> None:
        self.clock = clock
        self.start = clock()
        self.seconds = max(0.0, seconds)
        self.end = self.start + self.seconds
        self._stop = threading.Event()

    def expired(self) -> bool:
        """True once the time is up or :meth:`stop` was called: search no further."""
        return self._stop.is_set() or self.clock() >= self.end

    def remaining(self) -> float:
        """Seconds left (0 when expired)."""
        if self._stop.is_set():
            return 0.0
        return max(0.0, self.end - self.clock())

    def elapsed(self) -> float:
        return self.clock() - self.start

    def stop(self) -> None:
        """Ask for the move now (thread-safe): the bot plays what it has at its next look at the deadline."""
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def within(self, seconds: float) -> Deadline:
        """A deadline ``seconds`` from now or this one's end, whichever is sooner; :meth:`stop` reaches both."""
        inner = Deadline.__new__(Deadline)
        inner.clock = self.clock
        inner.start = self.clock()
        inner.end = min(self.end, inner.start + max(0.0, seconds))
        inner.seconds = inner.end - inner.start
        inner._stop = self._stop
        return inner

    def share(self, fraction: float) -> Deadline:
        """A deadline after ``fraction`` of the time left (a stage of a search that has later stages)."""
        return self.within(self.remaining() * fraction)


def deadline_for(deadline: Deadline | None) -> Deadline:
    """The deadline a decision runs under: the one given, else a fresh one of :data:`TIME_CAP` seconds."""
    return deadline if deadline is not None else Deadline(TIME_CAP)
