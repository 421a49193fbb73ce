"""The mid-end: one game in progress as seed + options + seats + moves.

Every front end (the TUI, the CLI, bots, replays, the network server) holds a
:class:`Match`.  It owns what no single game should: the move list with who
played each move and when, undo (the move list minus its tail), the views
with their redacted move logs, and the record a save file holds.  The back
end (``termgames.rules``) only knows how to apply one move to one state.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from .rules import Game, RuleError, State, View, Viewer, get_game
from .rules.base import ALL, default_seat_names
from .rules.numbers import exact_number
from .untrusted import BadName, check_name, normal_name, printable, quoted

HUMAN = "human"
AI = "ai"


@dataclass(frozen=True)
class Seat:
    """Who sits in a seat: a name, and whether a human or an AI (with its level) plays it.

    The one seat model of every front end: a match's seats, a record's, a
    shared table's.  Only a shared table has open seats (``name`` None, a human
    seat anyone may take); a match names every seat (see :meth:`named`).
    """

    name: str | None = None
    kind: str = HUMAN
    level: str | None = None

    @property
    def is_ai(self) -> bool:
        return self.kind == AI

    @property
    def is_open(self) -> bool:
        return not self.is_ai and self.name is None

    def named(self, name: str) -> Seat:
        """This seat, or an open seat, with a name."""
        return replace(self, name=name)

    def spec(self) -> str:
        """The ``--player`` text that gives this seat back: ``NAME[:ai[:LEVEL]]``."""
        if not self.is_ai:
            return self.name or ""
        return f"{self.name}:ai:{self.level}" if self.level else f"{self.name}:ai"

    def describe(self) -> str:
        if self.is_ai:
            return f"{self.name} (AI, {self.level})"
        return self.name or "open seat"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "level": self.level}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Seat:
        return cls(data.get("name"), data.get("kind", HUMAN), data.get("level"))


#: The seat's former name in the mid-end, kept for branches written before the two seat models became one.
SeatInfo = Seat


def parse_player(text: str, game: Game) -> Seat:
    """Parse ``NAME[:ai[:LEVEL]]`` or ``NAME:LEVEL`` (``cpu:greedy``); the level defaults to the game's default;
    the name must pass ``check_name``."""
    parts = text.strip().split(":")
    name = normal_name(parts[0])
    shown = quoted(text)
    if not name:
        raise RuleError(f"--player {shown} has no name")
    try:
        check_name(name)
    except BadName as error:
        raise RuleError(str(error)) from None
    if len(parts) == 1:
        return Seat(name)
    if len(parts) == 2 and parts[1].strip().lower() in game.ai_levels:
        return Seat(name, AI, parts[1].strip().lower())  # NAME:LEVEL, e.g. cpu:greedy
    if parts[1].strip().lower() not in (AI, HUMAN) or len(parts) > 3:
        raise RuleError(f"--player {shown} should look like NAME, NAME:ai, NAME:ai:LEVEL or NAME:LEVEL")
    if parts[1].strip().lower() == HUMAN:
        if len(parts) == 3:
            raise RuleError(f"--player {shown}: a human seat has no level")
        return Seat(name)
    return Seat(name, AI, game.check_level(parts[2] if len(parts) == 3 else None))


def default_seats(game: Game, count: int | None = None) -> list[Seat]:
    return [Seat(name) for name in default_seat_names(count or game.min_seats)]


@dataclass(frozen=True)
class PreparedMove:
    """A move checked against a position, with the state it leads to, ready to record.

    Working it out is pure (states never change), so it may run in a worker
    thread; recording it (:meth:`Match.record`) is done where the match lives.
    """

    before: State
    seat: int
    #: The move as given, and as the rules write it down.
    text: str
    normalised: str
    after: State


def prepare_move(state: State, seat: int, move: str) -> PreparedMove:
    """Check ``move`` by ``seat`` in ``state`` (RuleError if illegal) without recording it anywhere."""
    after = state.apply(seat, move)
    return PreparedMove(state, seat, move, state.normalise_move(seat, move), after)


@dataclass(frozen=True)
class MoveRecord:
    seat: int
    move: str
    time: str
    #: What the move drew at random (``State.drawn``), None when it drew nothing: a record keeps it, so
    #: that what happened is written down and an edited seed cannot re-roll it.
    drawn: str | None = None


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


#: Bits of a fresh seed: every hidden random outcome of a game comes from its seed, so it must be beyond
#: guessing (31 bits were searched in an hour on two cores).
SEED_BITS = 128


def random_seed() -> int:
    """A fresh secret seed of :data:`SEED_BITS` bits from the operating system's secure source."""
    return secrets.randbits(SEED_BITS) | 1  # never 0: "no seed" must not be mistaken for one


class Match:
    """A game in progress.  ``states[i]`` is the position after ``i`` moves."""

    def __init__(
        self,
        game: Game | str,
        options: dict[str, Any] | None,
        seats: Sequence[Seat],
        seed: int,
    ) -> None:
        self.game = get_game(game) if isinstance(game, str) else game
        self.seats: tuple[Seat, ...] = tuple(seats)
        if any(seat.name is None for seat in self.seats):
            raise RuleError("every seat of a match has a name")
        self.seed = int(seed)
        initial = self.game.new(options or {}, list(self.names), self.seed)
        self.options: dict[str, Any] = dict(initial.options)
        self.states: list[State] = [initial]
        self.moves: list[MoveRecord] = []

    # -- construction ------------------------------------------------------

    @classmethod
    def replay(
        cls,
        game: Game | str,
        options: dict[str, Any] | None,
        seats: Sequence[Seat],
        seed: int,
        moves: Sequence[MoveRecord],
    ) -> Match:
        """Rebuild a match by applying every move again (RuleError names the first bad one)."""
        match = cls(game, options, seats, seed)
        for number, record in enumerate(moves, start=1):
            try:
                match.play(record.seat, match.game.stored_move(record.move), time=record.time)
            except RuleError as error:
                raise RuleError(f"move {number} ({quoted(record.move)}) is illegal: {error}") from None
            drawn = match.moves[-1].drawn
            if record.drawn is not None and record.drawn != drawn:
                raise RuleError(
                    f"move {number} ({quoted(record.move)}) drew {quoted(drawn or '')}, not the "
                    f"{quoted(record.drawn)} stored with it (was the seed changed?)"
                )
        return match

    # -- queries -----------------------------------------------------------

    @property
    def state(self) -> State:
        return self.states[-1]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(seat.name or "" for seat in self.seats)

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
        # Names came from players and files: a screen, the CLI and the server all draw them from here.
        return replace(view, moves=log, players=tuple(printable(name) for name in view.players))

    def bot_seed(self, seat: int) -> int:
        """The seed of the computer player in ``seat``: from the table's secret seed through ``State.rng``.

        A bot's moves are public and follow from its seed, so its seed must tell nothing about the table's
        (``seed + seat`` would hand over every hidden board to whoever recovers one bot's seed).
        """
        return self.states[0].rng(f"bot:{seat}").getrandbits(64)

    def setup_drawn(self) -> str | None:
        """What setting the game up drew at random (``State.setup_drawn``), None when nothing."""
        return self.states[0].setup_drawn()

    def human_seats(self) -> list[int]:
        return [i for i, seat in enumerate(self.seats) if not seat.is_ai]

    # -- changes -----------------------------------------------------------

    def play(self, seat: int, move: str, time: str | None = None) -> State:
        """Apply ``move`` by ``seat``; on RuleError nothing changes.

        ``time`` None stamps now; any text, even empty, is kept as given, so a
        replayed record whose moves carry no time does not gain one.
        """
        return self.record(prepare_move(self.state, seat, move), time)

    def record(self, prepared: PreparedMove, time: str | None = None) -> State:
        """Record a move prepared (maybe in a thread) against this match; RuleError if illegal now.

        Prepared against an earlier position (another seat of a simultaneous
        turn moved meanwhile), it is checked again against the current one.
        """
        if prepared.before is not self.state:
            prepared = prepare_move(self.state, prepared.seat, prepared.text)
        drawn = prepared.before.drawn(prepared.seat, prepared.normalised, prepared.after)
        self.states.append(prepared.after)
        self.moves.append(
            MoveRecord(prepared.seat, prepared.normalised, now_iso() if time is None else time, drawn)
        )
        return prepared.after

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
            "scores": {name: exact_number(score) for name, score in zip(self.names, state.scores())},
            "winners": [self.names[seat] for seat in state.winners()],
        }

    def describe(self) -> str:
        players = " vs ".join(seat.describe() for seat in self.seats)
        return f"{self.game.title} ({self.game.describe_options(self.options)}): {players}"

    def rematch_seats(self) -> tuple[Seat, ...]:
        """The seats of a rematch: the same players (a computer seat keeps its level), rotated by one when the
        game gives the first seat an edge (its descriptor's ``first_player_edge``; two players swap)."""
        if self.game.descriptor.first_player_edge and len(self.seats) > 1:
            return self.seats[1:] + self.seats[:1]
        return self.seats

    def rematch(self, seed: int | None = None) -> Match:
        """A new match of the same game, options and players (:meth:`rematch_seats`), on a new secret seed."""
        return Match(self.game, self.options, self.rematch_seats(), random_seed() if seed is None else seed)

