"""Mosaic's move notation.

* ``TILE@ROW,COL``: place a hand tile (Steps SH and P together), e.g. ``1121@0,1``;
  the tile is its quarters N E S W as 1-based seat numbers.
* ``edge ROW,COL ROW,COL``: Step SE, the two tiles of the edge, upper (or left) first.
* ``take ROW,COL``: Step R, the board position of the chosen replacement tile.
* ``pass``: only when the rules make a player pass.

Positions are relative to the first tile (0,0); rows grow downward, columns to the right.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..base import RuleError
from .tiles import Pos, Tile, pos_text, tile_text

_POS = r"(-?\d{1,6})\s*,\s*(-?\d{1,6})"
_PLACE = re.compile(rf"([1-4]{{4}})\s*@\s*{_POS}")
_EDGE = re.compile(rf"edge\s+{_POS}\s+{_POS}")
_TAKE = re.compile(rf"take\s+{_POS}")

NOTATION_HELP = "moves are TILE@ROW,COL (1121@0,1), edge ROW,COL ROW,COL, take ROW,COL or pass"


@dataclass(frozen=True)
class Place:
    tile: Tile
    pos: Pos

    def text(self) -> str:
        return f"{tile_text(self.tile)}@{pos_text(self.pos)}"


@dataclass(frozen=True)
class Edge:
    """An edge, its upper (or left) tile first."""

    first: Pos
    second: Pos

    def text(self) -> str:
        return f"edge {pos_text(self.first)} {pos_text(self.second)}"


@dataclass(frozen=True)
class Take:
    pos: Pos

    def text(self) -> str:
        return f"take {pos_text(self.pos)}"


@dataclass(frozen=True)
class Pass:
    def text(self) -> str:
        return "pass"


Move = Place | Edge | Take | Pass


def parse_move(text: str, players: int) -> Move:
    """Parse a move's text (any case, spaces allowed around ``@`` and ``,``); RuleError if it is not one."""
    cleaned = " ".join(text.strip().lower().split())
    if cleaned == "pass":
        return Pass()
    match = _PLACE.fullmatch(cleaned)
    if match:
        digits = match.group(1)
        if any(int(d) > players for d in digits):
            raise RuleError(f"{digits} is not a tile: quarters are seat numbers 1 to {players}")
        tile = tuple(int(d) - 1 for d in digits)
        return Place((tile[0], tile[1], tile[2], tile[3]), (int(match.group(2)), int(match.group(3))))
    match = _EDGE.fullmatch(cleaned)
    if match:
        a = (int(match.group(1)), int(match.group(2)))
        b = (int(match.group(3)), int(match.group(4)))
        if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
            raise RuleError(f"{pos_text(a)} and {pos_text(b)} are not side by side, so they make no edge")
        return Edge(min(a, b), max(a, b))
    match = _TAKE.fullmatch(cleaned)
    if match:
        return Take((int(match.group(1)), int(match.group(2))))
    raise RuleError(f"{text.strip()!r} is not a Mosaic move: {NOTATION_HELP}")
