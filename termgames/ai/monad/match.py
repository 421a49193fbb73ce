"""The Monad match runner: bots of any kind on seats, turn after turn, to a record.

Use it three ways::

    match = MonadMatch(["greedy", "monad1:sample/random"], options={"turns": 500}, seed=7)

    result = match.run()                      # play to the end (bots closed after)
    result = match.run(on_turn=callback)      # callback(event) after each resolved turn

    for event in match.turns():               # a generator: the caller paces the match
        draw(event.board, event.report)       # (closing it early, or an exception, stops the bots)
    result = match.result()

Each :class:`TurnEvent` holds the board after the turn, the engine's
:class:`~termgames.rules.monad.TurnReport` (commands carried out and dropped),
each seat's move text as recorded (``fault REASON`` for a lost turn) and the
faults.  ``match.record()`` is a standard termgames record (``termgames
replay``, ``show`` and ``monad trace`` read it).

The runner drives the engine's fast core (:func:`resolve_turn` on
:class:`Board`) directly rather than a :class:`~termgames.match.Match`: a
2000-turn match keeps one board at a time.  A record built from its moves
replays to the same boards (the tests check it).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...records import FORMAT, VERSION
from ...rules.monad import (
    Board,
    Command,
    Monad,
    TurnReport,
    fault_text,
    format_commands,
    make_map,
    outcome,
    resolve_turn,
)
from ...rules.monad.notation import MAX_MOVE_TEXT, fits_notation
from ...rules.numbers import short_number
from .adapters import BotAdapter, Fault, make_adapter, seat_names

FAULT_PREFIX = "fault "


@dataclass(frozen=True)
class TurnEvent:
    """One resolved turn."""

    #: The turn's number (1 for the first resolved turn).
    turn: int
    #: The position after the turn.
    board: Board
    report: TurnReport
    #: Each seat's move as recorded: its commands in the notation, or ``fault REASON``
    #: (``pass`` for a seat left with no hive and no unit: it cannot act, so its bot is not asked).
    moves: tuple[str | None, ...]
    #: Each seat's fault reason this turn (None when it answered).
    faults: tuple[str | None, ...]
    over: bool
    #: Seats that won (set on the last turn only).
    winners: tuple[int, ...] = ()


@dataclass
class BotStats:
    name: str
    description: str
    seconds: float = 0.0
    faults: int = 0
    last_fault: str | None = None


@dataclass
class MatchResult:
    names: tuple[str, ...]
    seed: int
    options: dict[str, Any]
    turns: int
    over: bool
    winners: tuple[int, ...]
    units: tuple[int, ...]
    hives: tuple[int, ...]
    resources: tuple[int, ...]
    bots: list[BotStats] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def winner_names(self) -> list[str]:
        return [self.names[seat] for seat in self.winners]

    def summary(self) -> str:
        """A few lines for a terminal: the winner, the totals and each bot's time."""
        if not self.over:
            head = f"Stopped after {self.turns} turns."
        elif len(self.winners) == 1:
            head = f"{self.names[self.winners[0]]} wins after {self.turns} turns."
        elif self.winners:
            head = f"Draw between {' and '.join(self.winner_names)} after {self.turns} turns."
        else:
            head = f"No winner after {self.turns} turns."
        width = max(len(name) for name in self.names)
        lines = [head, ""]
        lines.append(f"{'player':<{width}}  {'units':>8}  {'hives':>5}  {'resources':>9}  {'bot time':>9}  faults  bot")
        for seat, name in enumerate(self.names):
            stats = self.bots[seat] if seat < len(self.bots) else BotStats(name, "")
            lines.append(
                f"{name:<{width}}  {_short(self.units[seat]):>8}  {self.hives[seat]:>5}"
                f"  {_short(self.resources[seat]):>9}"
                f"  {stats.seconds:>8.2f}s  {stats.faults:>6}  {stats.description}"
            )
            if stats.last_fault:
                lines.append(f"{'':<{width}}  last fault: {stats.last_fault}")
        lines.append("")
        rate = self.turns / self.seconds if self.seconds > 0 else 0.0
        lines.append(f"{self.turns} turns in {self.seconds:.2f} s ({rate:,.0f} turns/s), seed {self.seed}")
        return "\n".join(lines)


def _short(number: int) -> str:
    """A count that fits a column: exact up to 8 digits, then scientific (no float: counts pass 1.8e308)."""
    return short_number(number, 8)


class MonadMatch:
    """One match between bots (see the module's notes).

    ``bots`` are :class:`BotAdapter` objects or BOT arguments (``greedy``,
    ``bot.py``, ``monad1:DIR``, a command line).  ``options`` are Monad's
    (``width``, ``height``, ``obstacles``, ``turns``).
    """

    def __init__(
        self,
        bots: Sequence[BotAdapter | str],
        options: dict[str, Any] | None = None,
        seed: int = 0,
        names: Sequence[str] | None = None,
        turn_limit: float | None = None,
        start_limit: float | None = None,
    ) -> None:
        limits: dict[str, float] = {}
        if turn_limit is not None:
            limits["turn_limit"] = turn_limit
        if start_limit is not None:
            limits["start_limit"] = start_limit
        self.adapters: list[BotAdapter] = []
        try:
            for index, bot in enumerate(bots):
                adapter = bot if isinstance(bot, BotAdapter) else make_adapter(bot, seed * 31 + index, **limits)
                self.adapters.append(adapter)
        except BaseException:
            self.close()
            raise
        self.game = Monad()
        self.names: tuple[str, ...] = tuple(names) if names else tuple(seat_names(self.adapters))
        self.game.check_seats(self.names)
        self.options: dict[str, Any] = self.game.check_options(dict(options or {}))
        self.seed = int(seed)
        self.board: Board = make_map(
            self.options["width"],
            self.options["height"],
            len(self.adapters),
            self.options["obstacles"],
            self.seed,
            limit=self.options["turns"],
        )
        self.initial: Board = self.board
        #: Each resolved turn's moves, one text per seat.
        self.moves: list[tuple[str | None, ...]] = []
        self.winners: tuple[int, ...] = ()
        self.over = False
        self.seconds = 0.0
        self._last_fault: list[str | None] = [None] * len(self.adapters)
        self._started = False

    # -- running -------------------------------------------------------------

    def turns(self) -> Iterator[TurnEvent]:
        """Play the match, yielding each resolved turn; the bots are closed when it ends or is closed."""
        began = time.perf_counter()
        try:
            self.start()
            while not self.over:
                event = self._play_turn()
                self.seconds = time.perf_counter() - began
                yield event
        finally:
            self.seconds = time.perf_counter() - began
            self.close()

    def run(self, on_turn: Callable[[TurnEvent], None] | None = None) -> MatchResult:
        """Play to the end, calling ``on_turn`` after each turn; the result."""
        for event in self.turns():
            if on_turn is not None:
                on_turn(event)
        return self.result()

    def start(self) -> None:
        """Start the bots (``turns()`` does it if need be): BotLoadError, with every bot closed, for one that
        cannot be set up (a ``.py`` file that does not load in the start-up time)."""
        if self._started:
            return
        self._started = True
        try:
            for seat, adapter in enumerate(self.adapters):
                adapter.launch(seat, self.names, self.board)
            for adapter in self.adapters:
                adapter.ready()
        except BaseException:
            self.close()
            raise
        self.over, self.winners = outcome(self.board)

    def _play_turn(self) -> TurnEvent:
        board = self.board
        # A seat with neither hive nor unit can never act again: its bot is not asked, it passes.
        playing = [seat for seat in range(len(self.adapters)) if board.alive(seat)]
        for seat in playing:
            self.adapters[seat].send(board)
        commands: list[list[Command]] = [[] for _ in self.adapters]
        moves: list[str | None] = [format_commands([])] * len(self.adapters)
        faults: list[str | None] = [None] * len(self.adapters)
        for seat in playing:
            answer = self.adapters[seat].receive()
            text = ""
            if not isinstance(answer, Fault):
                # What the record cannot hold, the turn cannot have: every record must replay.
                if not all(map(fits_notation, answer)):
                    answer = Fault("garbage: a number too long for the notation in a command")
                else:
                    text = format_commands(answer)
                    if len(text) > MAX_MOVE_TEXT:
                        answer = Fault(
                            f"garbage: {len(answer)} commands, over the {MAX_MOVE_TEXT:,} characters of a move"
                        )
                if isinstance(answer, Fault):
                    self.adapters[seat].faults += 1
            if isinstance(answer, Fault):
                # The record holds what the rules take: a bot's message made one printable line.
                move = moves[seat] = fault_text(answer.reason)
                faults[seat] = self._last_fault[seat] = move.removeprefix(FAULT_PREFIX)
            else:
                commands[seat] = answer
                moves[seat] = text
        board, report = resolve_turn(board, commands)
        if any(faults):
            # As the rules' state reports it: the lost turn first among the seat's dropped commands.
            report = TurnReport(
                carried=report.carried,
                dropped=tuple(
                    ((f"fault: {fault}",) if fault else ()) + dropped for fault, dropped in zip(faults, report.dropped)
                ),
                events=report.events,
            )
        self.board = board
        self.moves.append(tuple(moves))
        self.over, winners = outcome(board)
        if self.over:
            self.winners = winners
        return TurnEvent(
            len(self.moves), board, report, tuple(moves), tuple(faults), self.over, winners if self.over else ()
        )

    def close(self) -> None:
        """Stop every bot (kills their processes); safe to call again."""
        for adapter in self.adapters:
            with contextlib.suppress(Exception):  # closing the others matters more than why one failed
                adapter.close()

    # -- results -------------------------------------------------------------

    def result(self) -> MatchResult:
        board = self.board
        stats = [
            BotStats(name, adapter.description, adapter.seconds, adapter.faults, self._last_fault[seat])
            for seat, (name, adapter) in enumerate(zip(self.names, self.adapters))
        ]
        return MatchResult(
            names=self.names,
            seed=self.seed,
            options=dict(self.options),
            turns=len(self.moves),
            over=self.over,
            winners=self.winners,
            units=tuple(board.unit_totals),
            hives=tuple(board.hive_counts),
            resources=tuple(board.bank),
            bots=stats,
            seconds=self.seconds,
        )

    def record(self) -> dict[str, Any]:
        """The match as a standard termgames record (seats are human-kind unless built-in bots)."""
        from . import STRATEGIES

        seats = []
        for name, adapter in zip(self.names, self.adapters):
            level = adapter.description.removeprefix("built-in ")
            if adapter.description.startswith("built-in ") and level in STRATEGIES:
                seats.append({"name": name, "kind": "ai", "level": level})
            else:
                seats.append({"name": name, "kind": "human"})
        record: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game.name,
            "options": dict(self.options),
            "seats": seats,
            "seed": str(self.seed),  # version 2 writes seeds as strings of digits
            "moves": [
                {"seat": self.names[seat], "move": move, "time": ""}
                for turn in self.moves
                for seat, move in enumerate(turn)
                if move is not None
            ],
        }
        if self.over:
            # What Match.result() computes from the replayed state (records.from_dict compares them).
            record["result"] = {
                "scores": dict(zip(self.names, self.board.unit_totals)),
                "winners": [self.names[seat] for seat in self.winners],
            }
        return record

