"""The Mono computer player (skeleton: the deduction overlay's API comes first)."""

from __future__ import annotations

import random
from functools import lru_cache

from ..rules.mono import MonoView, grid_for
from .mono_inference import LayoutSampler, beliefs_from

DEFAULT_LEVEL = "normal"


def cell_beliefs(view: MonoView, board_seat: int, *, samples: int = 200, seed: int = 0) -> list[tuple[int, float] | None]:
    """What the bot's inference believes of each hidden cell of ``board_seat``'s board.

    One entry per cell, row-major from the top row, as ``view.boards``: None
    where the view shows the value, else (most likely value, its probability).
    Only what ``view`` shows is used.  Raises ValueError for the viewer's own
    board (nothing is hidden there).
    """
    if view.grid is None or not 0 <= board_seat < len(view.players):
        raise ValueError(f"there is no board {board_seat}")
    if board_seat == view.viewer:
        raise ValueError("a player's own board hides nothing from that player")
    board = view.boards[board_seat] or (None,) * view.grid.cells
    return list(_beliefs(view.grid.regions, tuple(board), samples, seed))


@lru_cache(maxsize=32)
def _beliefs(regions: int, board: tuple[int | None, ...], samples: int, seed: int) -> tuple[tuple[int, float] | None, ...]:
    known = {cell: value for cell, value in enumerate(board) if value is not None}
    rng = random.Random(f"beliefs:{seed}:{regions}:{sorted(known.items())}")
    layouts = LayoutSampler(grid_for(regions)).samples(known, samples, rng, budget=samples // 4 + 4)
    if layouts:
        return tuple(beliefs_from(layouts, board))
    return tuple(_counting_beliefs(regions, board))


def _counting_beliefs(regions: int, board: tuple[int | None, ...]) -> list[tuple[int, float] | None]:
    """When no layout could be drawn: each value as likely as its region has cells unseen."""
    missing = {k: k for k in range(1, regions + 1)}
    for value in board:
        if value is not None:
            missing[value] -= 1
    total = sum(missing.values()) or 1
    value, count = max(missing.items(), key=lambda item: (item[1], -item[0]))
    return [None if shown is not None else (value, count / total) for shown in board]
