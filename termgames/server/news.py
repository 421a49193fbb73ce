"""This server among the others sharing its store: their news, a lost database, a server that died.

Servers sharing a PostgreSQL database hear each other's changes as
:class:`~.stores.interface.StoreEvent` (a store of one process sends none).
:class:`OtherServers` takes each on the loop: news of a table this server holds
goes to the table (:meth:`~.tables.LiveTable.remote_event`), a table it does not
hold is read (:meth:`NewsHost.take_in`).  While the database is lost no news
comes, so once it is back every table is compared with what the database holds
and read again where it differs (:meth:`OtherServers.read_again`).  A server
that died leaves its tables' computer seats to the others: one of them takes
each over.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from ..rules import RuleError
from .seeks import SEEKS_NEWS, Seeks
from .stores.interface import StoreError, StoreEvent
from .tables import LiveTable, TableHost

log = logging.getLogger("termgames.server")

#: Seconds between two looks for tables whose computer seats nobody plays (their server died).
AI_TAKEOVER_SECONDS = 5.0
#: What a player sees when the database is lost under the server, and when it is back.
DATABASE_LOST = "The database cannot be reached: moves wait until it is back"
DATABASE_BACK = "The database is back: moves are accepted again"


class NewsHost(TableHost, Protocol):
    """What the news needs of the hub (:class:`~termgames.server.hub.Hub` is one): its tables, and to take in
    one it does not hold."""

    #: The unfinished tables this server plays (and the finished ones it read whole), by id.
    tables: dict[int, LiveTable]
    #: The seeks waiting (read again when another server changes them).
    seeks: Seeks

    def take_in(self, table_id: int) -> None:
        """Serve (or list, when finished) a table this server does not hold yet."""
        ...

    def challenged(self, table_id: int) -> None:
        """A table just made at another server: its players connected here hear of it."""
        ...


class OtherServers:
    """The hub's side of sharing the store: the other servers' news applied, the tables read again after the
    database was lost, the computer seats of a server that died taken over."""

    def __init__(self, hub: NewsHost) -> None:
        self.hub = hub

    def heard(self, event: StoreEvent) -> None:
        """A change made by another server process sharing the store (on the loop)."""
        hub = self.hub
        if hub.closed:
            return
        if event.kind == "offline":
            self.tell_every_table(DATABASE_LOST)
            return
        if event.kind == SEEKS_NEWS:
            hub.seeks.changed()
            return
        if event.kind == "online":
            hub.seeks.changed()  # seeks made or taken while the database was away
            self.read_again()
            self.tell_every_table(DATABASE_BACK)
            return
        try:
            live = hub.tables.get(event.table_id)
            if live is None:  # a new table (or one made while we started): load it whole, news included
                hub.take_in(event.table_id)
                if event.kind == "table":
                    hub.challenged(event.table_id)
                return
            if event.kind != "table":
                live.remote_event(event)
        except (StoreError, RuleError, LookupError, ValueError, TypeError) as error:
            log.error("table %s: news from another server not applied: %s", event.table_id, error)

    def tell_every_table(self, notice: str) -> None:
        for table in list(self.hub.tables.values()):
            if table.subscribers:
                table.broadcast("notice", notice)

    def read_again(self) -> None:
        """The database is back after a loss: read again every table that changed meanwhile.

        News sent while this server could not hear is lost; what the database holds is compared with each
        live table (seats, number of moves, the last move) instead, and a table that differs is read again.
        """
        hub = self.hub
        try:
            stored = hub.store.changes(list(hub.tables))
        except StoreError as error:  # lost again: the next ``online`` reads again
            log.error("tables not read again: %s", error)
            return
        for table_id, (seats, finished, moves, last) in stored.items():
            live = hub.tables.get(table_id)
            try:
                if live is None:
                    self.heard(StoreEvent("table", table_id, {}))  # a table made meanwhile
                    continue
                if live.differs_from(seats, moves, last) or (finished and not live.over):
                    live.reload()  # (finished here: closed for inactivity at another server meanwhile)
                if live.over and not finished:  # its last move was stored as the database went: finish it now
                    hub.finished(live)
                if finished and live.over and live.rated and not live.rating_changes:
                    live.rating_changes = hub.store.rating_changes(table_id)
                    hub.forget_ratings(live.game.name)
            except (StoreError, RuleError, LookupError, ValueError, TypeError) as error:
                log.error("table %s not read again: %s", table_id, error)
        for table in list(hub.tables.values()):
            table.read_chat_again()
            if table.over:
                continue
            table.enter_again()
            table.refresh_presence()
            if not table.runner.thinking:  # a computer seat whose move could not be stored thinks again
                table.runner.rewound()

    async def take_over_forever(self) -> None:
        """A server that died leaves its tables' computer seats to the others: one of them takes each over."""
        while not self.hub.closed:
            await asyncio.sleep(AI_TAKEOVER_SECONDS)
            for table in list(self.hub.tables.values()):
                if not table.over and not table.runner.thinking and any(
                    table.match.computer_plays(seat) for seat in table.to_move()
                ):
                    table.runner.start()
