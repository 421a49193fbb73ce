"""The board: neighbours, holes, mismatches, regions and scores (rulings 2 and 4).

A board is a mapping from position to tile.  These helpers never change the
mapping they are given; the search code copies boards (they hold at most 88
tiles, so a copy costs microseconds).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .tiles import AROUND, OPPOSITE, STEPS, Pos, Tile

Board = Mapping[Pos, Tile]


def orthogonal(pos: Pos) -> tuple[Pos, Pos, Pos, Pos]:
    r, c = pos
    return ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1))


def neighbour_count(board: Board, pos: Pos) -> int:
    """Tiles in the 8 surrounding positions (Shape Constraint 1)."""
    r, c = pos
    return sum(1 for dr, dc in AROUND if (r + dr, c + dc) in board)


def orthogonal_count(board: Board, pos: Pos) -> int:
    r, c = pos
    return sum(1 for dr, dc in STEPS if (r + dr, c + dc) in board)


def is_hole(board: Board, pos: Pos) -> bool:
    """An empty position with 3 or 4 orthogonal tile neighbours (Shape Constraint 2)."""
    return pos not in board and orthogonal_count(board, pos) >= 3


def holes(board: Board, waiting: Iterable[Pos] = ()) -> set[Pos]:
    """Every hole of the board, leaving out positions that wait for their own replacement."""
    skip = set(waiting)
    found: set[Pos] = set()
    for r, c in board:
        for dr, dc in STEPS:
            pos = (r + dr, c + dc)
            if pos not in board and pos not in found and pos not in skip and orthogonal_count(board, pos) >= 3:
                found.add(pos)
    return found


def holes_near(board: Board, positions: Iterable[Pos], waiting: Iterable[Pos] = ()) -> set[Pos]:
    """The holes among ``positions`` and their orthogonal neighbours (where a change can make or fill one)."""
    skip = set(waiting)
    found: set[Pos] = set()
    for pos in positions:
        for spot in (pos, *orthogonal(pos)):
            if spot not in skip and is_hole(board, spot):
                found.add(spot)
    return found


def frontier(board: Board) -> set[Pos]:
    """Empty positions with at least one tile among their 8 neighbours."""
    found: set[Pos] = set()
    for r, c in board:
        for dr, dc in AROUND:
            pos = (r + dr, c + dc)
            if pos not in board:
                found.add(pos)
    return found


def mismatched_sides(board: Board, pos: Pos, tile: Tile) -> tuple[int, ...]:
    """The sides of ``tile`` at ``pos`` whose colour differs from the facing quarter of a neighbour."""
    r, c = pos
    sides = []
    for side, (dr, dc) in enumerate(STEPS):
        other = board.get((r + dr, c + dc))
        if other is not None and other[OPPOSITE[side]] != tile[side]:
            sides.append(side)
    return tuple(sides)


def mismatch_count(board: Board, pos: Pos, tile: Tile) -> int:
    r, c = pos
    count = 0
    for side, (dr, dc) in enumerate(STEPS):
        other = board.get((r + dr, c + dc))
        if other is not None and other[OPPOSITE[side]] != tile[side]:
            count += 1
    return count


def board_mismatches(board: Board) -> list[tuple[Pos, int]]:
    """Every (position, side) of the board whose colour differs from its neighbour's facing quarter."""
    found = []
    for pos in sorted(board):
        for side in mismatched_sides(board, pos, board[pos]):
            found.append((pos, side))
    return found


# --------------------------------------------------------------------------
# Regions and scores (ruling 4)
# --------------------------------------------------------------------------

#: Quarters of one tile that share a side: N-E, E-S, S-W, W-N (never opposite ones).
_INNER_TOUCHES = ((0, 1), (1, 2), (2, 3), (3, 0))


@dataclass(frozen=True)
class Region:
    """A connected set of same-coloured quarters; worth the square of the tiles it spans."""

    colour: int
    quarters: frozenset[tuple[Pos, int]]
    tiles: frozenset[Pos]

    @property
    def size(self) -> int:
        return len(self.tiles)

    @property
    def points(self) -> int:
        return len(self.tiles) ** 2


def regions(board: Board) -> list[Region]:
    """Every region of the board, largest first (then by colour and first position)."""
    parent: dict[tuple[Pos, int], tuple[Pos, int]] = {}

    def find(item: tuple[Pos, int]) -> tuple[Pos, int]:
        root = item
        while parent[root] != root:
            root = parent[root]
        while parent[item] != root:
            parent[item], item = root, parent[item]
        return root

    def join(a: tuple[Pos, int], b: tuple[Pos, int]) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb

    for pos in board:
        for quarter in range(4):
            parent[(pos, quarter)] = (pos, quarter)
    for pos, tile in board.items():
        for a, b in _INNER_TOUCHES:
            if tile[a] == tile[b]:
                join((pos, a), (pos, b))
        r, c = pos
        east = board.get((r, c + 1))
        if east is not None and east[3] == tile[1]:
            join((pos, 1), ((r, c + 1), 3))
        south = board.get((r + 1, c))
        if south is not None and south[0] == tile[2]:
            join((pos, 2), ((r + 1, c), 0))
    groups: dict[tuple[Pos, int], list[tuple[Pos, int]]] = {}
    for item in parent:
        groups.setdefault(find(item), []).append(item)
    found = []
    for members in groups.values():
        pos, quarter = members[0]
        found.append(Region(board[pos][quarter], frozenset(members), frozenset(p for p, _q in members)))
    found.sort(key=lambda region: (-region.size, region.colour, min(region.tiles)))
    return found


def scores(board: Board, players: int) -> tuple[int, ...]:
    """Each seat's score: the points of the regions of her colour."""
    totals = [0] * players
    for region in regions(board):
        totals[region.colour] += region.points
    return tuple(totals)
