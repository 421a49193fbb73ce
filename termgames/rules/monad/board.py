"""Monad's position: the :class:`Board` value, the maps a match starts on, victory, and its JSON.

A :class:`Board` is a value (tuples only) indexed ``y * width + x``.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..base import RuleError, seeded_rng
from .geometry import hex_distance, neighbour_table

HIVE_COST = 100
START_RESOURCES = 100
HIVE_DEFENCE = 10
UNIT_COST = 5  # production points per new unit
MAX_CELL_RESOURCES = 50
DEFAULT_SIZE = 20
DEFAULT_LIMIT = 2000
MAX_OBSTACLE_DENSITY = 0.5


# --------------------------------------------------------------------------
# Board
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board:
    """One position of a match, treated as a value: per-cell tuples indexed ``y * width + x``."""

    width: int
    height: int
    players: int
    turn: int
    limit: int
    resources: tuple[int, ...]
    obstacle: tuple[bool, ...]
    #: Seat whose units stand in the cell, -1 when none.
    owner: tuple[int, ...]
    units: tuple[int, ...]
    #: Seat owning the hive in the cell, -1 when none.
    hive: tuple[int, ...]
    #: Production points of the cell's hive toward its next unit.
    production: tuple[int, ...]
    #: Resources each player holds.
    bank: tuple[int, ...]
    #: Whether each player has ever held a hive (ruling 9: "lost its last hive").
    had_hive: tuple[bool, ...]
    #: Each seat's start cell.
    starts: tuple[int, ...]
    # Derived, kept so that a turn need not scan the whole map.
    occupied: tuple[int, ...] = field(default=(), compare=False)
    hive_cells: tuple[int, ...] = field(default=(), compare=False)
    unit_totals: tuple[int, ...] = field(default=(), compare=False)
    hive_counts: tuple[int, ...] = field(default=(), compare=False)

    def index(self, x: int, y: int) -> int:
        return y * self.width + x

    def xy(self, cell: int) -> tuple[int, int]:
        return cell % self.width, cell // self.width

    def on_map(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def alive(self, seat: int) -> bool:
        """A seat with a hive or a unit can still act; one with neither never can again."""
        return self.unit_totals[seat] > 0 or self.hive_counts[seat] > 0

    def with_derived(self) -> Board:
        """This board with its derived fields computed from the cells (after building one by hand)."""
        occupied = tuple(i for i, n in enumerate(self.units) if n > 0)
        hives = tuple(i for i, h in enumerate(self.hive) if h >= 0)
        totals = [0] * self.players
        for cell in occupied:
            totals[self.owner[cell]] += self.units[cell]
        counts = [0] * self.players
        for cell in hives:
            counts[self.hive[cell]] += 1
        return replace(
            self, occupied=occupied, hive_cells=hives, unit_totals=tuple(totals), hive_counts=tuple(counts)
        )


def empty_board(width: int, height: int, players: int, limit: int = DEFAULT_LIMIT) -> Board:
    """A board with no resources, obstacles, units or hives (for tests and hand-made positions)."""
    cells = width * height
    return Board(
        width=width,
        height=height,
        players=players,
        turn=0,
        limit=limit,
        resources=(0,) * cells,
        obstacle=(False,) * cells,
        owner=(-1,) * cells,
        units=(0,) * cells,
        hive=(-1,) * cells,
        production=(0,) * cells,
        bank=(0,) * players,
        had_hive=(False,) * players,
        starts=(),
    ).with_derived()


def start_cells(width: int, height: int, players: int) -> tuple[tuple[int, int], ...]:
    """Ruling 2: the original engine's start cells, scaled from its 20x20 map."""
    if players == 2:
        # (1,1) and (18,18) on 20x20: each other's image under the 180-degree rotation.
        return ((1, 1), (width - 2, height - 2))
    base = {3: ((5, 5), (10, 14), (15, 5)), 4: ((5, 5), (5, 15), (15, 5), (15, 15))}[players]
    return tuple((x * width // DEFAULT_SIZE, y * height // DEFAULT_SIZE) for x, y in base)


def _regions(width: int, height: int, starts: Sequence[tuple[int, int]]) -> list[int]:
    """Each cell's start region: the nearest start cell (ties to the earlier seat)."""
    regions = []
    for y in range(height):
        for x in range(width):
            distances = [hex_distance((x, y), s) for s in starts]
            regions.append(distances.index(min(distances)))
    return regions


def _connected(width: int, height: int, obstacle: Sequence[bool], starts: Sequence[int]) -> bool:
    """Whether every start cell can reach every other over free cells."""
    table = neighbour_table(width, height)
    seen = {starts[0]}
    queue = deque([starts[0]])
    while queue:
        cell = queue.popleft()
        for nb in table[cell]:
            if nb >= 0 and nb not in seen and not obstacle[nb]:
                seen.add(nb)
                queue.append(nb)
    return all(s in seen for s in starts)


def _symmetric_layout(
    rng: random.Random, width: int, height: int, obstacles: float, starts: Sequence[int]
) -> tuple[list[int], list[bool]]:
    """Two players: resources and obstacles invariant under (x, y) -> (W-1-x, H-1-y)."""
    cells = width * height
    resources = [0] * cells
    obstacle = [False] * cells
    for cell in range(cells):
        image = cells - 1 - cell  # the 180-degree rotation of y * W + x
        if image < cell:
            continue
        value = rng.randint(0, MAX_CELL_RESOURCES)
        blocked = obstacles > 0 and rng.random() < obstacles and cell not in starts and image not in starts
        resources[cell] = resources[image] = 0 if blocked else value
        obstacle[cell] = obstacle[image] = blocked
    return resources, obstacle


def _regional_layout(
    rng: random.Random, width: int, height: int, obstacles: float, starts: Sequence[tuple[int, int]]
) -> tuple[list[int], list[bool]]:
    """Three or four players: every start region gets the same resource and obstacle totals."""
    cells = width * height
    regions = _regions(width, height, starts)
    members: list[list[int]] = [[] for _ in starts]
    for cell, region in enumerate(regions):
        members[region].append(cell)
    start_index = {y * width + x for x, y in starts}
    obstacle = [False] * cells
    candidates = [[c for c in group if c not in start_index] for group in members]
    per_region = int(obstacles * min(len(group) for group in candidates) + 0.5)
    for group in candidates:
        for cell in rng.sample(group, per_region):
            obstacle[cell] = True
    resources = [0 if obstacle[c] else rng.randint(0, MAX_CELL_RESOURCES) for c in range(cells)]
    totals = [sum(resources[c] for c in group) for group in members]
    target = min(totals)
    for group, total in zip(members, totals):
        # Take the excess away one resource at a time from random cells that still have some.
        excess = total - target
        rich = [c for c in group if resources[c] > 0]
        while excess > 0:
            pick = rng.randrange(len(rich))
            cell = rich[pick]
            take = min(excess, resources[cell], rng.randint(1, 5))
            resources[cell] -= take
            excess -= take
            if resources[cell] == 0:
                rich[pick] = rich[-1]
                rich.pop()
    return resources, obstacle


def make_map(
    width: int, height: int, players: int, obstacles: float, seed: int, limit: int = DEFAULT_LIMIT
) -> Board:
    """The initial board (rulings 2 and 3): symmetric resources 0-50 and obstacles, one unit per start cell."""
    if not 2 <= players <= 4:
        raise RuleError(f"Monad is played by 2 to 4 players, not {players}")
    starts = start_cells(width, height, players)
    start_index = [y * width + x for x, y in starts]
    if len(set(start_index)) != players:
        raise RuleError(f"a {width}x{height} map is too small for {players} players")
    # From the table's seed through the rules' one random source (base.seeded_rng), like every draw.
    rng = seeded_rng(seed, f"monad-map:{width}x{height}:{players}:{obstacles!r}")
    density = obstacles
    for attempt in range(60):
        if players == 2:
            resources, obstacle = _symmetric_layout(rng, width, height, density, start_index)
        else:
            resources, obstacle = _regional_layout(rng, width, height, density, starts)
        if _connected(width, height, obstacle, start_index):
            break
        if attempt % 20 == 19:
            density /= 2  # dense obstacles cut players apart too often: thin them out
    else:
        resources, obstacle = [r for r in resources], [False] * (width * height)
    cells = width * height
    owner = [-1] * cells
    units = [0] * cells
    for seat, cell in enumerate(start_index):
        owner[cell] = seat
        units[cell] = 1
    return Board(
        width=width,
        height=height,
        players=players,
        turn=0,
        limit=limit,
        resources=tuple(resources),
        obstacle=tuple(obstacle),
        owner=tuple(owner),
        units=tuple(units),
        hive=(-1,) * cells,
        production=(0,) * cells,
        bank=(START_RESOURCES,) * players,
        had_hive=(False,) * players,
        starts=tuple(start_index),
    ).with_derived()


# --------------------------------------------------------------------------
# Victory
# --------------------------------------------------------------------------


def outcome(board: Board) -> tuple[bool, tuple[int, ...]]:
    """(over, winners) per ruling 9; winners is () while the match goes on, several seats on a draw."""
    seats = range(board.players)
    hives, totals = board.hive_counts, board.unit_totals
    holders = [s for s in seats if hives[s] > 0]
    if len(holders) == 1:
        winner = holders[0]
        if all(board.had_hive[s] or totals[s] == 0 for s in seats if s != winner):
            return True, (winner,)
    # Nothing else ends a match before its turn limit (ruling 9), not even a map left without units.
    if board.turn >= board.limit:
        best = max(totals)
        return True, tuple(s for s in seats if totals[s] == best)
    return False, ()


# --------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------


def board_json(board: Board, names: Sequence[str]) -> dict[str, Any]:
    """The board as ``show --json`` gives it (the issue's shape)."""
    width = board.width
    resources, obstacle, owner, units, hive, production = (
        board.resources,
        board.obstacle,
        board.owner,
        board.units,
        board.hive,
        board.production,
    )
    rows = []
    for y in range(board.height):
        row = []
        for cell in range(y * width, (y + 1) * width):
            entry: dict[str, Any] = {"resources": resources[cell]}
            if obstacle[cell]:
                entry["obstacle"] = True
            if hive[cell] >= 0:
                entry["hive"] = names[hive[cell]]
                entry["production"] = production[cell]
            if units[cell] > 0:
                entry["owner"] = names[owner[cell]]
                entry["units"] = units[cell]
            row.append(entry)
        rows.append(row)
    return {
        "width": board.width,
        "height": board.height,
        "turn": board.turn,
        "limit": board.limit,
        "resources": {name: board.bank[s] for s, name in enumerate(names)},
        "units": {name: board.unit_totals[s] for s, name in enumerate(names)},
        "hives": {name: board.hive_counts[s] for s, name in enumerate(names)},
        "cells": rows,
    }


def observation(board: Board, names: Sequence[str], seat: int | None) -> dict[str, Any]:
    """What a bot gets each turn: the whole board (ruling 10), its seat, its name and the players."""
    data = board_json(board, names)
    data["seat"] = seat
    data["me"] = names[seat] if seat is not None else None
    data["players"] = list(names)
    return data


def board_from_json(data: dict[str, Any], names: Sequence[str]) -> Board:
    """A Board from :func:`board_json`'s shape (for tests and hand-made positions).

    Start cells and whether a seat ever held a hive are not in the JSON: a
    seat holding a hive counts as having held one.
    """
    width, height = data["width"], data["height"]
    index = {name: s for s, name in enumerate(names)}
    cells = [cell for row in data["cells"] for cell in row]
    board = Board(
        width=width,
        height=height,
        players=len(names),
        turn=data.get("turn", 0),
        limit=data.get("limit", DEFAULT_LIMIT),
        resources=tuple(c.get("resources", 0) for c in cells),
        obstacle=tuple(bool(c.get("obstacle", False)) for c in cells),
        owner=tuple(index[c["owner"]] if c.get("units", 0) > 0 else -1 for c in cells),
        units=tuple(c.get("units", 0) for c in cells),
        hive=tuple(index[c["hive"]] if "hive" in c else -1 for c in cells),
        production=tuple(c.get("production", 0) for c in cells),
        bank=tuple(data.get("resources", {}).get(name, 0) for name in names),
        had_hive=tuple(any(c.get("hive") == name for c in cells) for name in names),
        starts=(),
    )
    return board.with_derived()
