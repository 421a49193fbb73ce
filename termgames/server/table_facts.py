"""What every listing says of a table, loaded or not (:class:`TableFacts`), and a finished table the server lists
without reading it whole (:class:`FinishedTable`).  A table being played is a :class:`~.tables.LiveTable`."""

from __future__ import annotations

import logging
from typing import Protocol

from ..match import AI, HUMAN, Seat
from ..rules import Game, get_game
from ..untrusted import fold_name
from .people import OPEN_PREFIX
from .stores.interface import PlayerRating, RatingChange, StoredTable, StoreError, TableStore

log = logging.getLogger("termgames.server")


class ListingHost(Protocol):
    """What a listing of a table needs of the hub (:class:`~termgames.server.hub.Hub` is one)."""

    store: TableStore

    def owner_of(self, player: str) -> str: ...

    def rating(self, player: str, game: str) -> PlayerRating | None: ...


class TableFacts:
    """What every listing says of a table, loaded or not: its game, seats, rated or casual, whom it counts
    against, whether it was closed, and what it did to ratings."""

    def __init__(self, hub: ListingHost, stored: StoredTable) -> None:
        self.hub = hub
        self.id = stored.id
        self.game: Game = get_game(stored.game)
        self.options = stored.options
        #: The seats as stored: an open seat has no name yet.
        self.seats = [Seat.from_dict(seat) for seat in stored.seats]
        self.creator = stored.creator
        self.created = stored.created
        #: Rated (the result changes the players' ratings) or casual; fixed when the table is made.
        self.rated = stored.rated
        #: Why the table was closed before its game ended ("no move for 30 days"); empty while it was not.
        self.closed = stored.closed
        self._owner = stored.owner

    @property
    def owner(self) -> str:
        """Whom the table counts against (see :func:`~.people.key_owner`); worked out from its creator for a table
        made before owners were kept."""
        if not self._owner:
            self._owner = self.hub.owner_of(self.creator)
        return self._owner

    @property
    def computers_only(self) -> bool:
        """No human seat: computers play each other (they think only while someone watches)."""
        return all(seat.kind == AI for seat in self.seats)

    def match_seats(self) -> list[Seat]:
        """The seats as the match knows them: an open seat is called ``seat-N`` until someone takes it."""
        seats = enumerate(self.seats, start=1)
        return [seat.named(f"{OPEN_PREFIX}{number}") if seat.is_open else seat for number, seat in seats]

    def seat_of(self, player: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.kind == HUMAN and seat.name == player:
                return index
        return None

    def open_seats(self) -> list[int]:
        return [index for index, seat in enumerate(self.seats) if seat.is_open]

    def human_seats(self) -> list[int]:
        return [index for index, seat in enumerate(self.seats) if seat.kind == HUMAN]

    def changes_made(self) -> list[RatingChange]:
        """What this table did to its players' ratings (nothing before it finished rated)."""
        return []

    def rating_note(self, name: str) -> str:
        """What listings add to a player's name: ``+2.6`` once this rated game changed her rating, else her
        rating at this game (``27?``), else nothing (no rated game yet, a guest)."""
        change = next((c for c in self.changes_made() if fold_name(c.player) == fold_name(name)), None)
        if change is not None:
            return f"{change.after.mu - change.before.mu:+.1f}"
        found = self.hub.rating(name, self.game.name)
        return found.rating.short() if found else ""


class FinishedTable(TableFacts):
    """A finished table the server has not read whole: what the lobby and ``tables`` list of it, from its row.

    :meth:`~.hub.Hub.table` reads it whole (its moves replayed) when a player asks for it: to replay it, for its
    record.  Start-up reads the newest :data:`~.hub.FINISHED_LISTED` of these, never a move."""

    over = True

    def __init__(self, hub: ListingHost, stored: StoredTable) -> None:
        super().__init__(hub, stored)
        self.outcome = stored.outcome
        self._changes: list[RatingChange] | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(seat.name or "" for seat in self.match_seats())

    def changes_made(self) -> list[RatingChange]:
        if self._changes is None:  # read when a listing first shows it
            try:
                self._changes = self.hub.store.rating_changes(self.id) if self.rated else []
            except StoreError as error:
                log.warning("table %s: its rating changes not read: %s", self.id, error)
                return []
        return self._changes

    def to_move(self) -> tuple[int, ...]:
        return ()

    def to_move_for(self, player: str) -> bool:
        return False

    def spectators(self) -> list[str]:
        return []

    def describe_options(self) -> str:
        return self.game.describe_options(self.options)

    def final_status(self) -> str:
        # A table finished before outcomes were kept has none: its replay shows how it ended.
        return self.outcome or "finished"
