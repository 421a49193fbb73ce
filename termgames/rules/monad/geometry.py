"""Monad's hexagonal map: directions, neighbours and distances (odd rows shifted right, as the original).

Cells are numbered ``y * width + x``; the neighbour table of each map size is computed once.
"""

from __future__ import annotations

from functools import lru_cache

DIRECTIONS = ("E", "W", "NE", "NW", "SE", "SW")
ACTIONS = ("MOVE", "MINE", "BUILD")
#: Direction name -> index into a cell's neighbour tuple.
DIRECTION_INDEX = {name: index for index, name in enumerate(DIRECTIONS)}
MINE_CODE = 6
BUILD_CODE = 7
#: The direction that leads back (E <-> W, NE <-> SW, NW <-> SE), by index.
OPPOSITE = (1, 0, 5, 4, 3, 2)


# Ruling 1: (dx, dy) per direction, for even rows and for odd rows.
_EVEN_ROW = ((1, 0), (-1, 0), (1, -1), (0, -1), (1, 1), (0, 1))
_ODD_ROW = ((1, 0), (-1, 0), (0, -1), (-1, -1), (0, 1), (-1, 1))


def neighbour(x: int, y: int, direction: str, width: int, height: int) -> tuple[int, int] | None:
    """The cell next to (x, y) in ``direction`` (ruling 1), or None off the map."""
    dx, dy = (_ODD_ROW if y & 1 else _EVEN_ROW)[DIRECTION_INDEX[direction]]
    nx, ny = x + dx, y + dy
    if 0 <= nx < width and 0 <= ny < height:
        return nx, ny
    return None


@lru_cache(maxsize=64)
def neighbour_table(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """Per cell index, the index of its neighbour in each direction (DIRECTIONS order), -1 off the map."""
    table = []
    for y in range(height):
        deltas = _ODD_ROW if y & 1 else _EVEN_ROW
        for x in range(width):
            row = []
            for dx, dy in deltas:
                nx, ny = x + dx, y + dy
                row.append(ny * width + nx if 0 <= nx < width and 0 <= ny < height else -1)
            table.append(tuple(row))
    return tuple(table)


def hex_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Steps between two cells (even rows shifted right: 'even-r' offset coordinates)."""
    (ax, ay), (bx, by) = a, b
    aq = ax - (ay + (ay & 1)) // 2
    bq = bx - (by + (by & 1)) // 2
    dq, dr = aq - bq, ay - by
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


