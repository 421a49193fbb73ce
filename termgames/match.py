"""The mid-end: one game in progress as seed + options + seats + moves.

Every front end (the TUI, the CLI, bots, replays, the network server) holds a
:class:`Match`.  It owns what no single game should: the move list with who
played each move and when, undo (the move list minus its tail), the views
with their redacted move logs, and the record a save file holds.  The back
end (``termgames.rules``) only knows how to apply one move to one state.
"""

from __future__ import annotations

import secrets
import time as wall
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from .clock import Clocks, ClockSpec
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
    #: At a timed table, the seconds the mover had left once the move was accepted (Fischer: with its
    #: increment; ``N/move``: what was left of N); None when untimed.
    clock: float | None = None


@dataclass(frozen=True)
class Flag:
    """A seat ran out of time once ``ply`` moves were played: a match-level entry of every game alike.

    Two seats: the game ends there, the other seat wins on time.  Three or four: the computer plays the
    seat from then on (the game's :attr:`~termgames.rules.base.Game.timeout_move` for a game that has one:
    Monad's seat passes), and it ranks last.
    """

    seat: int
    ply: int
    time: str


def now_iso(at: float | None = None) -> str:
    """The time ``at`` (seconds since the epoch; None: now) as records and stores write times: UTC, seconds."""
    moment = datetime.now(UTC) if at is None else datetime.fromtimestamp(at, UTC)
    return moment.replace(microsecond=0).isoformat()


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
        *,
        clock: ClockSpec | None = None,
    ) -> None:
        """``clock``: how the seats' clocks run (None: untimed).  The clocks count only once the table that
        plays the match starts them (:meth:`start_clocks`), with the time it reads."""
        self.game = get_game(game) if isinstance(game, str) else game
        self.seats: tuple[Seat, ...] = tuple(seats)
        if any(seat.name is None for seat in self.seats):
            raise RuleError("every seat of a match has a name")
        self.seed = int(seed)
        initial = self.game.new(options or {}, list(self.names), self.seed)
        self.options: dict[str, Any] = dict(initial.options)
        self.states: list[State] = [initial]
        self.moves: list[MoveRecord] = []
        self.clock = clock
        #: Every seat's time now (None when untimed).
        self.clocks: Clocks | None = None if clock is None else Clocks.new(clock, len(self.seats))
        #: The seats that ran out of time, in the order they did.
        self.flags: list[Flag] = []
        #: The record's ``analysis`` section as it was read or computed (raw JSON, checked against the moves by
        #: :func:`termgames.analysis_run.stored_analysis`); None when there is none.  A move or an undo drops it.
        self.analysis: Any = None

    # -- construction ------------------------------------------------------

    @classmethod
    def replay(
        cls,
        game: Game | str,
        options: dict[str, Any] | None,
        seats: Sequence[Seat],
        seed: int,
        moves: Sequence[MoveRecord],
        *,
        clock: ClockSpec | None = None,
        flags: Sequence[Flag] = (),
    ) -> Match:
        """Rebuild a match by applying every move again (RuleError names the first bad one), and its flags
        where they fell.  Its clocks show what each seat had left after its last move and do not count."""
        match = cls(game, options, seats, seed, clock=clock)
        pending = list(flags)
        if pending and clock is None:
            raise RuleError("an untimed game has no seat out of time")
        for number, record in enumerate(moves, start=1):
            match._flags_until(pending, number - 1)
            try:
                match.play(record.seat, match.game.stored_move(record.move), time=record.time, clock=record.clock)
            except RuleError as error:
                raise RuleError(f"move {number} ({quoted(record.move)}) is illegal: {error}") from None
            drawn = match.moves[-1].drawn
            if record.drawn is not None and record.drawn != drawn:
                raise RuleError(
                    f"move {number} ({quoted(record.move)}) drew {quoted(drawn or '')}, not the "
                    f"{quoted(record.drawn)} stored with it (was the seed changed?)"
                )
        match._flags_until(pending, len(moves))
        if pending:
            raise RuleError(f"a seat ran out of time after move {pending[0].ply}, but the game has {len(moves)} moves")
        return match

    def _flags_until(self, pending: list[Flag], ply: int) -> None:
        """Replaying: the flags of ``pending`` that fell after ``ply`` moves, taken from it."""
        while pending and pending[0].ply <= ply:
            flag = pending.pop(0)
            if flag.ply != ply:
                raise RuleError(f"the seats ran out of time out of order (after move {flag.ply})")
            self.flag(flag.seat, time=flag.time)

    # -- queries -----------------------------------------------------------

    @property
    def state(self) -> State:
        return self.states[-1]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(seat.name or "" for seat in self.seats)

    @property
    def over(self) -> bool:
        """The rules ended the game, or a seat's time did (:attr:`ended_by`)."""
        return self.state.is_over() or self.ended_by is not None

    @property
    def ended_by(self) -> str | None:
        """``"time"`` when a flag ended the game (two seats: the other wins), else None."""
        return "time" if self.flags and len(self.seats) == 2 else None

    @property
    def out_of_time(self) -> frozenset[int]:
        """The seats that ran out of time."""
        return frozenset(flag.seat for flag in self.flags)

    def to_move(self) -> tuple[int, ...]:
        """The seats to move now: none once the game is over (its rules', or by time)."""
        return () if self.ended_by else self.state.to_move()

    def computer_plays(self, seat: int) -> bool:
        """Whether the computer moves for ``seat``: an AI seat, or a seat that ran out of time in a game that
        goes on."""
        return self.seats[seat].is_ai or (seat in self.out_of_time and not self.over)

    def computer_level(self, seat: int) -> str:
        """The level the computer plays ``seat`` at: the seat's own, or the game's default for a seat out of time."""
        return self.seats[seat].level or self.game.default_level

    def timeout_move(self, seat: int) -> str | None:
        """What ``seat``, out of time, plays every turn when its game says (Monad: ``pass``); None: the computer
        thinks for it."""
        if seat in self.out_of_time and not self.seats[seat].is_ai:
            return self.game.timeout_move
        return None

    def clock_seats(self) -> tuple[int, ...]:
        """The seats whose clocks run now: those to move that did not run out of time (none once over)."""
        if self.clocks is None or self.over:
            return ()
        out = self.out_of_time
        return tuple(seat for seat in self.state.to_move() if seat not in out)

    def winners(self, ply: int | None = None) -> tuple[int, ...]:
        """The winners after ``ply`` moves (default: now): the rules', but a seat out of time never wins.

        Two seats: the other seat wins on time.  Three or four: the rules' winners that kept their time; if
        none did, the best score among the seats that did.
        """
        at = len(self.moves) if ply is None else ply
        flags = [flag for flag in self.flags if flag.ply <= at]
        if flags and len(self.seats) == 2:
            return tuple(seat for seat in range(2) if seat != flags[0].seat)
        state = self.states[at]
        winners = state.winners()
        if not flags or not winners:
            return winners
        out = {flag.seat for flag in flags}
        kept = tuple(seat for seat in winners if seat not in out)
        if kept:
            return kept
        scores = state.scores()
        best = max(scores[seat] for seat in range(len(self.seats)) if seat not in out)
        return tuple(seat for seat in range(len(self.seats)) if seat not in out and scores[seat] == best)

    def ranks(self) -> list[float]:
        """Each seat's rank once over (0 the best; equal ranks tie): the winners, the rest by score, and the
        seats out of time last (tied)."""
        from .rating import ranks_of

        out = self.out_of_time
        scores = self.state.scores()
        kept = [seat for seat in range(len(self.seats)) if seat not in out]
        winners = [kept.index(seat) for seat in self.winners() if seat in kept]
        ranked = ranks_of(winners, [scores[seat] for seat in kept], len(kept))
        last = max(ranked, default=-1.0) + 1
        return [ranked[kept.index(seat)] if seat in kept else last for seat in range(len(self.seats))]

    def clocks_at(self, ply: int) -> tuple[float, ...] | None:
        """What each seat had left after ``ply`` moves, as the record says (a replay's clocks); None untimed."""
        if self.clock is None:
            return None
        left = [float(self.clock.base)] * len(self.seats)
        for record in self.moves[:ply]:
            if record.clock is not None:
                left[record.seat] = record.clock
        for flag in self.flags:
            if flag.ply <= ply:
                left[flag.seat] = 0.0
        return tuple(left)

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
        view = replace(view, moves=log, players=tuple(printable(name) for name in view.players))
        return self._timed_view(view, at) if self.flags else view

    def _timed_view(self, view: View, at: int) -> View:
        """``view`` (after ``at`` moves) as the flags that fell by then leave it."""
        flags = [flag for flag in self.flags if flag.ply <= at]
        if not flags:
            return view
        names = view.players
        if len(self.seats) == 2:
            loser = flags[0].seat
            winner = 1 - loser
            return replace(
                view, over=True, to_move=(), winners=(winner,),
                status=f"{names[loser]} ran out of time: {names[winner]} wins on time",
            )
        out = " and ".join(names[flag.seat] for flag in flags)
        winners = self.winners(at)
        if view.over:
            won = " and ".join(names[seat] for seat in winners)
            status = f"Game over: {won} {'wins' if len(winners) == 1 else 'win'} ({out} ran out of time)"
        else:
            status = f"{view.status} ({out} ran out of time: the computer plays for them)"
        return replace(view, winners=winners, status=status)

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

    def play(
        self, seat: int, move: str, time: str | None = None, *, at: float | None = None, clock: float | None = None
    ) -> State:
        """Apply ``move`` by ``seat``; on RuleError nothing changes.

        ``time`` None stamps now; any text, even empty, is kept as given, so a
        replayed record whose moves carry no time does not gain one.  ``at`` and
        ``clock``: see :meth:`record`.
        """
        return self.record(prepare_move(self.state, seat, move), time, at=at, clock=clock)

    def record(
        self, prepared: PreparedMove, time: str | None = None, *, at: float | None = None, clock: float | None = None
    ) -> State:
        """Record a move prepared (maybe in a thread) against this match; RuleError if illegal now.

        Prepared against an earlier position (another seat of a simultaneous
        turn moved meanwhile), it is checked again against the current one.
        At a timed table the mover's clock is charged up to ``at`` (default: now)
        and the seats then to move start theirs; ``clock``: what the mover had
        left, as a record or another server wrote it down (kept as given).
        """
        if prepared.before is not self.state:
            prepared = prepare_move(self.state, prepared.seat, prepared.text)
        if self.ended_by is not None:
            raise RuleError("the game is over: a seat ran out of time")
        drawn = prepared.before.drawn(prepared.seat, prepared.normalised, prepared.after)
        self.states.append(prepared.after)
        left = None
        if self.clocks is not None:
            moment = wall.time() if at is None else at
            self.clocks, left = self.clocks.after_move(prepared.seat, moment, self.clock_seats())
            if clock is not None:
                left = clock
                if not self.clocks.counting or prepared.seat not in self.clocks.running:
                    self.clocks = replace(self.clocks, left=_with(self.clocks.left, prepared.seat, clock))
        self.moves.append(
            MoveRecord(prepared.seat, prepared.normalised, now_iso(at) if time is None else time, drawn, left)
        )
        self.analysis = None
        return prepared.after

    def flag(self, seat: int, at: float | None = None, time: str | None = None) -> Flag:
        """``seat`` ran out of time at ``at`` (default: now): written down as a :class:`Flag` after the moves so
        far; RuleError when the game is untimed, over, or the seat is out already."""
        if self.clocks is None:
            raise RuleError("the game is untimed")
        if self.over:
            raise RuleError("the game is over")
        if seat in self.out_of_time:
            raise RuleError(f"{self.names[seat]} ran out of time already")
        moment = wall.time() if at is None else at
        flag = Flag(seat, len(self.moves), now_iso(moment) if time is None else time)
        self.flags.append(flag)
        self.clocks = self.clocks.flagged(seat, moment)
        if self.clocks.counting:
            self.clocks = self.clocks.run(self.clock_seats(), moment)
        return flag

    def flag_notice(self, flag: Flag) -> str:
        """What everyone at the table reads when ``flag`` falls."""
        name = self.names[flag.seat]
        if len(self.seats) == 2:
            return f"{name} ran out of time: {self.names[1 - flag.seat]} wins on time"
        if self.game.timeout_move is not None:
            return f"{name} ran out of time: {name} plays {self.game.timeout_move} every turn from now on"
        return f"{name} ran out of time: the computer ({self.game.default_level}) plays for {name} from now on"

    def start_clocks(self, at: float | None = None) -> None:
        """The clocks count from ``at`` (default: now): the seats to move first, or those that were running when
        the game was saved (:meth:`Clocks.resumed`)."""
        if self.clocks is None or self.clocks.counting:
            return
        moment = wall.time() if at is None else at
        running = set(self.clocks.running)
        if running and running <= set(self.clock_seats()):
            self.clocks = self.clocks.resumed(moment)
        else:
            self.clocks = self.clocks.run(self.clock_seats(), moment)

    def pause_clocks(self, at: float | None = None) -> None:
        """No clock counts from ``at`` (the game is put away; :meth:`start_clocks` goes on from here)."""
        if self.clocks is not None and self.clocks.counting:
            self.clocks = self.clocks.paused(wall.time() if at is None else at)

    def truncate(self, ply: int, at: float | None = None) -> None:
        """Undo back to the position after ``ply`` moves (the time spent stays spent: the clocks of the seats
        then to move run from ``at``, default now)."""
        ply = max(0, min(ply, len(self.moves)))
        self.analysis = None
        del self.states[ply + 1 :]
        del self.moves[ply:]
        self.flags = [flag for flag in self.flags if flag.ply <= ply]
        if self.clocks is not None and self.clocks.counting:
            self.clocks = self.clocks.run(self.clock_seats(), wall.time() if at is None else at)

    def undo_ply_for(self, seats: Sequence[int]) -> int | None:
        """Where undo for these (human) seats goes: just before the last move one of them made.

        Moves by AI seats after it are undone too, so a human undoing against
        an AI gets their own move back.  None when there is nothing to undo.
        """
        wanted = set(seats)
        for index in range(len(self.moves) - 1, -1, -1):
            if self.moves[index].seat in wanted:
                if self.flags and index < self.flags[-1].ply:
                    return None  # a seat ran out of time since: what came before stands
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
        result: dict[str, Any] = {
            "scores": {name: exact_number(score) for name, score in zip(self.names, state.scores())},
            "winners": [self.names[seat] for seat in self.winners()],
        }
        if self.ended_by is not None:
            result["ended_by"] = self.ended_by
        return result

    def describe(self) -> str:
        players = " vs ".join(seat.describe() for seat in self.seats)
        clock = f"; clock {self.clock}" if self.clock is not None else ""
        return f"{self.game.title} ({self.game.describe_options(self.options)}): {players}{clock}"

    def rematch_seats(self) -> tuple[Seat, ...]:
        """The seats of a rematch: the same players (a computer seat keeps its level), rotated by one when the
        game gives the first seat an edge (its descriptor's ``first_player_edge``; two players swap)."""
        if self.game.descriptor.first_player_edge and len(self.seats) > 1:
            return self.seats[1:] + self.seats[:1]
        return self.seats

    def rematch(self, seed: int | None = None) -> Match:
        """A new match of the same game, options, clock and players (:meth:`rematch_seats`), on a new secret seed."""
        return Match(
            self.game, self.options, self.rematch_seats(), random_seed() if seed is None else seed, clock=self.clock
        )


def _with(values: tuple[float, ...], index: int, value: float) -> tuple[float, ...]:
    return (*values[:index], value, *values[index + 1 :])

