"""Game clocks: the ``--clock`` grammar and each seat's time, as plain values with the time passed in.

One grammar everywhere (``termgames play --clock``, ``challenge --clock``, the setup forms), units
``s`` ``m`` ``h`` ``d``:

* ``BASE+INC`` (Fischer): each seat starts with BASE and gains INC after each of its moves
  (``10m+5s``, ``30s+2s``, ``3d+1d``); ``BASE`` alone is ``BASE+0s``.
* ``N/move``: each move must come within N, fresh at every turn (``3d/move``, ``45s/move``).

A :class:`Clocks` is every seat's time at one moment: what is left, which seats' clocks run and since
when.  It never reads the time: every change takes the moment it happens (``at``, seconds since the
epoch), so tests drive it with made-up times.  The tables that keep clocks (one keyboard's, the
server's) read the time and store the value.

Pure Python, no I/O; it stands on the ground floor, under the matches.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from .errors import RuleError
from .untrusted import quoted

#: Seconds in each unit of the grammar.
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
#: The longest BASE, INC or N: 60 days (a correspondence game's clock, not a way to store a number).
MAX_SECONDS = 60 * 86400
#: A clock whose BASE (or N) is at least this long is a correspondence clock (see :attr:`ClockSpec.correspondence`).
CORRESPONDENCE_SECONDS = 86400
#: A live clock is marked (and rings once) under this many seconds; a correspondence one under a fifth of its time.
LIVE_WARNING_SECONDS = 20.0
#: How the grammar reads, in every refusal.
GRAMMAR = "BASE+INC (10m+5s), BASE (5m) or N/move (3d/move), with units s, m, h, d"

_DURATION = re.compile(r"([0-9]{1,9})([smhd])")


def _refuse(text: str, why: str) -> RuleError:
    return RuleError(f"--clock {quoted(text)}: {why}; write {GRAMMAR}")


def _duration(text: str, part: str, what: str) -> int:
    """Seconds of one ``NUMBER UNIT`` of ``text`` (the whole spec, for the refusal)."""
    found = _DURATION.fullmatch(part)
    if found is None:
        if any(c.isdigit() and not c.isascii() for c in part):
            raise _refuse(text, f"{what} takes the digits 0-9 only")
        raise _refuse(text, f"{what} {quoted(part)} is not a number and a unit")
    seconds = int(found.group(1)) * UNITS[found.group(2)]
    if seconds > MAX_SECONDS:
        raise _refuse(text, f"{what} is more than 60 days")
    return seconds


def duration_text(seconds: int) -> str:
    """``600`` -> ``10m``: seconds in the largest unit that writes them exactly."""
    for unit in ("d", "h", "m"):
        if seconds and seconds % UNITS[unit] == 0:
            return f"{seconds // UNITS[unit]}{unit}"
    return f"{seconds}s"


@dataclass(frozen=True)
class ClockSpec:
    """How a table's clocks run: BASE and INC of a Fischer clock, or N of an ``N/move`` clock (``per_move``)."""

    #: Seconds each seat starts with (Fischer), or each move may take (``per_move``).
    base: int
    #: Seconds a seat gains after each of its moves (Fischer only).
    increment: int = 0
    per_move: bool = False

    @classmethod
    def parse(cls, text: str) -> ClockSpec:
        """The clock ``text`` writes; RuleError (one line naming ``--clock`` and the grammar) when it writes none."""
        spec = text.strip().lower()
        if not spec:
            raise _refuse(text, "it is empty")
        if len(spec) > 40:
            raise _refuse(text, "it is too long")
        if spec.endswith("/move"):
            seconds = _duration(text, spec.removesuffix("/move"), "N")
            if seconds == 0:
                raise _refuse(text, "N must be more than 0 s")
            return cls(seconds, 0, per_move=True)
        base_text, plus, increment_text = spec.partition("+")
        base = _duration(text, base_text, "BASE")
        if base == 0:
            raise _refuse(text, "BASE must be more than 0 s")
        increment = _duration(text, increment_text, "INC") if plus else 0
        return cls(base, increment)

    def __str__(self) -> str:
        if self.per_move:
            return f"{duration_text(self.base)}/move"
        return f"{duration_text(self.base)}+{duration_text(self.increment)}"

    @property
    def correspondence(self) -> bool:
        """A clock of a day or more (BASE, or N a move): correspondence play, marked under a fifth of its time;
        a shorter one is live, marked under :data:`LIVE_WARNING_SECONDS`."""
        return self.base >= CORRESPONDENCE_SECONDS

    @property
    def warning_seconds(self) -> float:
        """Under this many seconds left a running clock is marked on screen (and rings the bell once)."""
        return self.base / 5 if self.correspondence else LIVE_WARNING_SECONDS

    @property
    def low_seconds(self) -> float:
        """Under a fifth of BASE (or N) a player's clock is low: her notice (and mail, if she is away) says so."""
        return self.base / 5


def parse_clock(text: str | None) -> ClockSpec | None:
    """``--clock``'s value: None (untimed) for no text, else :meth:`ClockSpec.parse`."""
    if text is None or not text.strip():
        return None
    return ClockSpec.parse(text)


@dataclass(frozen=True)
class Clocks:
    """Every seat's clock at one moment.

    ``left[seat]`` is what the seat had left at ``since`` when its clock runs, else when it last stopped.
    ``since`` None: no clock counts (a table still waiting for players, a saved game not open): moves are
    then not charged.  Seats in ``out`` ran out of time; their clocks never run again.
    """

    spec: ClockSpec
    left: tuple[float, ...]
    running: tuple[int, ...] = ()
    since: float | None = None
    out: tuple[int, ...] = ()

    @classmethod
    def new(cls, spec: ClockSpec, seats: int) -> Clocks:
        """Clocks of ``seats`` seats, none running yet."""
        return cls(spec, (float(spec.base),) * seats)

    @property
    def counting(self) -> bool:
        return self.since is not None

    # -- reading ---------------------------------------------------------------

    def left_at(self, seat: int, now: float) -> float:
        """Seconds ``seat`` has left at ``now`` (never below 0)."""
        left = self.left[seat]
        if self.since is not None and seat in self.running:
            left -= max(0.0, now - self.since)
        return max(0.0, left)

    def due(self, now: float) -> tuple[int, ...]:
        """The running seats whose time has run out at ``now``."""
        if self.since is None:
            return ()
        return tuple(seat for seat in self.running if self.left_at(seat, now) <= 0)

    def deadline(self, seat: int | None = None) -> float | None:
        """When ``seat``'s clock (None: the first running clock) runs out if nothing happens; None when none runs."""
        if self.since is None:
            return None
        seats = self.running if seat is None else [s for s in self.running if s == seat]
        if not seats:
            return None
        return self.since + max(0.0, min(self.left[s] for s in seats))

    def low_time(self, seat: int) -> float | None:
        """When ``seat``'s running clock falls under :attr:`ClockSpec.low_seconds` (None: it does not run)."""
        deadline = self.deadline(seat)
        return None if deadline is None else deadline - self.spec.low_seconds

    # -- changes ---------------------------------------------------------------

    def _charged(self, at: float) -> Clocks:
        """The running seats charged up to ``at``, which becomes ``since``."""
        if self.since is None:
            return self
        spent = max(0.0, at - self.since)
        left = tuple(
            max(0.0, value - spent) if seat in self.running else value for seat, value in enumerate(self.left)
        )
        return replace(self, left=left, since=max(at, self.since))

    def run(self, on_turn: Iterable[int], at: float) -> Clocks:
        """From ``at`` the clocks of ``on_turn`` run (those already running go on); the others stop.

        A seat whose clock starts gets a fresh N on an ``N/move`` clock.  Clocks that did not count start
        counting at ``at``.
        """
        clocks = self._charged(at)
        seats = tuple(sorted({seat for seat in on_turn if seat not in clocks.out}))
        left = list(clocks.left)
        if self.spec.per_move:
            for seat in seats:
                if seat not in clocks.running:
                    left[seat] = float(self.spec.base)
        return replace(clocks, left=tuple(left), running=seats, since=at)

    def after_move(self, seat: int, at: float, on_turn: Iterable[int]) -> tuple[Clocks, float]:
        """The clocks once ``seat`` moved at ``at`` and ``on_turn`` are to move; and what ``seat`` had left.

        Fischer: the mover's time less what the move took, plus the increment.  ``N/move``: what was left of N
        (its next turn starts fresh).  Not counting (``since`` None): nothing is charged and nothing starts.
        """
        if self.since is None:
            return self, self.left[seat]
        clocks = self._charged(at)
        left = list(clocks.left)
        if seat in clocks.running and not self.spec.per_move:
            left[seat] = min(left[seat] + self.spec.increment, float(2 * MAX_SECONDS))
        after = left[seat]
        stopped = replace(clocks, left=tuple(left), running=tuple(s for s in clocks.running if s != seat))
        return stopped.run(on_turn, at), after

    def flagged(self, seat: int, at: float) -> Clocks:
        """``seat`` ran out of time at ``at``: its clock shows 0 and never runs again."""
        clocks = self._charged(at)
        left = list(clocks.left)
        left[seat] = 0.0
        return replace(
            clocks,
            left=tuple(left),
            running=tuple(s for s in clocks.running if s != seat),
            out=tuple(sorted({*clocks.out, seat})),
        )

    def paused(self, at: float) -> Clocks:
        """No clock counts from ``at`` (the running seats keep their place: :meth:`resumed` goes on from there)."""
        return replace(self._charged(at), since=None)

    def resumed(self, at: float) -> Clocks:
        """The running seats count again from ``at``."""
        return replace(self, since=at)

    def shifted(self, seconds: float) -> Clocks:
        """``seconds`` that must not be charged (no server ran): the running clocks start that much later."""
        return self if self.since is None else replace(self, since=self.since + seconds)

    # -- stored ------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "spec": str(self.spec),
            "left": [round(value, 3) for value in self.left],
            "running": list(self.running),
            "since": None if self.since is None else round(self.since, 3),
            "out": list(self.out),
        }

    @classmethod
    def from_json(cls, data: Any, seats: int) -> Clocks:
        """The clocks :meth:`to_json` wrote, for ``seats`` seats; ValueError when ``data`` is not that."""
        if not isinstance(data, dict):
            raise ValueError("the clock is not a JSON object")
        spec = ClockSpec.parse(str(data.get("spec", "")))
        left = data.get("left")
        if not isinstance(left, list) or len(left) != seats or not all(_seconds(value) for value in left):
            raise ValueError("the clock's time left is not a number of seconds per seat")
        running, out = data.get("running", []), data.get("out", [])
        for seat_list in (running, out):
            if not isinstance(seat_list, list) or not all(type(s) is int and 0 <= s < seats for s in seat_list):
                raise ValueError("the clock names a seat that is not there")
        since = data.get("since")
        if since is not None and not (isinstance(since, (int, float)) and math.isfinite(since)):
            raise ValueError("the clock's start is not a time")
        return cls(
            spec, tuple(float(value) for value in left), tuple(sorted(set(running) - set(out))),
            None if since is None else float(since), tuple(sorted(set(out))),
        )


def _seconds(value: Any) -> bool:
    return (
        isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        and 0 <= value <= 2 * MAX_SECONDS
    )


# -- how a clock reads on screen ---------------------------------------------------


def clock_text(seconds: float) -> str:
    """``m:ss`` under an hour, ``Nh NNm`` under a day, ``Nd Nh`` beyond; whole seconds rounded up (0:00 is out)."""
    whole = math.ceil(max(0.0, seconds))
    if whole < 3600:
        return f"{whole // 60}:{whole % 60:02d}"
    if whole < 86400:
        return f"{whole // 3600}h {whole % 3600 // 60:02d}m"
    return f"{whole // 86400}d {whole % 86400 // 3600}h"


def next_change(seconds: float) -> float:
    """Seconds until :func:`clock_text` of a clock running down from ``seconds`` reads differently."""
    whole = math.ceil(max(0.0, seconds))
    if whole <= 0:
        return math.inf
    step = 1 if whole <= 3600 else 60 if whole <= 86400 else 3600
    # The text shows whole // step (in its units): it changes once the rounded-up value is under that multiple.
    below = whole // step * step - 1
    return max(0.0, seconds - below) + 1e-3
