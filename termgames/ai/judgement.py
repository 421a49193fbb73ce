"""What a game's analyst says of one move (:class:`Judgement`), and what an analyst is (:class:`Analyst`).

The analysts (``termgames/ai/<game>_analysis.py``, named by each game's descriptor) value a move from the view
of the seat that played it, before the move: what that player could know, nothing more.  The front ends that
run them and keep their results (``termgames analyse``, the replay screen, records) are
:mod:`termgames.analysis`, a layer above.

Pure Python: the standard library and the rules only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..rules import View
from .budget import Deadline


@dataclass(frozen=True)
class Judgement:
    """What a game's engine makes of one move, from the mover's side, in the game's unit."""

    #: The value of the position after the move played (higher is better for the mover).
    played: float
    #: The value after the best move the engine found (at least ``played`` when the engine is exact).
    best_value: float
    #: The engine's move, in the game's notation; None when the move played is as good as any it found.
    best: str | None
    #: True when the value used what the mover could not see then (a hidden board, a later draw).
    hindsight: bool = False
    #: A short line of the engine's reasons ("F4:S-v,F5:T-nw still completes the track"), or "".
    note: str = ""

    @property
    def loss(self) -> float:
        return max(0.0, self.best_value - self.played)


class Analyst(Protocol):
    """One game's engine as analysis sees it."""

    #: The unit of its values, as a player reads them after a number ("cells", "points", "units").
    unit: str

    def judge(self, before: View, move: str, deadline: Deadline) -> Judgement:
        """Value ``move``, played by ``before.viewer`` in the position ``before`` shows, against the best move
        found there within ``deadline``."""
        ...


def mover(before: View) -> int:
    """The seat whose move is judged: the viewer of ``before``, which must be one of the seats to move (an
    analyst values a move by what its player could know then); ValueError otherwise."""
    me = before.viewer
    if me is None or me < 0 or me not in before.to_move:
        raise ValueError("a move is judged from the view of the seat that played it")
    return me
