"""Take-away's computer players: ``random`` takes any legal move, ``perfect`` plays by the heaps' nim-sum.

A heap of ``n`` counters, where a move takes 1 to ``most``, is worth ``n mod (most + 1)`` (its Grundy value);
the player to move wins when the values' exclusive or is not 0, by making it 0.  Imports: the standard
library, ``termgames.rules`` and ``termgames.ai`` only; a bot sees the game through its seat's view alone.
"""

from __future__ import annotations

import random
from functools import reduce
from operator import xor

from termgames.ai import Bot, Deadline
from termgames.rules import View

from .rules import TakeAwayView


class TakeAwayBot:
    def __init__(self, level: str, seed: int) -> None:
        self.level = level
        self.rng = random.Random(seed)

    def choose(self, view: View, deadline: Deadline | None = None) -> str:
        """Answers at once: no search, so ``deadline`` never matters."""
        assert isinstance(view, TakeAwayView)
        moves = [(heap, count) for heap, size in enumerate(view.heaps) for count in range(1, min(size, view.most) + 1)]
        if self.level == "perfect":
            worth = [size % (view.most + 1) for size in view.heaps]
            total = reduce(xor, worth, 0)
            winning = [(h, c) for h, c in moves if total ^ worth[h] ^ ((view.heaps[h] - c) % (view.most + 1)) == 0]
            moves = winning or moves
        heap, count = self.rng.choice(moves)
        return f"{heap + 1}-{count}"


def make_bot(level: str, seed: int) -> Bot:
    """The descriptor's ``bot``: ``level`` is already checked against its levels."""
    return TakeAwayBot(level, seed)
