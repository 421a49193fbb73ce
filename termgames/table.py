"""A table: the game a screen plays at, with its seats, saves and undo.

The game screen talks only to a table, never to rules or records directly.
``LocalTable`` is a game on this machine (hot-seat and AI seats, saved after
every move); a network table (one seat per SSH client) offers the same
methods, so the screens need not know which they have.
"""

from __future__ import annotations

from pathlib import Path

from .match import Match
from .records import save
from .rules import View, Viewer


class LocalTable:
    """A match played at one keyboard, saved atomically after every change."""

    def __init__(self, match: Match, save_path: Path | None = None) -> None:
        self.match = match
        self.save_path = save_path
        self._last_human: int | None = None
        if save_path is not None:
            self.save()

    # -- who sits where ----------------------------------------------------

    @property
    def game(self):
        return self.match.game

    @property
    def names(self) -> tuple[str, ...]:
        return self.match.names

    def local_humans(self) -> list[int]:
        return self.match.human_seats()

    def ai_seats(self) -> list[int]:
        return [seat for seat, info in enumerate(self.match.seats) if info.is_ai]

    def ai_to_move(self) -> int | None:
        """The AI seat that should move now, if any."""
        for seat in self.match.state.to_move():
            if self.match.seats[seat].is_ai:
                return seat
        return None

    def viewing_seat(self) -> Viewer:
        """Whose view the screen shows: the human to move, else the last human who moved."""
        humans = self.local_humans()
        if not humans:
            return None  # AI against AI: watch as a spectator
        for seat in self.match.state.to_move():
            if seat in humans:
                return seat
        for record in reversed(self.match.moves):
            if record.seat in humans:
                return record.seat
        return humans[0]

    # -- play --------------------------------------------------------------

    def view(self, viewer: Viewer) -> View:
        return self.match.view(viewer)

    def play(self, seat: int, move: str) -> None:
        """Apply a move (RuleError says what is wrong, and nothing changes) and save."""
        self.match.play(seat, move)
        self.save()

    def undo(self) -> bool:
        """Undo: against AIs, back to before the last human move; hot-seat, one move."""
        humans = self.local_humans()
        seats = humans if self.ai_seats() and humans else None
        done = self.match.undo(seats)
        if done:
            self.save()
        return done

    def save(self) -> None:
        if self.save_path is not None:
            save(self.save_path, self.match)
