"""The server keeps the time: each table's clock as stored, one timer for every table, downtime not charged.

A timed table's clock is stored with the table (the ``clock`` column) as one
JSON text: the seats' :class:`~termgames.clock.Clocks` and the seats that ran
out of time (their :class:`~termgames.match.Flag`).  Every change of it (a
move, a flag, an undo, the last seat taken) is stored in the transaction of the
change, and only if the clock is still what this server held: a flag and a late
move cannot both be accepted, and of several servers exactly one flags.

:class:`Timekeeper` is the hub's one timer: a heap of the moments a running
clock runs out (or falls below a fifth of its time), so a thousand running
clocks cost an idle server one timer.  It also writes the heartbeat that lets the next
start-up measure how long no server ran: that time is not charged (to within
:data:`HEARTBEAT_SECONDS` and :data:`STALE_SECONDS`).

A clock falling below a fifth of its time is news for its player
(``Hub.players_news``, kind ``clock``: her notices, and mail if she is away),
told by every server holding the table to the players connected to it (the
mail is sent once).
"""

from __future__ import annotations

import asyncio
import heapq
import json
import logging
import math
from typing import Protocol

from ..clock import Clocks
from ..match import Flag, Match
from .stores.interface import StoreError, TableStore

log = logging.getLogger("termgames.server")

#: Seconds between two heartbeats of a running server.
HEARTBEAT_SECONDS = 5.0
#: A heartbeat older than this at start-up means no server ran since: the gap is credited to every clock.
STALE_SECONDS = 10.0


# -- the stored clock ------------------------------------------------------------------------


def clock_text(match: Match) -> str:
    """The clock of ``match`` as its table stores it (empty when untimed): one canonical JSON text."""
    return "" if match.clocks is None else stored_clock(match.clocks, match.flags)


def stored_clock(clocks: Clocks, flags: list[Flag]) -> str:
    """``clocks`` and ``flags`` as a table stores them."""
    listed = [[flag.seat, flag.ply, flag.time] for flag in flags]
    return json.dumps({"clocks": clocks.to_json(), "flags": listed}, sort_keys=True, separators=(",", ":"))


def read_clock(text: str, seats: int) -> tuple[Clocks, list[Flag]]:
    """The clocks and flags :func:`clock_text` wrote; ValueError when ``text`` is not that."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ValueError(f"the clock is not JSON: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("flags", []), list):
        raise ValueError("the clock is not a JSON object with its flags")
    clocks = Clocks.from_json(data.get("clocks"), seats)
    flags = []
    for entry in data.get("flags", []):
        if not (isinstance(entry, list) and len(entry) == 3 and all(type(v) is int for v in entry[:2])
                and isinstance(entry[2], str) and 0 <= entry[0] < seats):
            raise ValueError("a flag of the clock is not [seat, ply, time]")
        flags.append(Flag(entry[0], entry[1], entry[2]))
    return clocks, flags


def shift_clock(text: str, seconds: float) -> str:
    """The stored clock ``text`` with ``seconds`` not charged (no server ran); an unreadable one as it was."""
    try:
        data = json.loads(text)
        since = data["clocks"]["since"]
        if since is not None:
            data["clocks"]["since"] = round(float(since) + seconds, 3)
    except (ValueError, KeyError, TypeError, RecursionError):
        return text
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


# -- the one timer ------------------------------------------------------------------------------


class ClockedTable(Protocol):
    """A table whose clock the timekeeper watches (:class:`~termgames.server.tables.LiveTable` is one)."""

    id: int
    match: Match

    @property
    def over(self) -> bool: ...

    def check_clocks(self, now: float) -> None:
        """Flag every seat whose time ran out by ``now``."""
        ...


class ClockHost(Protocol):
    """What the timekeeper needs of the hub (:class:`~termgames.server.hub.Hub` is one)."""

    store: TableStore
    closed: bool

    def clocked_table(self, table_id: int) -> ClockedTable | None:
        """The table ``table_id`` as this server holds it (None: no longer)."""
        ...

    def now(self) -> float: ...

    def clock_warning(self, table: ClockedTable, seat: int) -> None:
        """``seat``'s running clock at ``table`` just fell below a fifth of its time (once a turn)."""
        ...


class Timekeeper:
    """One timer for every running clock of the hub's tables, and the heartbeat (see the module doc)."""

    def __init__(self, hub: ClockHost) -> None:
        self.hub = hub
        #: (when, table id, the table's entry number, what: "flag" or a seat to warn).
        self._heap: list[tuple[float, int, int, int]] = []
        #: Each table's latest entry number: older entries of the heap are stale, dropped when they come up.
        self._entries: dict[int, int] = {}
        self._count = 0
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf
        self._beating: asyncio.Task[None] | None = None

    # -- scheduling ------------------------------------------------------------------------------

    def schedule(self, table: ClockedTable) -> None:
        """``table``'s clock changed: when its first running clock runs out, and when each falls below a fifth."""
        self._count += 1
        entry = self._entries[table.id] = self._count
        clocks = table.match.clocks
        if clocks is not None and not table.over:
            deadline = clocks.deadline()
            if deadline is not None:
                heapq.heappush(self._heap, (deadline, table.id, entry, -1))
                now = self.hub.now()
                for seat in clocks.running:
                    low = clocks.low_time(seat)
                    if low is not None and low > now:
                        heapq.heappush(self._heap, (low, table.id, entry, seat))
        if len(self._heap) > 4 * len(self._entries) + 64:  # stale entries pile up: keep the live ones only
            self._heap = [item for item in self._heap if self._entries.get(item[1]) == item[2]]
            heapq.heapify(self._heap)
        self._arm()

    def retry(self, table: ClockedTable, seconds: float = 1.0) -> None:
        """Look at ``table``'s clocks again in ``seconds`` (its flag could not be stored: the database is away)."""
        self._count += 1
        entry = self._entries[table.id] = self._count
        heapq.heappush(self._heap, (self.hub.now() + seconds, table.id, entry, -1))
        self._arm()

    def forget(self, table_id: int) -> None:
        self._entries.pop(table_id, None)

    def _arm(self) -> None:
        """The timer at the heap's first moment (moved only when that moment changed)."""
        while self._heap and self._entries.get(self._heap[0][1]) != self._heap[0][2]:
            heapq.heappop(self._heap)
        first = self._heap[0][0] if self._heap else math.inf
        if first == self._timer_at and self._timer is not None:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timer_at = first
        if first == math.inf or self.hub.closed:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._timer_at = math.inf
            return  # no loop yet: start() arms it
        self._timer = loop.call_later(max(0.0, first - self.hub.now()), self._fire)

    def _fire(self) -> None:
        self._timer, self._timer_at = None, math.inf
        now = self.hub.now()
        while self._heap and self._heap[0][0] <= now:
            _when, table_id, entry, what = heapq.heappop(self._heap)
            if self._entries.get(table_id) != entry:
                continue
            table = self.hub.clocked_table(table_id)
            if table is None:
                continue
            try:
                if what < 0:
                    table.check_clocks(now)
                else:
                    self._warn(table, what, now)
            except Exception:  # one table's trouble must not stop every other clock
                log.exception("table %s: its clock could not be checked", table_id)
        self._arm()

    def _warn(self, table: ClockedTable, seat: int, now: float) -> None:
        clocks = table.match.clocks
        if clocks is None or table.over or seat not in clocks.running or not clocks.counting:
            return
        if clocks.left_at(seat, now) < clocks.spec.low_seconds:
            self.hub.clock_warning(table, seat)

    # -- running -----------------------------------------------------------------------------------

    def start(self) -> None:
        """On the loop: arm the timer, and beat."""
        self._timer_at = math.inf
        self._arm()
        self._beating = asyncio.get_running_loop().create_task(self._beat_forever())

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._beating is not None:
            self._beating.cancel()
            self._beating = None
        self.beat()  # the downtime starts now, not at the last beat

    def beat(self) -> None:
        try:
            self.hub.store.heartbeat(self.hub.now())
        except StoreError as error:
            log.warning("heartbeat not stored: %s", error)

    async def _beat_forever(self) -> None:
        while not self.hub.closed:
            self.beat()
            await asyncio.sleep(HEARTBEAT_SECONDS)

    def credit_downtime(self) -> float:
        """At start-up: the time no server ran is not charged to any clock; the seconds credited."""
        try:
            gap = self.hub.store.credit_downtime(self.hub.now(), STALE_SECONDS, shift_clock)
        except StoreError as error:
            log.error("the clocks could not be credited the downtime: %s", error)
            return 0.0
        if gap:
            log.info("no server ran for %.0f s: not charged to any clock", gap)
        return gap
