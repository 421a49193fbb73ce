"""A hub table seen from one seat, with ``LocalTable``'s interface, so the game screens work unchanged.

The screen gets only what its seat may see: :meth:`SharedTable.view` always
answers with the view of the seat this table was opened for, whatever seat the
screen asks about, and :attr:`SharedTable.match` is a :class:`PublicMatch`
(names, seats, whether it is over, the redacted move log; never the seed nor
the states, which hold hidden boards).
"""

from __future__ import annotations

from collections.abc import Callable

from ..match import SeatInfo
from ..rules import RuleError, View, Viewer
from ..rules.base import ALL
from .hub import LiveTable


class PublicMatch:
    """What a screen may read of a shared match: public facts only."""

    def __init__(self, shared: SharedTable) -> None:
        self._shared = shared

    @property
    def game(self):
        return self._shared.live.game

    @property
    def seats(self) -> tuple[SeatInfo, ...]:
        return self._shared.live.match.seats

    @property
    def names(self) -> tuple[str, ...]:
        return self._shared.live.names

    @property
    def options(self):
        return self._shared.live.match.options

    @property
    def over(self) -> bool:
        return self._shared.live.over

    @property
    def moves(self) -> tuple[tuple[int, str], ...]:
        """The move log as this seat may read it (Mono's layouts redacted)."""
        return self._shared.view(self._shared.seat).moves

    def describe(self) -> str:
        players = " vs ".join(seat.describe() for seat in self.seats)
        return f"{self.game.title} ({self.game.describe_options(self.options)}): {players}"


class SharedTable:
    """One player's (or spectator's) place at a :class:`LiveTable`; also its hub subscriber."""

    save_path = None

    def __init__(self, live: LiveTable, player: str, seat: Viewer, on_event: Callable[[str, str], None]) -> None:
        self.live = live
        self.player = player
        self.seat = seat
        self._on_event = on_event
        self.match = PublicMatch(self)

    # -- LocalTable's interface --------------------------------------------------

    @property
    def game(self):
        return self.live.game

    @property
    def names(self) -> tuple[str, ...]:
        return self.live.names

    @property
    def table_id(self) -> int:
        return self.live.id

    def local_humans(self) -> list[int]:
        return [] if self.seat is None else [self.seat]

    def ai_seats(self) -> list[int]:
        return [index for index, seat in enumerate(self.live.seats) if seat.kind == "ai"]

    def ai_to_move(self) -> int | None:
        return None  # the hub plays AI seats for everyone at the table

    def viewing_seat(self) -> Viewer:
        return self.seat

    def view(self, viewer: Viewer = None) -> View:
        # Whatever the screen asks, it gets its own seat's view (every board only once the game is over).
        if viewer == ALL and self.live.over:
            return self.live.match.view(ALL)
        return self.live.view(self.seat)

    def play(self, seat: int, move: str) -> None:
        if self.seat is None:
            raise RuleError("spectators watch; they do not move")
        if seat != self.seat:
            raise RuleError(f"you play for {self.names[self.seat]} only")
        self.live.play(seat, move)

    def undo(self) -> bool:
        return False  # a shared game asks the others first: see request_undo

    def save(self) -> None:
        """Every accepted move is stored by the hub already."""

    # -- shared tables only --------------------------------------------------------

    def request_undo(self) -> str:
        if self.seat is None:
            return "Spectators cannot undo"
        return self.live.request_undo(self.seat)

    def answer_undo(self, accept: bool) -> None:
        if self.seat is not None:
            self.live.answer_undo(self.seat, accept)

    def undo_waiting_for_me(self) -> bool:
        request = self.live.undo_request
        return request is not None and self.seat in request.waiting and request.generation == self.live.generation

    def say(self, text: str) -> None:
        self.live.say(self.player, text)

    def presence(self) -> list[tuple[str, str]]:
        return self.live.presence()

    def spectators(self) -> list[str]:
        return self.live.spectators()

    def chat_lines(self) -> list[str]:
        return [f"{who}: {text}" for who, text in self.live.chat]

    # -- subscriber ------------------------------------------------------------------

    def open(self) -> None:
        self.live.subscribe(self)

    def close(self) -> None:
        self.live.unsubscribe(self)

    def table_event(self, kind: str, text: str) -> None:
        self._on_event(kind, text)
