"""One table's clock at the server: the clock as its table stores it, the seats that run out of time, late moves.

The seats' clocks themselves are the match's (:attr:`~termgames.match.Match.clocks`,
counting with the time the hub passes in).  A :class:`TableClock` keeps what
the store holds of them (:attr:`TableClock.text`, the table's ``clock``
column: :mod:`.clocks` writes and reads it), because every change of the clock
is stored only if the stored clock is still the one this server holds: a flag
and a late move cannot both be accepted, and of several servers exactly one
flags.  It flags the seats whose time ran out when the hub's
:class:`~.clocks.Timekeeper` says one is due, refuses a move that comes too
late, and takes the clock another server stored (:meth:`TableClock.adopt`).
The table it belongs to (:class:`~.tables.LiveTable`) tells its players.
"""

from __future__ import annotations

import logging
from typing import Protocol

from ..clock import Clocks
from ..match import Flag
from ..rules import RuleError
from .clocks import ClockedTable, Timekeeper, clock_text, read_clock, stored_clock
from .stores.interface import StoreError, TableStore

log = logging.getLogger("termgames.server")


class TimedTable(ClockedTable, Protocol):
    """What a table's clock needs of its table (:class:`~.tables.LiveTable` is one)."""

    #: Why the table was closed before its game ended; empty while it was not.
    closed: str

    @property
    def names(self) -> tuple[str, ...]: ...

    def catch_up(self) -> bool:
        """Play the moves another server stored past ours, and take the clock it stored; True when there were
        moves."""
        ...

    def reload(self) -> None:
        """Seats, moves and clock again from the store."""
        ...

    def flagged(self, flags: list[Flag], *, here: bool) -> None:
        """The seats of ``flags`` just ran out of time; ``here``: flagged by this server (which finishes the game
        if that ends it), else taken from another's clock."""
        ...


class TableClockHost(Protocol):
    """What a table's clock needs of the hub (:class:`~termgames.server.hub.Hub` is one)."""

    store: TableStore
    #: The one timer of every running clock.
    timekeeper: Timekeeper

    def now(self) -> float: ...


class TableClock:
    """A table's clock as stored, its flags and its deadline (an untimed table's text is empty)."""

    def __init__(self, table: TimedTable, hub: TableClockHost, text: str) -> None:
        self.table = table
        self.hub = hub
        #: The clock as stored: what a change of it must find there still (see ``LiveTable.play_prepared``).
        self.text = text

    def changed(self) -> None:
        """The clock changed (or the table was read): the timekeeper looks at it again."""
        if self.table.match.clock is not None:
            self.hub.timekeeper.schedule(self.table)

    def check(self, now: float) -> None:
        """Flag every seat whose time ran out by ``now`` (the timekeeper calls this when the first is due)."""
        table = self.table
        clocks = table.match.clocks
        if clocks is None or table.over:
            return
        for seat in clocks.due(now):
            if table.over or table.closed:
                return
            if seat not in table.match.out_of_time and not self._flag(seat, now):
                return

    def refuse_out_of_time(self, seat: int) -> None:
        """A player's move for a seat whose time is up (its flag may be due this very moment) is refused."""
        self.check(self.hub.now())
        if seat in self.table.match.out_of_time:
            raise RuleError(f"{self.table.names[seat]} ran out of time: the move was not made")

    def refuse_late(self, seat: int, now: float) -> None:
        """A move checked for ``seat`` is refused if its time is up ``now``, even when its flag is not stored (the
        database is away): a late move never reaches the store."""
        clocks = self.table.match.clocks
        if clocks is not None and seat in clocks.due(now):
            self.check(now)
            raise RuleError(f"{self.table.names[seat]} ran out of time: the move was not made")

    def start(self) -> str | None:
        """The last seat was just taken: the clocks start now (none ran while the table waited for players).  The
        clock to store; None when the table is untimed or its clocks run already."""
        match = self.table.match
        if match.clocks is None or match.clocks.counting:
            return None
        match.start_clocks(self.hub.now())
        return clock_text(match)

    def after_undo(self, ply: int) -> tuple[str | None, Clocks | None]:
        """The clock to store (None: as it is) and the clocks once the moves from ``ply`` on are taken back: the
        time spent stays spent, and from now the clocks of the seats to move after the undo run."""
        match = self.table.match
        clocks = match.clocks
        if clocks is None or not clocks.counting:
            return None, clocks
        out = match.out_of_time
        clocks = clocks.run([s for s in match.states[ply].to_move() if s not in out], self.hub.now())
        return stored_clock(clocks, [flag for flag in match.flags if flag.ply <= ply]), clocks

    def _flag(self, seat: int, now: float) -> bool:
        """``seat`` ran out of time: stored as the table's clock, once (another server may flag first, or a move
        come first); then everyone is told.  False when it was not stored here."""
        table = self.table
        match = table.match
        ply = len(match.moves)
        before_clocks = match.clocks
        flag = match.flag(seat, at=now)
        after_clock = clock_text(match)
        try:
            stored = self.hub.store.flag(table.id, ply, self.text, after_clock)
        except StoreError as error:
            self._unflag(before_clocks)
            log.warning("table %s: %s's flag not stored: %s", table.id, table.names[seat], error)
            self.hub.timekeeper.retry(table)
            return False
        if not stored:  # another server flagged, or a move came there first: read what the store has
            self._unflag(before_clocks)
            if not table.catch_up():
                table.reload()
            return False
        self.text = after_clock
        table.flagged([flag], here=True)
        return True

    def _unflag(self, clocks: Clocks | None) -> None:
        self.table.match.flags.pop()
        self.table.match.clocks = clocks

    def adopt(self, text: str | None) -> bool:
        """The clock as the store has it (another server changed it): taken, with any flag it adds; True when it
        changed.  A clock this table cannot follow (flags it missed before moves it has) reloads the table."""
        if text is None or text == self.text:
            return False
        table = self.table
        try:
            clocks, flags = read_clock(text, len(table.names)) if text else (None, [])
        except ValueError as error:
            log.error("table %s: its stored clock is unreadable: %s", table.id, error)
            return False
        match = table.match
        known = [(flag.seat, flag.ply) for flag in match.flags]
        new = flags[len(known):]
        moves = len(match.moves)
        if [(flag.seat, flag.ply) for flag in flags[: len(known)]] != known or any(f.ply != moves for f in new):
            table.reload()
            return True
        try:
            for flag in new:
                match.flag(flag.seat, time=flag.time)
        except RuleError:
            table.reload()
            return True
        match.clocks = clocks
        self.text = text
        if new:
            table.flagged(new, here=False)
        else:
            self.changed()
        return True
