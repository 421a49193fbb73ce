"""A game between computer players with each decision timed: what the ladder (``bench/ladder.py``) reads.

The ladder plays most games itself, one mover at a time; a game that plays its bots its own way
(Monad: simultaneous turns on its match runner) names a runner in its descriptor's ladder entry
(:class:`termgames.games.Ladder`) that returns a :class:`TimedGame`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Decision:
    """One decision of one seat's bot."""

    seat: int
    #: Wall-clock seconds.
    seconds: float
    #: Processor seconds (what the machine's other load does not inflate).
    cpu_seconds: float
    #: How many of the game's moves (in record order) were made before it: the position it was made in.
    before: int


@dataclass
class TimedGame:
    """A finished (or stopped) game: its moves, its result and every bot decision's time."""

    #: The moves in record order: (seat, text).
    moves: list[tuple[int, str]] = field(default_factory=list)
    scores: tuple[float, ...] = ()
    #: The winning seats; () for a game stopped before its end.
    winners: tuple[int, ...] = ()
    decisions: list[Decision] = field(default_factory=list)

    def timed(self, seat: int, before: int, decide: Callable[[], T]) -> T:
        """``decide()``, timed as ``seat``'s decision after ``before`` moves."""
        started, cpu_started = time.perf_counter(), time.process_time()
        answer = decide()
        seconds = time.perf_counter() - started
        self.decisions.append(Decision(seat, seconds, time.process_time() - cpu_started, before))
        return answer

    @property
    def slowest(self) -> Decision | None:
        """The slowest decision by the wall clock (the first of equals)."""
        return max(self.decisions, key=lambda decision: decision.seconds, default=None)
