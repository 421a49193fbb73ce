"""Positions built directly, for tests, sample games and puzzles.

A board is written as lines ``ROW,COL: TILE TILE ...``: the tiles of one row
from column COL rightwards, ``....`` (or ``.``) for an empty position::

    0,0: 1111 1121
    1,0: 1211 ....
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..base import RuleError
from .game import Mosaic, MosaicState
from .notation import quoted
from .tiles import Pos, Tile, tile_text
from .view import ALTERATION, BUILDING, EDGE_KIND, PLACE_KIND

_NUMBER = re.compile(r"-?[0-9]+", re.ASCII)


def parse_tile(text: str) -> Tile:
    # ASCII seat digits only: str.isdigit() and int() accept other scripts' digits too.
    if len(text) != 4 or any(ch not in "1234" for ch in text):
        raise RuleError(f"{quoted(text)} is not a tile (four seat numbers N E S W, like 1121)")
    return (int(text[0]) - 1, int(text[1]) - 1, int(text[2]) - 1, int(text[3]) - 1)


def grid_board(text: str) -> dict[Pos, Tile]:
    """The board a grid text describes (see the module's docstring)."""
    board: dict[Pos, Tile] = {}
    for line in text.strip().splitlines():
        if not line.strip():
            continue
        head, _, rest = line.partition(":")
        row_text, _, col_text = head.strip().partition(",")
        if not (_NUMBER.fullmatch(row_text.strip()) and _NUMBER.fullmatch(col_text.strip())):
            raise RuleError(f"{quoted(head)} is not a position ROW,COL")
        row, col = int(row_text), int(col_text)
        for offset, token in enumerate(rest.split()):
            if token.strip(".") == "":
                continue
            board[(row, col + offset)] = parse_tile(token)
    return board


def board_grid(board: Mapping[Pos, Tile]) -> str:
    """The grid text of a board (the inverse of :func:`grid_board`)."""
    if not board:
        return ""
    left = min(c for _r, c in board)
    right = max(c for _r, c in board)
    lines = []
    for row in range(min(r for r, _c in board), max(r for r, _c in board) + 1):
        tokens = [tile_text(board[(row, c)]) if (row, c) in board else "...." for c in range(left, right + 1)]
        lines.append(f"{row},{left}: " + " ".join(tokens))
    return "\n".join(lines)


def hands_of(texts: Sequence[Iterable[str]]) -> tuple[tuple[Tile, ...], ...]:
    return tuple(tuple(parse_tile(text) for text in hand) for hand in texts)


def alteration_state(
    seats: Sequence[str],
    board: Mapping[Pos, Tile] | str,
    turn: int = 0,
    options: dict[str, Any] | None = None,
    seed: int = 0,
) -> MosaicState:
    """A state at Step SE of ``turn``'s alteration routine on ``board`` (hands empty)."""
    names = tuple(seats)
    tiles = grid_board(board) if isinstance(board, str) else dict(board)
    return MosaicState(
        seats=names,
        seed=seed,
        options=Mosaic().check_options(options or {}),
        board=tiles,
        hands=tuple(() for _seat in names),
        phase=ALTERATION,
        turn=turn,
        initiator=turn,
        kind=EDGE_KIND,
        streaks=(0,) * len(names),
    )


def building_state(
    seats: Sequence[str],
    board: Mapping[Pos, Tile] | str,
    hands: Sequence[Iterable[str]],
    turn: int = 0,
    last_placed: Pos | None = None,
    seed: int = 0,
) -> MosaicState:
    """A state in the building phase with ``turn`` to place a tile."""
    names = tuple(seats)
    tiles = grid_board(board) if isinstance(board, str) else dict(board)
    return MosaicState(
        seats=names,
        seed=seed,
        options=Mosaic().check_options({}),
        board=tiles,
        hands=hands_of(hands),
        phase=BUILDING,
        turn=turn,
        kind=PLACE_KIND,
        last_placed=last_placed,
        streaks=(0,) * len(names),
    )
