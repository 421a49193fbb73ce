"""MonUnrail's analyst: exact where the game is decided, in results (1 won, 0 lost, 0.5 still open).

Unrailing is solved exactly (:class:`~termgames.rules.monunrail.solver.Solver`): a position is won for the
player to move when its nimber is not 0.  A removal is valued 1 when it leaves a nimber of 0 (the mover has won
against any defence), 0 otherwise; the best value is 1 when the position before was won.  A removal that turns a
won position into a lost one loses 1, a blunder, and ``best`` is a winning removal (``note`` lists them).

Building is valued with the bot's machinery (:mod:`termgames.ai.monunrail`): a placement that completes the track
is won when the finished track is worth 0 (the opponent removes first); one that leaves no completion is lost
(the opponent calls Impossible), as is one that hands the opponent a completion worth 0 (a gift); anything else
keeps the game open (0.5).  The best value is 1 when a winning completion or a right call of Impossible was
there, else the value of the bot's own move at the level.  So a building move loses 0, 0.5 (won to open, open to
lost) or 1 (won to lost).  A solve cut short by the deadline counts as open, and the note says so.

MonUnrail hides nothing: no value uses hindsight.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from ..rules import View
from ..rules.monunrail import KIND_OF_MASK, MonUnrailView, cell_name, cell_of, trace_circuit
from ..rules.monunrail.completion import SearchLimit, find_completion, finishing_placements
from ..rules.monunrail.notation import parse_move, placement_text
from ..rules.monunrail.solver import SolveStopped
from .budget import Deadline
from .judgement import Judgement
from .monunrail import MIN_NODES, NODE_LIMIT, NODES_PER_SECOND, MonUnrailBot

WON, OPEN, LOST = 1.0, 0.5, 0.0
#: Winning moves named in a note at most.
NAMED = 4

Cell = tuple[int, int]
T = TypeVar("T")


def removal_text(move: Iterable[Cell]) -> str:
    return ",".join(cell_name(c) for c in sorted(move, key=lambda c: (c[1], c[0])))


class MonUnrailAnalyst:
    unit = "results"

    def __init__(self, level: str, seed: int) -> None:
        self.level = level
        #: The bot's building move is the best one found when no completion wins (its removals are never asked:
        #: unrailing is solved here); its solver keeps every shape solved, for the later moves of the game.
        self.bot = MonUnrailBot(level, seed)
        self.solver = self.bot.solver

    def _solved(self, deadline: Deadline, work: Callable[[], T]) -> T:
        """``work()`` with the solver stopped (SolveStopped) once ``deadline`` expires."""

        def tick() -> None:
            if deadline.expired():
                raise SolveStopped("time")

        with self.solver.watching(tick):
            return work()

    def _nimber(self, cells: set[Cell], deadline: Deadline) -> int:
        return self._solved(deadline, lambda: self.solver.nimber(cells))

    def judge(self, before: View, move: str, deadline: Deadline) -> Judgement:
        if not isinstance(before, MonUnrailView) or before.viewer is None:
            raise ValueError("MonUnrail's analyst judges a seat's MonUnrail view")
        parsed = parse_move(move)
        try:
            if parsed.kind == "remove":
                return self._removal(before, set(parsed.cells), deadline)
            return self._building(before, move, deadline)
        except SolveStopped:
            return Judgement(OPEN, OPEN, None, note="not solved within the level's time")

    # -- unrailing: exact ----------------------------------------------------

    def _removal(self, before: MonUnrailView, removed: set[Cell], deadline: Deadline) -> Judgement:
        cells = set(before.unrail_cells())
        solver = self.solver
        won = self._nimber(cells, deadline) != 0
        rest = cells - removed
        played = WON if not rest or self._nimber(rest, deadline) == 0 else LOST
        best_value = WON if won else LOST
        if played >= best_value:
            return Judgement(played, best_value, None, note="won" if won else "lost whatever is removed")
        winning = [removal_text(m) for m in self._solved(deadline, lambda: solver.winning_moves(cells))]
        named = ", ".join(winning[:NAMED]) + (f" (+{len(winning) - NAMED})" if len(winning) > NAMED else "")
        return Judgement(played, best_value, winning[0], note=f"won before, lost after: winning removals {named}")

    # -- building ------------------------------------------------------------

    def _building(self, before: MonUnrailView, move: str, deadline: Deadline) -> Judgement:
        grid, supply = list(before.grid), list(before.supply)
        played = self._value_after(before, move, deadline)
        best, best_value, why = self._best_building(before, grid, supply, deadline)
        if played >= best_value:
            return Judgement(played, played, None, note=_words(played))
        return Judgement(played, best_value, best, note=f"{why}; the move played: {_words(played)}")

    def _best_building(
        self, before: MonUnrailView, grid: list[int], supply: list[int], deadline: Deadline
    ) -> tuple[str | None, float, str]:
        completable = self._completable(grid, supply, deadline)
        if completable is False:
            return "impossible", WON, "the track could not be completed: calling Impossible wins"
        tiles = {cell_of(i) for i, m in enumerate(grid) if m}
        for items in finishing_placements(grid, supply):
            cells = tiles | {cell_of(i) for i, _ in items}
            if self._nimber(cells, deadline) == 0:
                return placement_text(items), WON, "completing the track here leaves 0: won"
        if before.pie_offer:
            return None, OPEN, "the pie rule's choice is not valued"
        choice = self.bot.choose(before, deadline.share(0.6))
        return choice, self._value_after(before, choice, deadline), "the bot's move"

    def _value_after(self, before: MonUnrailView, move: str, deadline: Deadline) -> float:
        grid, supply = list(before.grid), list(before.supply)
        parsed = parse_move(move)
        if parsed.kind == "impossible":
            completable = self._completable(grid, supply, deadline)
            return OPEN if completable is None else LOST if completable else WON
        if parsed.kind != "place":
            return OPEN  # the pie rule's swap
        after, left = _after(grid, supply, parsed.items)
        if trace_circuit(after) is not None:
            cells = {cell_of(i) for i, m in enumerate(after) if m}
            return WON if self._nimber(cells, deadline) == 0 else LOST
        completable = self._completable(after, left, deadline)
        if completable is False:
            return LOST
        tiles = {cell_of(i) for i, m in enumerate(after) if m}
        for items in finishing_placements(after, left):
            cells = tiles | {cell_of(i) for i, _ in items}
            if self._nimber(cells, deadline) == 0:
                return LOST  # a gift: the opponent completes a track worth 0
        return OPEN

    def _completable(self, grid: Sequence[int], supply: Sequence[int], deadline: Deadline) -> bool | None:
        """Whether the track can still be completed; None when the search would outrun half the time left (as the
        bot's own budget)."""
        nodes = max(MIN_NODES, min(NODE_LIMIT, int(deadline.remaining() * NODES_PER_SECOND / 2)))
        try:
            return find_completion(grid, supply, node_limit=nodes) is not None
        except SearchLimit:
            return None


def _after(grid: Sequence[int], supply: Sequence[int], items: Iterable[tuple[int, int]]) -> tuple[list[int], list[int]]:
    g, s = list(grid), list(supply)
    for index, mask in items:
        g[index] = mask
        s[KIND_OF_MASK[mask]] -= 1
    return g, s


def _words(value: float) -> str:
    return {WON: "won", LOST: "lost"}.get(value, "open")


def make_analyst(level: str, seed: int) -> MonUnrailAnalyst:
    return MonUnrailAnalyst(level, seed)
