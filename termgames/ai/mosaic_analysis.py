"""Mosaic's analyst: a move valued in points, by where the mover's own run of steps ends after it.

Mosaic hides nothing (hands are public, nothing is drawn after the deal), so
the mover's view before the move tells the whole position and nothing the
analyst computes is hindsight.  A move is one step of a run the mover plays
alone (a whole building placement; an edge with its replacements and the
tiles placed back; a mismatch subroutine): judging the step alone would call
the first half of a good exchange a loss.  So each legal move, the one played
first, is followed by the rest of the mover's run as the bot finishes it
(:meth:`~.mosaic.MosaicBot.finish_run`: each step the best by the bot's
evaluation), and valued by the mover's score less the best opponent's where
the run ends: points, a region of n tiles scoring n squared.  The opponents'
replies are not played: the value is what the mover's own run makes of the
board.  A move that gives away points (cuts the mover's largest region,
feeds an opponent's) loses them here.
"""

from __future__ import annotations

from typing import Any

from ..rules import View
from .budget import SEARCH_SHARE, Deadline
from .judgement import Judgement, mover
from .mosaic import LEVELS, MosaicBot

UNIT = "points"


def make_analyst(level: str, seed: int) -> MosaicAnalyst:
    """The analyst finishing runs as the bot does, within the time of the bot of ``level``."""
    return MosaicAnalyst(level, seed)


def margin(state: Any, me: int) -> float:
    """``me``'s score less the best opponent's."""
    scores = state.scores()
    return float(scores[me] - max(score for seat, score in enumerate(scores) if seat != me))


class MosaicAnalyst:
    unit = UNIT

    def __init__(self, level: str, seed: int) -> None:
        self.bot = MosaicBot(LEVELS[level], seed)

    def judge(self, before: View, move: str, deadline: Deadline) -> Judgement:
        me = mover(before)
        state = self.bot.state_of(before)
        search = deadline.within(deadline.remaining() * SEARCH_SHARE)
        self.bot.start_decision(search)
        played = self._value(state, me, move.strip())
        best, best_value = None, played
        for other in state.legal_moves():
            if search.expired():
                break
            if other == move.strip():
                continue
            value = self._value(state, me, other)
            if value > best_value + 1e-9:
                best, best_value = other, value
        if best is None:
            return Judgement(played, played, None)
        return Judgement(played, best_value, best, note=f"{best} ends the run {best_value - played:g} points better")

    def _value(self, state: Any, me: int, move: str) -> float:
        """The mover's margin once ``move`` and the rest of the mover's run (finished by the bot) are played."""
        return margin(self.bot.finish_run(self.bot.after(state, move), me), me)
