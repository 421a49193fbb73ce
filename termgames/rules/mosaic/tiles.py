"""Mosaic's tiles, geometry and hands (ruling 1 and 2).

A tile is four quarters N, E, S, W, each one seat's colour (0-based seat
index).  Tiles are never rotated and every colouring that uses one or two of
the players' colours exists exactly once, so a pattern names its tile.
"""

from __future__ import annotations

import itertools
from typing import cast

from ..base import seeded_rng

#: A tile's four quarters N, E, S, W as 0-based seat indices.
Tile = tuple[int, int, int, int]
#: A board position (row, column) relative to the first tile; rows grow downward.
Pos = tuple[int, int]

N, E, S, W = 0, 1, 2, 3
SIDE_NAMES = "NESW"
#: The side of the neighbour that faces each side of a tile.
OPPOSITE = (S, W, N, E)
#: The step to the orthogonal neighbour on each side.
STEPS: tuple[Pos, Pos, Pos, Pos] = ((-1, 0), (0, 1), (1, 0), (0, -1))
#: The eight surrounding positions (Shape Constraint 1's neighbours).
AROUND: tuple[Pos, ...] = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)

#: Tiles per hand at the start, and the score to reach twice in a row, by number of players.
HAND_SIZES = {2: 8, 3: 15, 4: 22}
WINNING_SCORES = {2: 100, 3: 200, 4: 300}


def tile_set(players: int) -> tuple[Tile, ...]:
    """Every colouring of the four quarters with one or two of the players' colours, each once (ruling 1)."""
    tiles = [cast(Tile, tile) for tile in itertools.product(range(players), repeat=4)]
    return tuple(tile for tile in tiles if len(set(tile)) <= 2)


def deal(players: int, seed: int) -> tuple[tuple[Tile, ...], ...]:
    """The hands dealt from the game's seed: the shuffled tile set cut into equal hands, each sorted."""
    tiles = list(tile_set(players))
    seeded_rng(seed, "mosaic-deal").shuffle(tiles)
    size = len(tiles) // players
    return tuple(tuple(sorted(tiles[seat * size : (seat + 1) * size])) for seat in range(players))


def tile_text(tile: Tile) -> str:
    """The notation of a tile: its quarters N E S W as 1-based seat numbers, ``1121``."""
    return "".join(str(colour + 1) for colour in tile)


def pos_text(pos: Pos) -> str:
    return f"{pos[0]},{pos[1]}"


def is_solid(tile: Tile) -> bool:
    return len(set(tile)) == 1


def is_chevron(tile: Tile) -> bool:
    """Three quarters of one colour, one of another."""
    return len(set(tile)) == 2 and max(tile.count(colour) for colour in tile) == 3


def neighbour(pos: Pos, side: int) -> Pos:
    step = STEPS[side]
    return (pos[0] + step[0], pos[1] + step[1])
