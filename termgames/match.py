"""The mid-end: one game in progress as seed + options + seats + moves.

Every front end (the TUI, the CLI, bots, replays, the network server) holds a
:class:`Match`.  It owns what no single game should: the move list with who
played each move and when, undo (the move list minus its tail), the views
with their redacted move logs, and the record a save file holds.  The back
end (``termgames.rules``) only knows how to apply one move to one state.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from .rules import Game, RuleError, State, View, Viewer, get_game
from .rules.base import ALL, default_seat_names

HUMAN = "human"
AI = "ai"


@dataclass(frozen=True)
class SeatInfo:
    """Who sits in a seat: a name, and whether a human or an AI (with its level) plays it."""

    name: str
    kind: str = HUMAN
    level: str | None = None

    @property
    def is_ai(self) -> bool:
        return self.kind == AI

    def spec(self) -> str:
        """The ``--player`` text that gives this seat back: ``NAME[:ai[:LEVEL]]``."""
        if not self.is_ai:
            return self.name
        return f"{self.name}:ai:{self.level}" if self.level else f"{self.name}:ai"

    def describe(self) -> str:
        return f"{self.name} (AI, {self.level})" if self.is_ai else self.name


def parse_player(text: str, game: Game) -> SeatInfo:
    """Parse ``NAME[:ai[:LEVEL]]``; the level defaults to the game's default."""
    parts = text.strip().split(":")
    name = parts[0].strip()
    if not name:
        raise RuleError(f"--player {text!r} has no name")
    if len(parts) == 1:
        return SeatInfo(name)
    if parts[1].strip().lower() not in (AI, HUMAN) or len(parts) > 3:
        raise RuleError(f"--player {text!r} should look like NAME, NAME:ai or NAME:ai:LEVEL")
    if parts[1].strip().lower() == HUMAN:
        if len(parts) == 3:
            raise RuleError(f"--player {text!r}: a human seat has no level")
        return SeatInfo(name)
    return SeatInfo(name, AI, game.check_level(parts[2] if len(parts) == 3 else None))


def default_seats(game: Game, count: int | None = None) -> list[SeatInfo]:
    return [SeatInfo(name) for name in default_seat_names(count or game.min_seats)]


@dataclass(frozen=True)
class MoveRecord:
    seat: int
    move: str
    time: str


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def random_seed() -> int:
    return random.SystemRandom().randrange(1, 2**31)


class Match:
    """A game in progress.  ``states[i]`` is the position after ``i`` moves."""

    def __init__(
        self,
        game: Game | str,
        options: dict[str, Any] | None,
        seats: Sequence[SeatInfo],
        seed: int,
    ) -> None:
        self.game = get_game(game) if isinstance(game, str) else game
        self.seats: tuple[SeatInfo, ...] = tuple(seats)
        self.seed = int(seed)
        initial = self.game.new(options or {}, [seat.name for seat in self.seats], self.seed)
        self.options: dict[str, Any] = dict(initial.options)
        self.states: list[State] = [initial]
        self.moves: list[MoveRecord] = []

    # -- construction ------------------------------------------------------

    @classmethod
    def replay(
        cls,
        game: Game | str,
        options: dict[str, Any] | None,
        seats: Sequence[SeatInfo],
        seed: int,
        moves: Sequence[MoveRecord],
    ) -> Match:
        """Rebuild a match by applying every move again (RuleError names the first bad one)."""
        match = cls(game, options, seats, seed)
        for number, record in enumerate(moves, start=1):
            try:
                match.play(record.seat, record.move, time=record.time)
            except RuleError as error:
                raise RuleError(f"move {number} ({record.move!r}) is illegal: {error}") from None
        return match

    # -- queries -----------------------------------------------------------

    @property
    def state(self) -> State:
        return self.states[-1]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(seat.name for seat in self.seats)

    @property
    def over(self) -> bool:
        return self.state.is_over()

    def seat_of(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise RuleError(f"there is no player {name!r} (players: {', '.join(self.names)})") from None

    def view(self, viewer: Viewer, ply: int | None = None) -> View:
        """The view of ``viewer`` after ``ply`` moves (default: now), with its move log.

        ``viewer`` is a seat, None for a spectator, or ``ALL`` for every
        board, which only a finished game shows (replays of it included).
        """
        at = len(self.moves) if ply is None else max(0, min(ply, len(self.moves)))
        state = self.states[at]
        if viewer == ALL:
            if not self.over:
                raise RuleError("every board is shown only once the game is over")
            view = state.view_all()
        else:
            view = state.view(viewer)
        # Redact as of that ply: a replay must not leak what was hidden then.
        log = state.redact_log([(record.seat, record.move) for record in self.moves[:at]], viewer)
        return replace(view, moves=log)

    def human_seats(self) -> list[int]:
        return [i for i, seat in enumerate(self.seats) if not seat.is_ai]

    # -- changes -----------------------------------------------------------

    def play(self, seat: int, move: str, time: str | None = None) -> State:
        """Apply ``move`` by ``seat``; on RuleError nothing changes.

        ``time`` None stamps now; any text, even empty, is kept as given, so a
        replayed record whose moves carry no time does not gain one.
        """
        before = self.state
        after = before.apply(seat, move)
        text = before.normalise_move(seat, move)
        self.states.append(after)
        self.moves.append(MoveRecord(seat, text, now_iso() if time is None else time))
        return after

    def truncate(self, ply: int) -> None:
        """Undo back to the position after ``ply`` moves."""
        ply = max(0, min(ply, len(self.moves)))
        del self.states[ply + 1 :]
        del self.moves[ply:]

    def undo_ply_for(self, seats: Sequence[int]) -> int | None:
        """Where undo for these (human) seats goes: just before the last move one of them made.

        Moves by AI seats after it are undone too, so a human undoing against
        an AI gets their own move back.  None when there is nothing to undo.
        """
        wanted = set(seats)
        for index in range(len(self.moves) - 1, -1, -1):
            if self.moves[index].seat in wanted:
                return index
        return None

    def undo(self, seats: Sequence[int] | None = None) -> bool:
        """Undo the last move of any of ``seats`` (default: any seat); False if none."""
        ply = self.undo_ply_for(range(len(self.seats)) if seats is None else seats)
        if ply is None:
            return False
        self.truncate(ply)
        return True

    # -- summaries ---------------------------------------------------------

    def result(self) -> dict[str, Any] | None:
        if not self.over:
            return None
        state = self.state
        return {
            "scores": {name: _number(score) for name, score in zip(self.names, state.scores())},
            "winners": [self.names[seat] for seat in state.winners()],
        }

    def describe(self) -> str:
        players = " vs ".join(seat.describe() for seat in self.seats)
        return f"{self.game.title} ({self.game.describe_options(self.options)}): {players}"


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value
