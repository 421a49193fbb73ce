"""An independent, plain and slow referee of Monad, written from the rules page and the rulings only.

It knows nothing of the engine: it starts from a board in the shape ``show --json`` gives
(issue 10) and resolves turns from the players' move texts, in the order of ruling 5:
commands checked and dropped (ruling 4), collisions, moves, builds, mining, then each
cell's update (combat, hive defence, production: rulings 7 and 8), then victory and the
turn limit (ruling 9).  Tests compare it with the engine board by board.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

#: Ruling 1: (dx, dy) per direction, for even rows and odd rows.
EVEN_ROW = {
    "NE": (1, -1),
    "NW": (0, -1),
    "E": (1, 0),
    "W": (-1, 0),
    "SE": (1, 1),
    "SW": (0, 1),
}
ODD_ROW = {
    "NE": (0, -1),
    "NW": (-1, -1),
    "E": (1, 0),
    "W": (-1, 0),
    "SE": (0, 1),
    "SW": (-1, 1),
}
DIRECTIONS = ("E", "W", "NE", "NW", "SE", "SW")

#: The hive's intrinsic defence rating (rules page).
HIVE_DEFENCE = 10
HIVE_COST = 100
POINTS_PER_UNIT = 5

COMMAND = re.compile(
    r"^\s*(\d+)\s*,\s*(\d+)\s+(\d+)\s+(?:(MOVE)\s+(E|W|NE|NW|SE|SW)|(MINE)|(BUILD))\s*$",
    re.IGNORECASE,
)


def neighbour(x: int, y: int, direction: str) -> tuple[int, int]:
    """Ruling 1's tables (the result may be off the map)."""
    dx, dy = (EVEN_ROW if y % 2 == 0 else ODD_ROW)[direction]
    return x + dx, y + dy


def parse_move(text: str) -> list[tuple[int, int, int, str, str]]:
    """A move's commands as (x, y, n, action, direction or "")."""
    commands = []
    for part in re.split(r"[;\n]", text):
        if not part.strip() or part.strip().lower() == "pass":
            continue
        match = COMMAND.match(part)
        if match is None:
            raise ValueError(f"cannot read {part!r}")
        x, y, n = int(match[1]), int(match[2]), int(match[3])
        if match[4]:
            commands.append((x, y, n, "MOVE", match[5].upper()))
        else:
            commands.append((x, y, n, "MINE" if match[6] else "BUILD", ""))
    return commands


def fight(forces: dict[int, int]) -> dict[int, int]:
    """Ruling 8's cell fight: the largest loses the second largest's count, all others die; equal largest all die."""
    forces = {p: n for p, n in forces.items() if n > 0}
    if len(forces) <= 1:
        return forces
    ranked = sorted(forces.items(), key=lambda item: -item[1])
    (first, most), (_, second) = ranked[0], ranked[1]
    if most == second:
        return {}
    return {first: most - second}


@dataclass
class Cell:
    resources: int
    obstacle: bool = False
    hive: int | None = None
    production: int = 0
    units: dict[int, int] = field(default_factory=dict)


@dataclass
class TurnResult:
    commands: dict[str, list[list[Any]]]
    dropped: dict[str, int]


class Referee:
    def __init__(self, board: dict[str, Any], names: list[str]) -> None:
        self.names = list(names)
        self.width: int = board["width"]
        self.height: int = board["height"]
        self.turn: int = board["turn"]
        self.limit: int = board["limit"]
        self.resources = [board["resources"][name] for name in names]
        index = {name: seat for seat, name in enumerate(names)}
        self.cells: dict[tuple[int, int], Cell] = {}
        assert len(board["cells"]) == self.height
        for y, row in enumerate(board["cells"]):
            assert len(row) == self.width
            for x, data in enumerate(row):
                cell = Cell(data["resources"], bool(data.get("obstacle", False)))
                if "hive" in data:
                    cell.hive = index[data["hive"]]
                    cell.production = data["production"]
                if "owner" in data:
                    cell.units[index[data["owner"]]] = data["units"]
                    # At the start of a turn a hive's cell holds only its owner's units (ruling 5, rules page).
                    assert cell.hive is None or cell.hive == index[data["owner"]], (x, y)
                self.cells[x, y] = cell
        #: Whether each player has ever held a hive (ruling 9: "has lost its last hive").
        self.had_hive = [self.hive_count(p) > 0 for p in range(len(names))]
        self.over = False
        self.winners: tuple[int, ...] = ()
        #: What happened so far, to see that random matches reach every rule.
        self.stats: Counter[str] = Counter()

    # -- queries -------------------------------------------------------------

    def unit_count(self, player: int) -> int:
        return sum(cell.units.get(player, 0) for cell in self.cells.values())

    def hive_count(self, player: int) -> int:
        return sum(1 for cell in self.cells.values() if cell.hive == player)

    def on_map(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def board_json(self) -> dict[str, Any]:
        rows = []
        for y in range(self.height):
            row = []
            for x in range(self.width):
                cell = self.cells[x, y]
                data: dict[str, Any] = {"resources": cell.resources}
                if cell.obstacle:
                    data["obstacle"] = True
                if cell.hive is not None:
                    data["hive"] = self.names[cell.hive]
                    data["production"] = cell.production
                owners = [p for p, n in cell.units.items() if n > 0]
                assert len(owners) <= 1, (x, y, cell.units)
                if owners:
                    data["owner"] = self.names[owners[0]]
                    data["units"] = cell.units[owners[0]]
                row.append(data)
            rows.append(row)
        seats = range(len(self.names))
        return {
            "width": self.width,
            "height": self.height,
            "turn": self.turn,
            "limit": self.limit,
            "resources": {self.names[p]: self.resources[p] for p in seats},
            "units": {self.names[p]: self.unit_count(p) for p in seats},
            "hives": {self.names[p]: self.hive_count(p) for p in seats},
            "cells": rows,
        }

    # -- a turn --------------------------------------------------------------

    def play_turn(self, moves: dict[str, str]) -> TurnResult:
        assert not self.over
        players = range(len(self.names))
        carried: dict[int, list[tuple[int, int, int, str, str]]] = {
            p: [] for p in players
        }
        dropped = {name: 0 for name in self.names}
        # Ruling 4: commands checked against the units on each cell at the start of the turn.
        for p in players:
            free: dict[tuple[int, int], int] = {}
            for x, y, n, action, direction in parse_move(moves.get(self.names[p], "")):
                cell = self.cells.get((x, y))
                if cell is None or cell.units.get(p, 0) == 0:
                    dropped[self.names[p]] += 1
                    continue
                left = free.setdefault((x, y), cell.units[p])
                if n < 1 or n > left:
                    dropped[self.names[p]] += 1
                    continue
                if action == "MOVE":
                    tx, ty = neighbour(x, y, direction)
                    if not self.on_map(tx, ty) or self.cells[tx, ty].obstacle:
                        dropped[self.names[p]] += 1
                        continue
                free[x, y] = left - n
                carried[p].append((x, y, n, action, direction))
        # Collisions (ruling 5): groups moving into each other's cell from adjacent cells of two players.
        moving: dict[tuple[int, tuple[int, int], tuple[int, int]], int] = {}
        for p in players:
            for x, y, n, action, direction in carried[p]:
                if action == "MOVE":
                    key = (p, (x, y), neighbour(x, y, direction))
                    moving[key] = moving.get(key, 0) + n
        for p, source, target in list(moving):
            for q in players:
                if q <= p:
                    continue
                other = moving.get((q, target, source), 0)
                if other and moving[p, source, target]:
                    mine = moving[p, source, target]
                    lost = min(mine, other)
                    self.stats["collision"] += 1
                    moving[p, source, target] = mine - lost
                    moving[q, target, source] = other - lost
                    # The units lost leave their source cells.
                    self.cells[source].units[p] -= lost
                    self.cells[target].units[q] -= lost
        # Moves: all moving units arrive at once.
        for (p, source, _), n in moving.items():
            self.cells[source].units[p] -= n
        for (p, _, target), n in moving.items():
            self.cells[target].units[p] = self.cells[target].units.get(p, 0) + n
        for cell in self.cells.values():
            cell.units = {p: n for p, n in cell.units.items() if n > 0}
            assert all(n > 0 for n in cell.units.values())
        # Builds.
        builders: dict[tuple[int, int], dict[int, int]] = {}
        for p in players:
            for x, y, n, action, _ in carried[p]:
                if action != "BUILD":
                    continue
                cell = self.cells[x, y]
                builders.setdefault((x, y), {})
                builders[x, y][p] = builders[x, y].get(p, 0) + n
                others = any(q != p and m > 0 for q, m in cell.units.items())
                if cell.hive is None and self.resources[p] >= HIVE_COST and not others:
                    cell.hive, cell.production = p, 0
                    self.stats["build"] += 1
                    self.resources[p] -= HIVE_COST
                    self.had_hive[p] = True
        # Mining (ruling 6).
        for p in players:
            for x, y, n, action, _ in carried[p]:
                cell = self.cells[x, y]
                if action == "MINE" and cell.hive is None:
                    taken = min(n, cell.resources)
                    cell.resources -= taken
                    self.resources[p] += taken
        # Each cell's update: combat, hive defence, production (rulings 7 and 8).
        for (x, y), cell in self.cells.items():
            if cell.hive is None:
                if len(cell.units) > 1:
                    self.stats[f"fight{len(cell.units)}"] += 1
                cell.units = fight(cell.units)
            else:
                owner = cell.hive
                defenders = cell.units.get(owner, 0)
                if sum(1 for p in cell.units if p != owner) > 1:
                    self.stats["attackers fight at a hive"] += 1
                attackers = fight({p: n for p, n in cell.units.items() if p != owner})
                cell.units = {owner: defenders} if defenders else {}
                if attackers:
                    ((attacker, a),) = attackers.items()
                    self.stats[
                        "hive destroyed"
                        if a >= defenders + HIVE_DEFENCE
                        else "hive held"
                        if a < HIVE_DEFENCE
                        else "hive bled"
                    ] += 1
                    if a >= defenders + HIVE_DEFENCE:
                        cell.hive, cell.production = None, 0
                        cell.units = {attacker: a - defenders - HIVE_DEFENCE}
                    elif a >= HIVE_DEFENCE:
                        cell.units = {owner: defenders - (a - (HIVE_DEFENCE - 1))}
                cell.units = {p: n for p, n in cell.units.items() if n > 0}
                if cell.hive is not None:
                    cell.production += 1 + builders.get((x, y), {}).get(owner, 0)
                    made, cell.production = divmod(cell.production, POINTS_PER_UNIT)
                    if made:
                        cell.units[owner] = cell.units.get(owner, 0) + made
        self.turn += 1
        # Victory (ruling 9).
        hives = [self.hive_count(p) for p in players]
        units = [self.unit_count(p) for p in players]
        for p in players:
            if hives[p] and all(
                hives[q] == 0 and (self.had_hive[q] or units[q] == 0)
                for q in players
                if q != p
            ):
                self.over, self.winners = True, (p,)
        if not self.over and self.turn >= self.limit:
            most = max(units)
            self.over, self.winners = (
                True,
                tuple(p for p in players if units[p] == most),
            )
        commands = {
            self.names[p]: [
                [x, y, n, action, direction] if action == "MOVE" else [x, y, n, action]
                for x, y, n, action, direction in carried[p]
            ]
            for p in players
        }
        return TurnResult(commands, dropped)

    def copy(self) -> Referee:
        return copy.deepcopy(self)
