"""Copolymer's analyst: what a claim cost, in cells of the final margin, by the bot's own playouts.

A claim is valued by the expected final margin for its mover (their cells less the opponent's, on a full
board) after it, estimated by the playouts of :mod:`termgames.ai.copolymer` (the bot's playout policy: safe
free claims at once, each turn ended on the best-scored of a few random cells).  The claims compared are the
one played, the bot's own choice at the level (its search) and the best few by the bot's local score
(:func:`~termgames.ai.copolymer.ranked_claims`); each gets the same random draws (common random numbers), so
their differences are the claims', not the dice's.  The loss is the best value less the played one.

Copolymer hides nothing: the mover's view is the whole position, and no value uses hindsight.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..rules import View
from ..rules.copolymer import CopolymerView
from .budget import SEARCH_SHARE, Deadline
from .copolymer import EMPTY, LEVELS, CopolymerBot, Neighbours, Touch, claim, contact_counts, playout, ranked_claims
from .judgement import Judgement


@dataclass(frozen=True)
class Effort:
    """How hard one level looks at a claim."""

    #: Playouts per claim compared (fewer when the deadline comes first).
    playouts: int
    #: Claims compared besides the one played and the bot's.
    candidates: int
    #: Share of the move's deadline the bot's own choice may take.
    bot_share: float


EFFORT = {
    "easy": Effort(playouts=80, candidates=3, bot_share=0.2),
    "normal": Effort(playouts=160, candidates=5, bot_share=0.35),
    "hard": Effort(playouts=400, candidates=8, bot_share=0.45),
}


class CopolymerAnalyst:
    unit = "cells"

    def __init__(self, level: str, seed: int) -> None:
        self.level = level
        self.seed = seed
        self.effort = EFFORT[level]
        self.bot = CopolymerBot(level, seed)

    def judge(self, before: View, move: str, deadline: Deadline) -> Judgement:
        if not isinstance(before, CopolymerView) or before.board is None or before.viewer is None:
            raise ValueError("Copolymer's analyst judges a seat's Copolymer view")
        board = before.board
        me = before.viewer
        played = board.names.index(move)
        owner = [EMPTY if o is None else o for o in before.owners]
        touch = contact_counts(owner, board.neighbours)
        position = "".join(".xo"[o + 1] for o in owner)
        rng = random.Random(f"{self.seed}:{me}:{position}")
        effort = self.effort
        choice = board.names.index(self.bot.choose(before, deadline.share(effort.bot_share)))
        ranked = ranked_claims(owner, touch, me, -1, board.neighbours, rng, LEVELS[self.level])
        candidates = list(dict.fromkeys([played, choice, *ranked[: effort.candidates]]))
        totals = [0.0] * len(candidates)
        rounds = 0
        # As a bot's search: stop short of the deadline, the rest is the answer's slack.
        playing = deadline.share(SEARCH_SHARE)
        while rounds < effort.playouts and (rounds == 0 or not playing.expired()):
            for index, cell in enumerate(candidates):
                draws = random.Random(f"{self.seed}:{position}:{rounds}")
                totals[index] += self._margin_after(owner, touch, me, cell, board.neighbours, draws)
            rounds += 1
        values = [total / rounds for total in totals]
        best_index = max(range(len(candidates)), key=lambda i: (values[i], i == 0))
        best_cell = candidates[best_index]
        note = f"{rounds} playouts a claim, {len(candidates)} claims compared"
        return Judgement(
            played=values[0], best_value=values[best_index],
            best=None if best_cell == played else board.names[best_cell], note=note,
        )

    def _margin_after(
        self, owner: list[int], touch: Touch, me: int, cell: int, neighbours: Neighbours, draws: random.Random,
    ) -> float:
        """One playout's final margin for ``me`` after ``me`` claims ``cell``."""
        owner = owner[:]
        touch = (touch[0][:], touch[1][:])
        free = touch[1 - me][cell] >= 2
        claim(cell, me, owner, touch[me], neighbours)
        if EMPTY in owner:
            playout(owner, touch, me if free else 1 - me, neighbours, draws, LEVELS[self.level])
        mine = owner.count(me)
        return float(mine - (len(owner) - mine))


def make_analyst(level: str, seed: int) -> CopolymerAnalyst:
    return CopolymerAnalyst(level, seed)
