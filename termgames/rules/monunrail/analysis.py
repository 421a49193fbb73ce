"""What the solver finds out about a position (:class:`Analysis`), and how a solve stops (:class:`SolveStopped`).

Below the cores (:mod:`.cores` raise :class:`SolveStopped` at a budget) and
the solver (:meth:`.solver.Solver.analyse` fills an :class:`Analysis`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from operator import xor

from .shapes import Cell, Move

# --------------------------------------------------------------------------
# How a solve stops
# --------------------------------------------------------------------------


class SolveStopped(Exception):
    """A solve stopped before its answer: a limit was reached or the caller's progress callback said so.

    ``limit`` names it ("time", "memory" or what the raiser chose).  Every
    shape solved before it stays in the solver, so a second call goes on
    from there.  Out of :meth:`Solver.analyse`, ``analysis`` holds what was
    known when it stopped; it is None elsewhere.
    """

    def __init__(self, limit: str, message: str = "") -> None:
        super().__init__(message or f"the {limit} limit was reached")
        self.limit = limit
        self.analysis: Analysis | None = None


# --------------------------------------------------------------------------
# What analyse() finds out
# --------------------------------------------------------------------------


@dataclass
class ComponentReport:
    """One connected component of a position :meth:`Solver.analyse` looked at."""

    cells: frozenset[Cell]
    #: How many legal moves it has.
    moves: int = 0
    #: Its nimber; None while it is not known.
    value: int | None = None
    #: How the value was found: "symmetric" (the second player mirrors: :func:`mirror_wins`), "line" (a
    #: straight row: the line table), "known" (the solver had it, from earlier work or its cache), "solved".
    how: str = ""
    #: The values of the positions its moves leave (the component alone), for the moves worked out so far.
    children: dict[Move, int] = field(default_factory=dict)

    @property
    def floor(self) -> int:
        """The least value it can have given the children worked out: their mex."""
        seen = set(self.children.values())
        g = 0
        while g in seen:
            g += 1
        return g


@dataclass
class Analysis:
    """What :meth:`Solver.analyse` found out about a position; complete when it returns, partial in a
    :class:`SolveStopped` or in a progress callback."""

    cells: frozenset[Cell]
    #: The whole position is won by the second player's mirroring (:func:`mirror_wins`): 0, nothing searched.
    symmetric: bool = False
    #: Its components, smallest first (none listed for a symmetric position: none was needed).
    components: list[ComponentReport] = field(default_factory=list)
    #: The nimber: the XOR of the components' values; None while one is not known.
    nimber: int | None = None
    #: Every move that leaves a position worth 0, once all are known (then sorted as :meth:`Solver.moves`).
    winning_moves: list[Move] | None = None

    @property
    def moves(self) -> int:
        return sum(k.moves for k in self.components)

    @property
    def moves_checked(self) -> int:
        """Moves whose resulting position has been valued."""
        return sum(len(k.children) for k in self.components)

    def working_on(self) -> ComponentReport | None:
        """The component being valued (the first without a value), or None once all have one."""
        return next((k for k in self.components if k.value is None), None)

    def sure_winning_moves(self) -> list[Move]:
        """The moves known so far to leave 0: all of them once :attr:`winning_moves` is set."""
        if self.winning_moves is not None:
            return self.winning_moves
        unknown = [k for k in self.components if k.value is None]
        if len(unknown) > 1:
            return []
        others = reduce(xor, (k.value for k in self.components if k.value is not None), 0)
        if unknown:
            # a move that leaves its component worth the xor of the others leaves 0, whatever the component is worth
            found = [m for m, v in unknown[0].children.items() if v == others]
        else:
            found = [m for k in self.components for m, v in k.children.items() if v == others ^ (k.value or 0)]
        found.sort(key=lambda m: (len(m), m))
        return found
