"""A hub table seen from one seat: a :class:`~termgames.table.Table`, so the game screens work unchanged.

The screen gets only what its seat may see: :meth:`SharedTable.view` always
answers with the view of the seat this table was opened for, whatever seat the
screen asks about, and the rest are public facts (names, seats, options,
whether it is over, who is thinking); never the seed nor the states, which
hold hidden boards.  The table's AI seats are played by the hub table's turn
runner, for everyone at the table.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..clock import Clocks
from ..match import HUMAN, Seat
from ..rules import Game, RuleError, View, Viewer
from ..rules.base import ALL
from ..table import Listeners, TableListener
from ..untrusted import fold_name

if TYPE_CHECKING:
    from ..table import Table
from .tables import LiveTable


def _never() -> float | None:
    """No screen: no input."""
    return None


class SharedTable:
    """One player's (or spectator's) place at a :class:`LiveTable`; also its hub subscriber."""

    save_path: Path | None = None  # every accepted move is stored by the hub

    def __init__(
        self,
        live: LiveTable,
        player: str,
        seat: Viewer,
        owner: str | None = None,
        received: Callable[[], float | None] | None = None,
    ) -> None:
        self.live = live
        #: When the screen's latest input reached the server: a move it makes is charged up to then.
        self._received = received or (lambda: None)
        self.player = player
        self.seat = seat
        #: The person at this screen (her chat lines count against her: see :meth:`LiveTable.say`).
        self.owner = owner
        self._listeners = Listeners()
        self._kept = False

    def keep(self) -> None:
        """Its screen goes but the place stays (a spectator's whose app is torn down): closing it does nothing
        until :meth:`shown` by a new screen, or :meth:`let_go`."""
        self._kept = True
        self._received = _never  # the app that went must not be held by its input's clock

    def shown(self, received: Callable[[], float | None]) -> None:
        """A new screen shows this place, with its own time of input (its app was built again)."""
        self._kept = False
        self._received = received

    def let_go(self) -> None:
        """Close a kept place: its spectator is gone without a screen again."""
        self._kept = False
        self.close()

    # -- the Table protocol --------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.live.game

    @property
    def names(self) -> tuple[str, ...]:
        return self.live.names

    @property
    def seats(self) -> tuple[Seat, ...]:
        return self.live.match.seats

    @property
    def options(self) -> dict[str, Any]:
        return self.live.match.options

    @property
    def over(self) -> bool:
        return self.live.over

    @property
    def generation(self) -> int:
        return self.live.generation

    @property
    def thinking(self) -> frozenset[int]:
        return self.live.thinking

    @property
    def table_id(self) -> int:
        return self.live.id

    @property
    def match_here(self) -> None:
        return None  # the hub keeps it, seed and hidden boards included

    @property
    def can_hurry(self) -> bool:
        return False  # the computer seats think for everyone at the table

    def time_left(self, seat: int) -> None:
        return None

    def hurry(self) -> None:
        """Nobody at a shared table cuts the computer players short for the others."""

    def local_humans(self) -> list[int]:
        return [] if self.seat is None else [self.seat]

    def viewing_seat(self) -> Viewer:
        return self.seat

    def view(self, viewer: Viewer = None) -> View:
        # Whatever the screen asks, it gets its own seat's view (every board only once the game is over).
        if viewer == ALL and self.live.over:
            return self.live.view(ALL)
        return self.live.view(self.seat)

    def read_clocks(self) -> tuple[Clocks, float] | None:
        return self.live.read_clocks()  # public, like the scores

    def _check_seat(self, seat: int) -> None:
        if self.seat is None:
            raise RuleError("spectators watch; they do not move")
        if seat != self.seat:
            raise RuleError(f"you play for {self.names[self.seat]} only")

    def play(self, seat: int, move: str) -> None:
        self._check_seat(seat)
        self.live.play(seat, move, received=self._received())

    async def play_slow(self, seat: int, move: str) -> None:
        self._check_seat(seat)
        await self.live.play_slow(seat, move, received=self._received())

    def can_undo(self) -> bool:
        return self.seat is not None  # whether the others accept is theirs to say

    def undo(self) -> str:
        """A shared game asks the other players first."""
        if self.seat is None:
            raise RuleError("Spectators cannot undo")
        return self.live.request_undo(self.seat)

    def watch(self, listener: TableListener) -> None:
        self._listeners.add(listener)

    def unwatch(self, listener: TableListener) -> None:
        self._listeners.remove(listener)

    def start(self) -> None:
        """The hub's runner plays the AI seats already."""

    def take_notice(self) -> str:
        return ""  # the hub stores every move: nothing to say about saving here

    # -- shared tables only --------------------------------------------------------

    def answer_undo(self, accept: bool) -> None:
        if self.seat is not None:
            self.live.answer_undo(self.seat, accept)

    def undo_waiting_for_me(self) -> bool:
        request = self.live.undo_request
        return request is not None and self.seat in request.waiting and request.generation == self.live.generation

    def say(self, text: str) -> None:
        """Send a chat line; RuleError (one line) when she chats faster than the server allows."""
        self.live.say(self.player, text, self.owner)

    def presence(self) -> list[tuple[str, str]]:
        return self.live.presence()

    @property
    def rated(self) -> bool:
        return self.live.rated

    def rating_note(self, name: str) -> str:
        """``27?`` (her rating at this game) or ``+2.6`` (what this finished rated game did to it), or ``""``."""
        return self.live.rating_note(name)

    def spectators(self) -> list[str]:
        return self.live.spectators()

    def chat_lines(self, muted: Collection[str] = ()) -> list[str]:
        """The table's last chat lines, but those of the players in ``muted`` (folded names)."""
        return [f"{who}: {text}" for who, text in self.live.chat if fold_name(who) not in muted]

    def people(self) -> list[str]:
        """Everyone this screen may mute: who sits here, who watches, who said something lately (not herself)."""
        found = [seat.name for seat in self.live.seats if seat.kind == HUMAN and seat.name]
        found += self.live.spectators() + [who for who, _text in self.live.chat]
        unique = {fold_name(name): name for name in reversed(found) if fold_name(name) != fold_name(self.player)}
        return sorted(unique.values(), key=str.casefold)

    # -- subscriber ------------------------------------------------------------------

    def open(self) -> None:
        self.live.subscribe(self)

    def close(self) -> None:
        if not self._kept:
            self.live.unsubscribe(self)

    def table_event(self, kind: str, text: str) -> None:
        self._listeners.tell(kind, text)


if TYPE_CHECKING:  # mypy checks here that SharedTable keeps to the protocol

    def _a_shared_table_is_a_table(table: SharedTable) -> Table:
        return table
