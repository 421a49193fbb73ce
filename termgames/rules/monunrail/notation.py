"""MonUnrail's notation: cells, tile types and moves as text.

Building: ``C3:T-ne,D3:S-h`` -- 1 to 3 ``CELL:TYPE`` placements, comma
separated (spaces, ``+`` and ``;`` also separate); ``impossible``; ``swap``
(the pie rule).  Unrailing: ``D3,E3``.  Input is case-insensitive; turn
sides may come in either order (``T-en``) and the hyphen may be left out
(``tne``, ``sh``).  The canonical text (what records, logs and ``show
--json`` hold) lists cells top to bottom, left to right: ``C3:T-ne,D3:S-h``,
``D3,E3``, ``swap``, ``impossible``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..base import RuleError
from .board import COLUMNS, MASK_TYPES, ROWS, TILE_MASKS, Cell, cell_of, index_of, name_of


def parse_cell(text: str) -> Cell:
    """``"d4"`` -> ``(3, 3)``; RuleError for anything off the board."""
    word = text.strip().upper()
    match = re.fullmatch(r"([A-Z])([0-9]{1,2})", word)
    if match and word.isascii():  # upper() turns some letters into ASCII ones (dotless i into I)
        column = ord(match.group(1)) - ord("A")
        row = int(match.group(2)) - 1
        if 0 <= column < COLUMNS and 0 <= row < ROWS:
            return (column, row)
    raise RuleError(f"{text.strip()!r} is not a cell of the board (columns A-H, rows 1-7, e.g. D3)")


def tile_code(text: str) -> str:
    """Parse a tile type (``S-h``, ``sv``, ``T-EN``, ``x``) into its canonical code."""
    word = re.sub(r"[\s_-]", "", text.lower())
    if word in ("x", "+"):
        return "X"
    if word in ("sh", "sew", "swe"):
        return "S-h"
    if word in ("sv", "sns", "ssn"):
        return "S-v"
    if len(word) == 3 and word[0] == "t":
        sides = set(word[1:])
        if sides <= set("nesw") and len(sides) == 2:
            if sides in ({"n", "s"}, {"e", "w"}):
                raise RuleError(f"a turn joins two neighbouring sides (ne, nw, se, sw), not {word[1:]}")
            key = "T-" + ("n" if "n" in sides else "s") + ("e" if "e" in sides else "w")
            return key
    raise RuleError(
        f"{text.strip()!r} is not a tile type (S-h, S-v, T-ne, T-nw, T-se, T-sw or X)"
    )


# --------------------------------------------------------------------------
# Parsed moves
# --------------------------------------------------------------------------

SWAP = "swap"
IMPOSSIBLE = "impossible"
_SEPARATORS = re.compile(r"[,;+\s]+")


@dataclass(frozen=True)
class ParsedMove:
    """A move read from text: ``kind`` is ``"place"``, ``"remove"``, ``"swap"`` or ``"impossible"``."""

    kind: str
    #: For "place": (index, mask) pairs; for "remove": (index, 0) pairs; sorted by index.
    items: tuple[tuple[int, int], ...] = ()

    @property
    def indexes(self) -> tuple[int, ...]:
        return tuple(index for index, _ in self.items)

    @property
    def cells(self) -> tuple[Cell, ...]:
        return tuple(cell_of(index) for index, _ in self.items)

    def text(self) -> str:
        if self.kind in (SWAP, IMPOSSIBLE):
            return self.kind
        if self.kind == "place":
            return ",".join(f"{name_of(i)}:{MASK_TYPES[m]}" for i, m in self.items)
        return ",".join(name_of(i) for i, _ in self.items)


def parse_move(text: str) -> ParsedMove:
    """Read any MonUnrail move (without checking it against a position)."""
    word = text.strip()
    if word.lower() in (SWAP, IMPOSSIBLE):
        return ParsedMove(word.lower())
    parts = [part for part in _SEPARATORS.split(word) if part]
    if not parts:
        raise RuleError("the move is empty")
    with_type = [":" in part for part in parts]
    if any(with_type) and not all(with_type):
        bare = parts[with_type.index(False)]
        raise RuleError(f"say which tile goes on {bare.upper()}, e.g. {bare.upper()}:S-h")
    items = []
    seen = set()
    for part in parts:
        if ":" in part:
            where, _, what = part.partition(":")
            index = index_of(parse_cell(where))
            mask = TILE_MASKS[tile_code(what)]
        else:
            index, mask = index_of(parse_cell(part)), 0
        if index in seen:
            raise RuleError(f"{name_of(index)} is named twice")
        seen.add(index)
        items.append((index, mask))
    kind = "place" if with_type[0] else "remove"
    return ParsedMove(kind, tuple(sorted(items)))


def placement_text(items: Iterable[tuple[int, int]]) -> str:
    """A placement's canonical text from (cell index, tile mask) pairs: ``C3:T-ne,D3:S-h``."""
    return ParsedMove("place", tuple(sorted(items))).text()
