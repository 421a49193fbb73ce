"""Closing the tables nobody plays any more: no move for ``idle_days`` (``guest_idle_days`` for a guest's).

A table without a move for that long is closed, unrated, by exactly one server
(the store closes it only if it is still idle and unfinished, so of several
servers sharing the database one gets it); its record says why it was closed.
Tables where a player sits at her screen now are left alone.  The hub closes
the idle tables at start-up (before replaying any) and every
:data:`IDLE_CHECK_SECONDS` after.
"""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import UTC, datetime, timedelta
from typing import Protocol

from ..match import AI, Match
from ..records import to_dict
from .people import is_guest
from .stores.interface import StoreError, TableActivity, TableStore
from .tables import LiveTable

log = logging.getLogger("termgames.server")

#: Seconds between two looks for tables idle long enough to be closed.
IDLE_CHECK_SECONDS = 600.0


class IdleHost(Protocol):
    """What closing idle tables needs of the hub (:class:`~termgames.server.hub.Hub` is one)."""

    store: TableStore
    #: The server stops: no more looks.
    closed: bool
    #: The tables this server plays, by id: one just closed is told so.
    tables: dict[int, LiveTable]

    def keep_record(self, table: LiveTable) -> None:
        """Keep the record of ``table``, just closed here."""
        ...

    def utc_now(self) -> datetime:
        """The time now, from the server's one time source."""
        ...


class IdleTables:
    """Closes the tables of its hub idle for too long (see the module doc)."""

    def __init__(self, hub: IdleHost, idle_days: float, guest_idle_days: float) -> None:
        self.hub = hub
        #: Days without a move before a table is closed (a guest's table, or one of computers only: guest_idle_days).
        self.idle_days = idle_days
        self.guest_idle_days = guest_idle_days

    async def close_forever(self) -> None:
        while not self.hub.closed:
            await asyncio.sleep(IDLE_CHECK_SECONDS)
            self.close()

    def close(self, now: datetime | None = None) -> list[int]:
        """Close every unfinished table without a move for ``idle_days`` (a guest's: ``guest_idle_days``).

        Tables where a player sits at her screen now are left alone.  The store closes each one only if it is
        still idle and unfinished (the row's lock orders the close and a move), so of several servers sharing
        the database exactly one closes it: that one keeps its record; the others hear of it.  Not replayed
        here: a table closed at start-up is read (and its record made) when someone asks for it.  Returns the
        tables this call closed.
        """
        hub = self.hub
        now = now or self.hub.utc_now()
        try:
            activity = hub.store.open_activity()
        except StoreError as error:
            log.error("idle tables not looked for: %s", error)
            return []
        closed = []
        for table in activity:
            live = hub.tables.get(table.id)
            if live is not None and live.connected():
                continue  # someone sits at it now, thinking maybe: not idle
            days = self.guest_idle_days if _nobody_comes_back(table) else self.idle_days
            before = now - timedelta(days=days)
            try:
                if _parse_time(table.last) >= before:
                    continue
                reason = f"no move for {idle_text(days)}"
                if not hub.store.close_table(table.id, reason, before.replace(microsecond=0).isoformat()):
                    continue  # a move came meanwhile, or another server closed it first
            except StoreError as error:
                log.error("table %s: not closed: %s", table.id, error)
                continue
            log.info("table %s closed: %s", table.id, reason)
            closed.append(table.id)
            if live is not None:
                live.was_closed(reason)
                hub.keep_record(live)
        return closed


def idle_text(days: float) -> str:
    """``30 days``, ``a day``, ``6 hours``: how long a table went without a move before it was closed."""
    if days >= 1:
        return "a day" if days == 1 else f"{days:g} days"
    hours = days * 24
    if hours >= 1:
        return "an hour" if hours == 1 else f"{hours:.3g} hours"
    minutes = max(1, round(hours * 60))
    return "a minute" if minutes == 1 else f"{minutes} minutes"


def closed_record_text(match: Match, reason: str) -> str:
    """The record of a table closed before its game ended: the moves played, and why it was closed
    (``termgames replay`` reads it as any record of a game in progress)."""
    record = {**to_dict(match), "closed": f"closed for inactivity: {reason}; not rated"}
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"


def _nobody_comes_back(table: TableActivity) -> bool:
    """Closed after ``guest_idle_days``, not ``idle_days``: a guest's table (she made it or sits at it, and
    cannot come back to it after her visit), or one where only computers play (they played only while
    someone watched: nobody waits for it)."""
    names = [seat.get("name") for seat in table.seats]
    if is_guest(table.creator) or any(isinstance(name, str) and is_guest(name) for name in names):
        return True
    return bool(table.seats) and all(seat.get("kind") == AI for seat in table.seats)


def _parse_time(text: str) -> datetime:
    """A stored ``now_iso`` time; anything unreadable counts as long ago (such a table is idle)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
