"""The MonUnrail computer player.

What the rules make of the game, and what the bot makes of it:

* Unrailing is an impartial game, solved by nimbers
  (:class:`~termgames.rules.monunrail.solver.Solver`): the bot takes a move to
  a position of value 0 whenever there is one, and in a lost position the
  move that keeps the most play (``best_losing_move``), so that the
  opponent has room to err.
* Completing the track hands the first removal to the opponent, so
  completing is good only when the finished track is worth 0.  The bot
  completes exactly then, and otherwise keeps the track open.
* Making the track impossible to complete loses (the opponent calls
  Impossible), so every placement the bot considers is checked with the
  exact completion search; when the search proves that no completion
  exists, the bot calls Impossible itself.
* A placement that leaves the opponent a finishing move worth 0 is a gift;
  the bot avoids those.
* Near the end of building (hard level), when only a few completions
  remain, it solves the rest of the building game exactly: the moves are
  the placements that keep a completion possible, a completion is won by
  its maker when the track is worth 0, and a position with no completion
  is won by the player to move (Impossible).
* Pie rule: on being offered the swap, the bot plays a few quick random
  games of "keep the track open and completable" from the position (the
  player who runs out of such moves is the one left to complete or to break
  the track) and swaps when they say the player to move is the likely
  loser.

Nimbers of whole tracks (18 tiles and more) take seconds in the pure Python
solver, so the bot asks the solver only about positions whose largest piece
is at most :attr:`MonUnrailBot.solve_limit` tiles (set from the solver's
implementation and adjusted by the times it measures); larger removal
positions get a heuristic move that cuts the largest piece down.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..rules.base import RuleError
from ..rules.monunrail import (
    KIND_OF_MASK,
    MonUnrailView,
    cell_name,
    cell_of,
    parse_cell,
    placement_text,
    trace_circuit,
)
from ..rules.monunrail.completion import (
    SearchLimit,
    find_completion,
    finishing_placements,
    list_completions,
    random_placement,
)
from ..rules.monunrail.solver import Solver, SolveStopped
from .budget import SEARCH_SHARE, Deadline, deadline_for

Cell = tuple[int, int]
Placement = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Level:
    name: str
    #: Candidate placements drawn per building decision.
    candidates: int
    #: A decision stops looking after this long (the answer comes within ~2 s).
    seconds: float
    #: Chance of a random removal instead of the solver's move (easy only).
    blunder: float = 0.0
    #: Quick random games for the pie decision (0: never swap).
    pie_playouts: int = 0
    #: Solve the rest of the building game exactly when at most this many completions remain (0: never).
    endgame_completions: int = 0


LEVELS = {
    "easy": Level("easy", candidates=8, seconds=0.6, blunder=0.5),
    "normal": Level("normal", candidates=40, seconds=1.2, pie_playouts=10),
    "hard": Level("hard", candidates=80, seconds=1.4, pie_playouts=16, endgame_completions=12),
}

#: Nodes the completion search may spend per question (its typical cost is tens to hundreds).
NODE_LIMIT = 20_000
#: Completion-search nodes a second, counted low (about 12,000 measured on a shared 2-core machine).
NODES_PER_SECOND = 8_000
#: Nodes a completion search gets however late in the decision (a few hundredths of a second).
MIN_NODES = 300
#: Share of the time left that the exact end of building may search before it gives up (measured, 100 games
#: a pairing under the same load: hard vs normal 72 % with 0.5, 51 % with all of it).
ENDGAME_SHARE = 0.5
#: Nodes for listing every completion before the exact endgame (a few tenths of a second at most).
ENDGAME_NODES = 5_000




def _components(cells: Iterable[Cell]) -> list[set[Cell]]:
    left = set(cells)
    pieces = []
    while left:
        start = left.pop()
        piece = {start}
        stack = [start]
        while stack:
            c, r = stack.pop()
            for nxt in ((c + 1, r), (c - 1, r), (c, r + 1), (c, r - 1)):
                if nxt in left:
                    left.remove(nxt)
                    piece.add(nxt)
                    stack.append(nxt)
        pieces.append(piece)
    return pieces


def _largest(cells: Iterable[Cell]) -> int:
    return max((len(p) for p in _components(cells)), default=0)


def _removal_text(move: Iterable[Cell]) -> str:
    return ",".join(cell_name(c) for c in sorted(move, key=lambda c: (c[1], c[0])))


def _after(grid: Sequence[int], supply: Sequence[int], items: Placement) -> tuple[list[int], list[int]]:
    g = list(grid)
    s = list(supply)
    for index, mask in items:
        g[index] = mask
        s[KIND_OF_MASK[mask]] -= 1
    return g, s


class MonUnrailBot:
    def __init__(self, level: str, seed: int) -> None:
        """The bot of ``level`` (a name from :data:`LEVELS`, checked by :func:`termgames.ai.make_bot`)."""
        self.settings = LEVELS[level]
        self.level = level
        self.rng = random.Random(seed)
        self.solver = Solver()
        implementation = getattr(self.solver, "implementation", "pure Python")
        #: Largest piece (tiles) the bot hands to the solver; adapted to measured times.
        self.solve_limit = 17 if implementation == "pure Python" else 26
        #: The current decision's deadline: its level's seconds within the caller's (the 2 s cap by default).
        self.deadline = Deadline(0.0)

    # -- the solver, within its limit -----------------------------------------

    def _note_time(self, size: int, seconds: float) -> None:
        if seconds > 0.8 and size <= self.solve_limit:
            self.solve_limit = max(8, size - 1)
        elif seconds < 0.05 and size == self.solve_limit:
            self.solve_limit += 1

    def nimber(self, cells: Iterable[Cell]) -> int | None:
        """The value of a removal position, or None when it is too large to solve in time."""
        cells = set(cells)
        size = _largest(cells)
        if size > self.solve_limit:
            return None
        start = time.perf_counter()
        value = self.solver.nimber(cells)
        self._note_time(size, time.perf_counter() - start)
        return value

    # -- entry point -------------------------------------------------------

    def choose(self, view: MonUnrailView, deadline: Deadline | None = None) -> str:
        if view.over or view.viewer not in view.to_move:
            raise RuleError("it is not the bot's turn")
        deadline = deadline_for(deadline)
        self.deadline = deadline.within(min(self.settings.seconds, deadline.remaining() * SEARCH_SHARE))
        if view.phase == "unrailing":
            return self._remove(view)
        return self._build(view)

    # -- unrailing ---------------------------------------------------------

    def _remove(self, view: MonUnrailView) -> str:
        cells = set(view.unrail_cells())
        moves = self.solver.moves(cells)
        if self.settings.blunder and self.rng.random() < self.settings.blunder:
            return _removal_text(self.rng.choice(moves))
        size = _largest(cells)
        if size <= self.solve_limit:
            start = time.perf_counter()
            winning = self.solver.winning_moves(cells)
            self._note_time(size, time.perf_counter() - start)
            if winning:
                return _removal_text(self.rng.choice(winning))
            return _removal_text(self.solver.best_losing_move(cells))
        # Too large to solve in time: cut the largest piece down towards solvable sizes.
        best_key = None
        best: list = []
        for move in moves:
            rest = cells.difference(move)
            key = (_largest(rest), -len(move))
            if best_key is None or key < best_key:
                best_key, best = key, [move]
            elif key == best_key:
                best.append(move)
        return _removal_text(self.rng.choice(best))

    # -- building ----------------------------------------------------------

    def _node_budget(self) -> int:
        """Nodes one completion search may take: at most half the decision's time left (with 99 tiles of
        each kind 20,000 nodes took 1.7 s of processor time)."""
        return max(MIN_NODES, min(NODE_LIMIT, int(self.deadline.remaining() * NODES_PER_SECOND / 2)))

    def _completable(self, grid: Sequence[int], supply: Sequence[int]) -> bool | None:
        """True/False from the exact search; None when it gave up (rare)."""
        try:
            return find_completion(grid, supply, node_limit=self._node_budget()) is not None
        except SearchLimit:
            return None

    def _finish_values(self, grid: Sequence[int], supply: Sequence[int]) -> list[tuple[Placement, int | None]]:
        """The finishing placements here, each with the value of the track it completes (None: unknown)."""
        tiles = {cell_of(i) for i, m in enumerate(grid) if m}
        result = []
        for items in finishing_placements(grid, supply):
            cells = tiles | {cell_of(i) for i, _ in items}
            # one solve can take most of a second: start none too close to the deadline
            value = self.nimber(cells) if self.deadline.remaining() > 0.4 else None
            result.append((items, value))
        return result

    def _build(self, view: MonUnrailView) -> str:
        grid, supply = list(view.grid), list(view.supply)
        if self._completable(grid, supply) is False:
            return "impossible"
        if view.pie_offer and self._should_swap(grid, supply):
            return "swap"
        finishes = self._finish_values(grid, supply)
        for items, value in finishes:
            if value == 0:
                return placement_text(items)
        if self.settings.endgame_completions:
            move = self._endgame(grid, supply)
            if move is not None:
                return move
        finishing = {items for items, _ in finishes}
        gifts: list[Placement] = []
        breaking: list[Placement] = []
        seen: set[Placement] = set()
        tries = 0
        while tries < self.settings.candidates * 3 and len(seen) < self.settings.candidates:
            tries += 1
            if seen and self.deadline.expired():
                break
            drawn = random_placement(grid, supply, self.rng)
            if drawn is None:
                break
            items = drawn
            if items in seen or items in finishing:
                continue
            seen.add(items)
            g2, s2 = _after(grid, supply, items)
            if trace_circuit(g2) is not None:
                continue
            if self._completable(g2, s2) is False:
                breaking.append(items)
                continue
            if any(value == 0 for _, value in self._finish_values(g2, s2)):
                gifts.append(items)
                continue
            return placement_text(items)
        # Nothing safe found: the least bad of completing, gifting and breaking.
        unknown = [items for items, value in finishes if value is None]
        if unknown:
            return placement_text(self.rng.choice(unknown))
        if gifts:
            return placement_text(self.rng.choice(gifts))
        if finishes:
            return placement_text(self.rng.choice([items for items, _ in finishes]))
        if breaking:
            return placement_text(self.rng.choice(breaking))
        return "impossible"

    # -- the pie rule ------------------------------------------------------

    def _should_swap(self, grid: Sequence[int], supply: Sequence[int]) -> bool:
        games = self.settings.pie_playouts
        if not games:
            return False
        budget = self.deadline.share(0.5)
        mover_wins = played = 0
        for _ in range(games):
            if budget.expired():
                break
            mover_wins += self._playout(list(grid), list(supply), budget)
            played += 1
        return played >= 4 and mover_wins / played < 0.4

    def _playout(self, grid: list[int], supply: list[int], budget: Deadline) -> int:
        """1 if the player to move wins a quick game of "keep it open" from here, else 0."""
        mover = 0
        for _ in range(60):
            moved = False
            for _ in range(6):
                if budget.expired():
                    return 1  # undecided: count it for the mover, so as not to swap on no evidence
                items = random_placement(grid, supply, self.rng)
                if items is None:
                    break
                g2, s2 = _after(grid, supply, items)
                if trace_circuit(g2) is not None:
                    continue
                try:
                    ok = find_completion(g2, s2, node_limit=2_000) is not None
                except SearchLimit:
                    ok = True
                if ok:
                    grid, supply = g2, s2
                    moved = True
                    break
            if not moved:
                return 1 if mover else 0  # the player to move is stuck and loses
            mover ^= 1
        return 1

    # -- the exact end of building (hard) ------------------------------------

    def _endgame(self, grid: Sequence[int], supply: Sequence[int]) -> str | None:
        """Solve the rest of the building game when few completions remain; None if there are too many."""
        cap = self.settings.endgame_completions
        try:
            listed = list_completions(grid, supply, cap, node_limit=ENDGAME_NODES)
        except SearchLimit:
            return None
        if not listed:
            return None
        completions = [frozenset(items) for items in listed]
        tiles = {cell_of(i) for i, m in enumerate(grid) if m}
        values: dict[frozenset, int | None] = {}
        for completion in completions:
            cells = tiles | {cell_of(i) for i, _ in completion}
            if self.deadline.remaining() < 0.4:
                return None
            value = self.nimber(cells)
            if value is None:
                return None
            values[frozenset(completion)] = value
        memo: dict[frozenset, bool] = {}
        # The exact search may not take all the time left: a search cut short must leave time for candidates.
        budget = self.deadline.share(ENDGAME_SHARE)

        def wins(placed: frozenset) -> bool:
            """Whether the player to move wins once ``placed`` (tiles of some completion) are down."""
            if placed in memo:
                return memo[placed]
            if budget.expired():
                raise SearchLimit
            alive = [c for c in values if placed <= c]
            if not alive:
                memo[placed] = True  # no completion left: Impossible
                return True
            result = False
            for move in _moves_within(grid, placed, alive):
                after = placed | move
                if after in values:
                    if values[after] == 0:
                        result = True
                        break
                    continue
                if not wins(after):
                    result = True
                    break
            memo[placed] = result
            return result

        for move in _moves_within(grid, frozenset(), list(values)):
            after = frozenset(move)
            if after in values:
                good = values[after] == 0
            else:
                try:
                    good = not wins(after)
                except SearchLimit:
                    return None
            if good:
                return placement_text(tuple(sorted(move)))
        return None


def _moves_within(
    grid: Sequence[int], placed: frozenset[tuple[int, int]], completions: list[frozenset[tuple[int, int]]]
) -> list[frozenset[tuple[int, int]]]:
    """Placements (1-3 tiles in a line, touching the track) of tiles from one of ``completions``."""
    occupied = {i for i, m in enumerate(grid) if m} | {i for i, _ in placed}
    found: set[frozenset] = set()
    for completion in completions:
        rest = sorted(completion - placed)
        by_index = dict(rest)
        for index, _mask in rest:
            for step in (1, 8):
                for length in (1, 2, 3):
                    cells = [index + step * k for k in range(length)]
                    if step == 1 and cells[-1] // 8 != index // 8:
                        continue
                    if not all(c in by_index for c in cells):
                        continue
                    touching = any(
                        nb in occupied
                        for c in cells
                        for nb in (c - 1 if c % 8 else -1, c + 1 if c % 8 != 7 else -1, c - 8, c + 8)
                        if 0 <= nb < 56
                    )
                    if touching:
                        found.add(frozenset((c, by_index[c]) for c in cells))
    return sorted(found, key=lambda m: sorted(m))


# --------------------------------------------------------------------------
# The hint a player asks for (``n`` on the MonUnrail screen)
# --------------------------------------------------------------------------

#: Completions listed by the building hint at most (beyond it the hint says there are too many to list).
HINT_COMPLETIONS = 12
#: Lines of moves the hint lists in the side panel.
HINT_SHOWN = 4

#: A line of the hint's text and its role: "bold", "plain" or "good" (a winning choice), drawn in the board's palette.
HintLine = tuple[str, str]


@dataclass(frozen=True)
class Hint:
    """What the hint shows: cells of winning moves to mark on the board, and lines for the side panel."""

    cells: frozenset[Cell]
    lines: tuple[HintLine, ...]


class HintUnfinished(Exception):
    """A hint not worked out within its budget (:data:`~termgames.solver_run.HINT_SECONDS`); what the solver
    found on the way stays, so asking again goes on from there."""


class HintGiver:
    """Hints for one game: one solver, primed from the shapes earlier games solved and keeping what it solves.

    ``hint`` is called in a worker thread (a large position takes seconds);
    one lock keeps the solver, whose memory every hint of the game shares,
    to one thread at a time.  A hint has a budget (2 s, and the solve's memory
    budget): past it, :class:`HintUnfinished`.
    """

    def __init__(self) -> None:
        self._solver: Solver | None = None
        self._saved_size = 0
        self._lock = threading.Lock()

    def hint(self, view: MonUnrailView) -> Hint:
        """The hint for the player to move in ``view`` (see :func:`hint_for`); blocks while another is worked out."""
        from ..solver_run import HINT_SECONDS, Budget

        with self._lock:
            solver = self._primed_solver()
            budget = Budget(HINT_SECONDS)
            try:
                with solver.watching(lambda: budget.check(solver)):
                    result = hint_for(view, solver)
            except SolveStopped as stop:
                raise HintUnfinished(
                    f"not worked out within {budget.describe(stop.limit)}; what was solved is kept: ask again to go on"
                ) from None
            finally:
                solver.memory_limit = None
                self._keep_solved_shapes(solver)
        return result

    def _primed_solver(self) -> Solver:
        if self._solver is None:
            from .. import solver_cache

            self._solver = Solver()
            solver_cache.load(self._solver)
            self._saved_size = self._solver.cache_size
        return self._solver

    def _keep_solved_shapes(self, solver: Solver) -> None:
        """Add what this hint solved to the cache file, for the next game."""
        from .. import solver_cache

        if solver.cache_size > self._saved_size:
            solver_cache.save(solver)
            self._saved_size = solver.cache_size


def hint_for(view: MonUnrailView, solver: Solver) -> Hint:
    """The hint for the player to move: cells to mark and lines for the side panel.

    A line breaks only where a thought ends: the panel wraps the rest at words, whatever its width.

    Unrailing: the nimber of the position and its winning moves (removals
    that leave 0).  Building: the placements that complete the track now
    with the value they leave (the opponent removes first, so 0 wins for
    the player who completes); with none, the few ways left to complete the
    track, each with the value of the finished track.
    """
    bold, plain, good = "bold", "plain", "good"  # roles: the board draws them in its palette
    who = view.players[view.to_move[0]] if view.to_move else ""
    lines: list[HintLine] = []
    cells: set[Cell] = set()
    if view.phase == "unrailing":
        value, texts = view.unrail_hint(solver)
        # The player to move, and what best play gives her from here: a forecast, never the game's result.
        if value == 0:
            lines += [("Nimber 0: ", bold), (f"{who} (to move) loses against best play\n", plain)]
            return Hint(frozenset(), tuple(lines))
        lines += [(f"Nimber {value}: ", bold), (f"{who} (to move) can win with best play\n", plain)]
        lines += [("Winning: ", bold)]
        shown = "  ".join(texts[:HINT_SHOWN])
        more = f" +{len(texts) - HINT_SHOWN}" if len(texts) > HINT_SHOWN else ""
        lines += [(shown, good), (f"{more}\n", plain)]
        for text in texts:
            cells |= {parse_cell(name) for name in text.split(",")}
        return Hint(frozenset(cells), tuple(lines))
    finishing = view.finishing_nimbers(solver)
    if finishing:
        lines.append(("Completing moves, and the value they leave (0 wins):\n", bold))
        finishing.sort(key=lambda item: (item[1] != 0, item[0]))
        for text, value in finishing[:HINT_SHOWN]:
            lines += [(f" {text} ", good if value == 0 else plain), (f"{value}\n", good if value == 0 else plain)]
            if value == 0:
                cells |= {parse_cell(part.split(":")[0]) for part in text.split(",")}
        if len(finishing) > HINT_SHOWN:
            lines.append((f" and {len(finishing) - HINT_SHOWN} more\n", plain))
        return Hint(frozenset(cells), tuple(lines))
    ways = view.completions(limit=HINT_COMPLETIONS)
    if ways is None:
        lines.append(("Hint: no move completes the track now; many ways remain\n", plain))
        return Hint(frozenset(), tuple(lines))
    if not ways:
        lines.append(("Hint: the track cannot be completed any more (i)\n", good))
        return Hint(frozenset(), tuple(lines))
    track = view.unrail_cells()
    valued = []
    for text in ways:
        added = {parse_cell(part.split(":")[0]) for part in text.split(",")}
        valued.append((text, solver.nimber(set(track) | added)))
    valued.sort(key=lambda item: (item[1] != 0, len(item[0]), item[0]))
    noun = "way" if len(ways) == 1 else "ways"
    lines.append((f"{len(ways)} {noun} to complete left (value of the track):\n", bold))
    for text, value in valued[:HINT_SHOWN]:
        lines.append((f" {text} {value}\n", good if value == 0 else plain))
    if len(valued) > HINT_SHOWN:
        lines.append((f" and {len(valued) - HINT_SHOWN} more\n", plain))
    return Hint(frozenset(), tuple(lines))

