"""Monad's analyst: a seat's commands for a turn valued in units, by playing the turn and a few more out.

Monad's seats command at once, so the mover's view before its move shows the
whole map (ruling 10) but not what the others send for the same turn: the
analyst *assumes* they send what the analyst level's built-in bot
(:mod:`.monad.strategies`: ``greedy`` by default, and for the ``random`` level
too, whose play predicts nothing) would in their seats.  It
resolves the turn with the rules (:func:`~termgames.rules.monad.turn.resolve_turn`)
once with the commands played and once with each alternative (what the
built-in ``greedy`` and ``swarm`` bots would send in the mover's seat, and a
pass), then plays :data:`LOOKAHEAD` more turns with every seat, the mover's
too, commanded by that bot, and compares where each line ends.

The value is the mover's *worth* less the strongest opponent's, in units:
units on the map, plus each hive and the resources in the bank at what they
cost (a hive 100 resources, a unit 5 production points: a hive counts as 20
units, 5 resources as one).  So a command set that throws units against a
hive that holds, or leaves a large stack idle instead of BUILDing on its hive,
loses what it costs; an even fight (both sides lose the smaller force) costs
nothing.  Unit counts grow by about a fifth a turn with BUILD, so late in long
matches the same mistake costs more units than early on.  Nothing is valued
with hindsight: the other seats' real commands are never read.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from ..rules import View
from ..rules.monad import MonadView, parse_fault
from ..rules.monad.board import HIVE_COST, UNIT_COST, Board, outcome
from ..rules.monad.notation import Command, format_commands, parse_commands
from ..rules.monad.turn import resolve_turn
from .budget import SEARCH_SHARE, Deadline
from .judgement import Judgement, mover
from .monad.strategies import STRATEGIES

UNIT = "units"
#: Turns played after the judged one, every seat commanded by the analyst level's bot.
LOOKAHEAD = 3
#: The built-in bots whose commands in the mover's seat are the alternatives (besides a pass).
ALTERNATIVES = ("greedy", "swarm")
PASS = "pass"
#: The bot assumed for a level, where it is not the level's own: the random bot predicts nothing (its line
#: would be one draw of many), so the random level assumes greedy play.
MODELS = {"random": "greedy"}


def make_analyst(level: str, seed: int) -> MonadAnalyst:
    """The analyst assuming the others (and every seat after the judged turn) play as the bot ``level``."""
    return MonadAnalyst(level, seed)


def worth(board: Board, seat: int) -> int:
    """``seat``'s units, hives and resources in production points (a unit's 5, a hive's 100 resources)."""
    return board.unit_totals[seat] * UNIT_COST + board.hive_counts[seat] * HIVE_COST + board.bank[seat]


def value_for(board: Board, seat: int) -> float:
    """``seat``'s worth less the strongest opponent's, in units."""
    others = max(worth(board, other) for other in range(board.players) if other != seat)
    try:
        return (worth(board, seat) - others) / UNIT_COST
    except OverflowError:  # counts past a float's range (a match fed with BUILD for thousands of turns)
        return math.copysign(1e300, worth(board, seat) - others)


class MonadAnalyst:
    unit = UNIT

    def __init__(self, level: str, seed: int) -> None:
        if level not in STRATEGIES:
            raise ValueError(f"Monad's built-in bots are {', '.join(STRATEGIES)}, not {level!r}")
        #: The bot the other seats (and every seat after the judged turn) are assumed to play as.
        self.model = MODELS.get(level, level)
        self.seed = seed

    def judge(self, before: View, move: str, deadline: Deadline) -> Judgement:
        if not isinstance(before, MonadView) or before.board is None:
            raise ValueError("Monad's analyst judges Monad views")
        me = mover(before)
        board = before.board
        played_commands: Sequence[Command] = () if parse_fault(move) is not None else parse_commands(move)
        search = deadline.within(deadline.remaining() * SEARCH_SHARE)
        played, turns = self._play_out(board, me, played_commands, search, LOOKAHEAD)
        alternatives: list[tuple[str, Sequence[Command]]] = [
            (name, STRATEGIES[name](self.seed).decide(board, me)) for name in ALTERNATIVES
        ]
        alternatives.append((PASS, ()))
        best: tuple[str, str] | None = None
        best_value = played
        for name, commands in alternatives:
            if search.expired():
                break
            value, reached = self._play_out(board, me, commands, search, turns)
            if reached < turns:
                break  # out of time before the same horizon: not comparable
            if value > best_value + 1e-9:
                best, best_value = (name, format_commands(commands)), value
        if best is None:
            return Judgement(played, played, None)
        name, text = best
        what = "passing" if name == PASS else f"the {name} bot's commands"
        later = "at the turn's end" if not turns else f"{turns} turn{'s' if turns != 1 else ''} after this one"
        return Judgement(played, best_value, text, note=f"{what}: {best_value - played:.3g} units better {later}")

    def _play_out(
        self, board: Board, me: int, commands: Sequence[Command], deadline: Deadline, turns: int
    ) -> tuple[float, int]:
        """The mover's value after this turn (the others as the level's bot) and up to ``turns`` more of it, with
        the turns played after this one: fewer when the match ends (then ``turns`` is given back: nothing is
        left to play) or ``deadline`` expires.  The turn itself is always resolved."""
        # Each seat's bot gets a seed of its own, drawn from the analyst's (never seed plus seat: tests/test_hostile).
        seeds = [random.Random(f"{self.seed}:{seat}").getrandbits(64) for seat in range(board.players)]
        bots = [STRATEGIES[self.model](seed) for seed in seeds]
        sent = [list(commands) if seat == me else bots[seat].decide(board, seat) for seat in range(board.players)]
        board, _report = resolve_turn(board, sent)
        for played in range(turns):
            if outcome(board)[0] or board.turn >= board.limit:
                return value_for(board, me), turns
            if deadline.expired():
                return value_for(board, me), played
            board, _report = resolve_turn(board, [bots[seat].decide(board, seat) for seat in range(board.players)])
        return value_for(board, me), turns
