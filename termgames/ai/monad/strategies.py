"""The built-in Monad bots: random, greedy (a miner-builder) and swarm (an expander-attacker).

They think on the engine's :class:`Board` directly (per-cell tuples and the
occupied-cell list), so a 2000-turn match between two of them takes well
under two seconds.  Distances are breadth-first over free cells and cached
per target set: the obstacles never change during a match.

What the rules make of the game: a hive gains one production point a turn
plus one per unit of its owner given BUILD on it, and five points are a
unit, so units BUILDing on their own hive multiply by about 1.2 a turn.
Mining pays one resource a unit a turn, and a hive costs 100.

* ``random`` gives each of its cells a random command for a random number of units.
* ``greedy`` builds its first hive at once, keeps half of each hive's units
  (at least three) BUILDing on it and sends the others to mine the nearest
  resources, building a hive wherever it stands (away from its other hives)
  as soon as it can pay for one.  A growing economy that never attacks.
* ``swarm`` builds its first hive at once and keeps its units at home
  BUILDing (the multiplying economy), sends small parties out to mine and
  found hives nearby, and, once the mass at home is large enough, sends out
  what it takes to destroy the enemy hive that needs the fewest units (its
  defenders, its defence of 10, the growth it will have by the time they
  arrive, a margin of 1.5, twice over), the rest staying home to multiply;
  or, when no enemy holds a hive, hunts the nearest enemy units.  An army in
  the field strikes the nearest enemy hive (or units) it outnumbers, or
  comes home.

Unit counts grow without bound (BUILD multiplies units by about 1.2 a
turn).  random and greedy BUILD with at most a million units a hive, swarm
with about 10**11: their matches stay fast with small integers.
"""

from __future__ import annotations

import random
from collections import deque
from typing import Protocol

from ...rules.monad.board import HIVE_COST, Board
from ...rules.monad.geometry import DIRECTIONS, neighbour_table
from ...rules.monad.notation import LARGEST_COUNT, Command

_MOVE = "MOVE"
#: random and greedy give BUILD to at most this many units of a hive (one command: their matches stay fast).
BOOST_CAP = 1_000_000
#: swarm BUILDs with up to this many units at home: even past it, its count grows by a fifth of that a turn.
SWARM_BOOST_CAP = 10**11
#: An attack force is at most this (small integers keep its matches fast).
SWARM_MAX_FORCE = 10**12


def _times(count: int | float, factor: float) -> int | float:
    """``count * factor``: as floats while the count is small, exactly past 2**53 (an enemy fed with BUILD has
    more units than a float holds past 1.8e308, and ``count * factor`` would raise OverflowError)."""
    if isinstance(count, float) or abs(count) < 2**53:
        return count * factor
    numerator, denominator = factor.as_integer_ratio()
    return count * numerator // denominator


class Strategy(Protocol):
    def decide(self, board: Board, seat: int) -> list[Command]: ...


class _Paths:
    """Breadth-first distances over free cells for one map (targets -> distance per cell), cached."""

    def __init__(self, board: Board) -> None:
        self.width = board.width
        self.table = neighbour_table(board.width, board.height)
        self.obstacle = board.obstacle
        self._cache: dict[frozenset[int], list[int]] = {}

    def distances(self, targets: frozenset[int]) -> list[int]:
        found = self._cache.get(targets)
        if found is not None:
            return found
        far = len(self.table) + 1
        dist = [far] * len(self.table)
        queue: deque[int] = deque()
        for cell in targets:
            dist[cell] = 0
            queue.append(cell)
        table, obstacle = self.table, self.obstacle
        while queue:
            cell = queue.popleft()
            step = dist[cell] + 1
            for nb in table[cell]:
                if nb >= 0 and dist[nb] > step and not obstacle[nb]:
                    dist[nb] = step
                    queue.append(nb)
        if len(self._cache) > 256:
            self._cache.clear()
        self._cache[targets] = dist
        return dist

    def step(self, cell: int, dist: list[int]) -> int:
        """The direction index of a neighbour one step nearer (-1 when none: there already or cut off)."""
        here = dist[cell]
        for direction, nb in enumerate(self.table[cell]):
            if nb >= 0 and dist[nb] < here:
                return direction
        return -1


def _paths_for(cache: dict[tuple[int, int, tuple[bool, ...]], _Paths], board: Board) -> _Paths:
    key = (board.width, board.height, board.obstacle)
    paths = cache.get(key)
    if paths is None:
        cache.clear()
        paths = cache[key] = _Paths(board)
    return paths


def _xy(board: Board, cell: int) -> tuple[int, int]:
    return cell % board.width, cell // board.width


def _move(board: Board, cell: int, n: int, direction: int) -> list[Command]:
    x, y = _xy(board, cell)
    return [Command(x, y, part, _MOVE, DIRECTIONS[direction]) for part in _parts(n)]


def _act(board: Board, cell: int, n: int, action: str) -> list[Command]:
    x, y = _xy(board, cell)
    return [Command(x, y, part, action) for part in _parts(n)]


def _parts(n: int) -> list[int]:
    """``n`` as counts the notation can write: a cell may get several commands."""
    if n <= LARGEST_COUNT:
        return [n]
    whole, rest = divmod(n, LARGEST_COUNT)
    return [LARGEST_COUNT] * whole + ([rest] if rest else [])


# --------------------------------------------------------------------------
# random
# --------------------------------------------------------------------------


class RandomStrategy:
    """A random command for a random number of units on each of its cells."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def decide(self, board: Board, seat: int) -> list[Command]:
        rng = self.rng
        table = neighbour_table(board.width, board.height)
        commands = []
        for cell in board.occupied:
            if board.owner[cell] != seat:
                continue
            n = rng.randint(1, board.units[cell])
            kind = rng.randrange(3)
            if kind == 0:
                options = [d for d, nb in enumerate(table[cell]) if nb >= 0 and not board.obstacle[nb]]
                if options:
                    commands += _move(board, cell, n, rng.choice(options))
            elif kind == 1:
                commands += _act(board, cell, n, "MINE")
            else:
                commands += _act(board, cell, min(n, BOOST_CAP) if board.hive[cell] >= 0 else n, "BUILD")
        return commands


# --------------------------------------------------------------------------
# greedy
# --------------------------------------------------------------------------


class GreedyStrategy:
    """A miner-builder (see the module's notes)."""

    #: Units kept BUILDing on each hive; the rest go mining.
    keep = 3
    #: A new hive is built at least this far from the others.
    spacing = 3
    #: Mining targets are looked up again every so many turns (the flow field is cached between).
    refresh = 6

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self._paths: dict[tuple[int, int, tuple[bool, ...]], _Paths] = {}
        self._mine_targets: frozenset[int] = frozenset()
        self._mine_turn = -(10**9)

    def decide(self, board: Board, seat: int) -> list[Command]:
        paths = _paths_for(self._paths, board)
        owner, units, hive, resources = board.owner, board.units, board.hive, board.resources
        my_hives = frozenset(c for c in board.hive_cells if hive[c] == seat)
        if board.turn - self._mine_turn >= self.refresh or board.turn < self._mine_turn:
            self._mine_targets = frozenset(c for c in range(len(resources)) if resources[c] > 0 and hive[c] < 0)
            self._mine_turn = board.turn
        to_mine = paths.distances(self._mine_targets) if self._mine_targets else None
        to_hive = paths.distances(my_hives) if my_hives else None
        bank = board.bank[seat]
        commands: list[Command] = []
        for cell in board.occupied:
            if owner[cell] != seat:
                continue
            n = units[cell]
            if hive[cell] == seat:
                boost = min(max(min(n, self.keep), n // 2), BOOST_CAP)
                commands += _act(board, cell, boost, "BUILD")
                rest = n - boost
                if rest and to_mine is not None:
                    direction = paths.step(cell, to_mine)
                    if direction >= 0:
                        commands += _move(board, cell, rest, direction)
                continue
            if hive[cell] < 0 and bank >= HIVE_COST and (to_hive is None or to_hive[cell] >= self.spacing):
                bank -= HIVE_COST
                commands += _act(board, cell, n, "BUILD")
                continue
            if resources[cell] > 0 and hive[cell] < 0:
                commands += _act(board, cell, n, "MINE")
                continue
            target = to_mine if to_mine is not None and to_mine[cell] <= len(resources) else to_hive
            if target is not None:
                direction = paths.step(cell, target)
                if direction >= 0:
                    commands += _move(board, cell, n, direction)
        return commands


# --------------------------------------------------------------------------
# swarm
# --------------------------------------------------------------------------


class SwarmStrategy:
    """An expander-attacker (see the module's notes)."""

    #: Fraction of the home mass kept BUILDing when an attack leaves.
    reserve = 0.3
    #: Attack only with this many times the units the target is expected to need.
    margin = 1.5
    #: Units in a party sent out to mine and found a hive.
    party = 4
    #: The home mass needed before parties leave.
    party_after = 24

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self._paths: dict[tuple[int, int, tuple[bool, ...]], _Paths] = {}
        self._history: list[tuple[int, ...]] = []
        #: The cell the attack force heads for (-1: none).
        self.target = -1

    def _growth(self, seat: int, players: int) -> float:
        """The enemies' fastest unit growth a turn, over the last few turns (at least 1.05)."""
        history = self._history
        if len(history) < 6:
            return 1.2
        best = 1.05
        for enemy in range(players):
            if enemy == seat:
                continue
            before, now = history[-6][enemy], history[-1][enemy]
            if before > 0 and now > before:
                best = max(best, (now / before) ** 0.2)
        return min(best, 1.25)

    def _pick_target(self, board: Board, seat: int, paths: _Paths, home: int) -> tuple[int, int | float]:
        """The enemy hive (or, with none, unit cell) needing the fewest units; (cell, units needed)."""
        owner, units, hive = board.owner, board.units, board.hive
        from_home = paths.distances(frozenset((home,)))
        growth = self._growth(seat, board.players)
        best = -1
        best_need: int | float = float("inf")
        enemy_hives = [c for c in board.hive_cells if hive[c] != seat]
        candidates = enemy_hives or [c for c in board.occupied if owner[c] != seat]
        far = len(units)
        for cell in candidates:
            distance = from_home[cell]
            if distance > far:
                continue
            defenders = units[cell] if owner[cell] == hive[cell] or hive[cell] < 0 else 0
            need = _times(defenders + (10 if hive[cell] >= 0 else 0) + 1, growth ** min(distance, 60)) + distance
            if need < best_need:
                best, best_need = cell, need
        return best, best_need

    def decide(self, board: Board, seat: int) -> list[Command]:
        paths = _paths_for(self._paths, board)
        owner, units, hive, resources = board.owner, board.units, board.hive, board.resources
        self._history.append(board.unit_totals)
        if len(self._history) > 12:
            del self._history[0]
        mine = [c for c in board.occupied if owner[c] == seat]
        my_hives = [c for c in board.hive_cells if hive[c] == seat]
        bank = board.bank[seat]
        commands: list[Command] = []
        if not my_hives:
            return self._found_first(board, seat, mine, paths, bank)
        home = max(my_hives, key=lambda c: (units[c] if owner[c] == seat else 0, -c))
        home_units = units[home] if owner[home] == seat else 0
        most = SWARM_MAX_FORCE
        hive_set = frozenset(my_hives)
        if self.target >= 0 and (owner[self.target] == seat or (hive[self.target] < 0 and owner[self.target] < 0)):
            self.target = -1  # taken or emptied: choose again
        target, need = self._pick_target(board, seat, paths, home)
        attack_now = False
        if target >= 0:
            force = home_units - int(_times(home_units, self.reserve))
            if force >= _times(need, self.margin):
                attack_now = True
                self.target = target
            elif self.target >= 0 and hive[self.target] < 0 and hive[target] >= 0:
                self.target = target  # a hive appeared: the hunt turns to it
            elif self.target < 0 and hive[target] < 0:
                self.target = target
        to_target = paths.distances(frozenset((self.target,))) if self.target >= 0 else None
        to_hive = paths.distances(hive_set)
        for cell in mine:
            n = units[cell]
            if hive[cell] == seat:
                out = 0
                if cell == home and attack_now and to_target is not None:
                    # Enough for the target with room to spare; the rest stays home and keeps multiplying.
                    out = min(n - int(_times(n, self.reserve)), int(_times(need, self.margin * 2)) + 1, most)
                    direction = paths.step(cell, to_target)
                    if out > 0 and direction >= 0:
                        commands += _move(board, cell, out, direction)
                    else:
                        out = 0
                elif cell == home and n >= self.party_after and self.rng.random() < 0.25:
                    # a mining party: it will found a hive a few steps away
                    out = self.party
                    direction = self._party_direction(board, cell, paths)
                    if direction >= 0:
                        commands += _move(board, cell, out, direction)
                    else:
                        out = 0
                if n - out > 0:
                    commands += _act(board, cell, min(n - out, SWARM_BOOST_CAP), "BUILD")
                continue
            # away from the hives: an army strikes the nearest enemy it can beat, else comes home
            if n > self.party or to_hive[cell] > 4:
                prey = self._prey(board, seat, paths, cell, n)
                field = paths.distances(frozenset((prey,))) if prey >= 0 else to_hive
                direction = paths.step(cell, field)
                if direction >= 0:
                    commands += _move(board, cell, n, direction)
                    continue
            if hive[cell] < 0 and bank >= HIVE_COST and to_hive[cell] >= 2:
                bank -= HIVE_COST
                commands += _act(board, cell, n, "BUILD")
            elif resources[cell] > 0 and hive[cell] < 0 and to_hive[cell] <= 4:
                commands += _act(board, cell, n, "MINE")
            else:
                direction = paths.step(cell, to_hive)
                if direction >= 0:
                    commands += _move(board, cell, n, direction)
        return commands

    def _prey(self, board: Board, seat: int, paths: _Paths, cell: int, n: int) -> int:
        """The nearest enemy hive (or, with none, enemy units) that ``n`` units can beat; -1 for none."""
        owner, units, hive = board.owner, board.units, board.hive
        enemy_hives = [c for c in board.hive_cells if hive[c] != seat]
        candidates = enemy_hives or [c for c in board.occupied if owner[c] != seat]
        best, best_distance = -1, len(units) + 1
        for target in candidates:
            defenders = units[target] if owner[target] >= 0 and owner[target] != seat else 0
            if n <= defenders + (10 if hive[target] >= 0 else 0):
                continue
            distance = paths.distances(frozenset((target,)))[cell]
            if distance < best_distance:
                best, best_distance = target, distance
        return best

    def _party_direction(self, board: Board, cell: int, paths: _Paths) -> int:
        """Toward the richest free neighbour (a party mines there, then builds)."""
        best, best_value = -1, 0
        for direction, nb in enumerate(paths.table[cell]):
            free = nb >= 0 and not board.obstacle[nb] and board.hive[nb] < 0 and board.owner[nb] < 0
            if free and board.resources[nb] > best_value:
                best, best_value = direction, board.resources[nb]
        return best

    def _found_first(self, board: Board, seat: int, mine: list[int], paths: _Paths, bank: int) -> list[Command]:
        """No hive (yet, or any more): build one where the most units stand, else mine toward one."""
        commands: list[Command] = []
        if not mine:
            return commands
        biggest = max(mine, key=lambda c: (board.units[c], -c))
        for cell in mine:
            n = board.units[cell]
            if cell == biggest and bank >= HIVE_COST and board.hive[cell] < 0:
                commands += _act(board, cell, n, "BUILD")
            elif board.resources[cell] > 0 and board.hive[cell] < 0:
                commands += _act(board, cell, n, "MINE")
            else:
                rich = frozenset(c for c in range(len(board.resources)) if board.resources[c] > 0)
                if rich:
                    direction = paths.step(cell, paths.distances(rich))
                    if direction >= 0:
                        commands += _move(board, cell, n, direction)
        return commands


STRATEGIES: dict[str, type[RandomStrategy | GreedyStrategy | SwarmStrategy]] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "swarm": SwarmStrategy,
}
