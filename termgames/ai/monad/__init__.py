"""Monad bots: the built-in ones, the adapters for bots of every kind, the match runner.

* :func:`make_bot` (the game registry's entry: ``-p cpu:LEVEL``) gives a
  built-in bot whose ``choose(view)`` answers a move in the notation;
* :mod:`.strategies`: the built-in bots ``random``, ``greedy``, ``swarm``;
* :mod:`.adapters`: Python files, JSON programs, original-platform programs;
* :mod:`.match`: :class:`~.match.MonadMatch`, the runner; :mod:`.tournament`.
"""

from __future__ import annotations

import random
from typing import Any

from ...games import GAMES
from ...rules.monad.board import Board, board_from_json
from ...rules.monad.notation import format_commands
from ..budget import Deadline
from .strategies import STRATEGIES, Strategy

#: The built-in bots, weakest first (the levels of ``termgames play monad -p NAME:ai:LEVEL``).
LEVELS = tuple(STRATEGIES)
DEFAULT_LEVEL = GAMES["monad"].default_level


def make_strategy(level: str, seed: int | None = None) -> Strategy:
    """A built-in strategy by name (ValueError for an unknown one)."""
    name = (level or DEFAULT_LEVEL).lower()
    if name not in STRATEGIES:
        raise ValueError(f"Monad's built-in bots are {', '.join(LEVELS)}, not {level!r}")
    return STRATEGIES[name](random.randrange(2**31) if seed is None else seed)


class MonadBot:
    """A built-in bot behind the registry's interface: ``choose(view)`` -> move text."""

    def __init__(self, level: str, seed: int | None) -> None:
        self.level = level
        self.strategy = make_strategy(level, seed)

    def choose(self, view: Any, deadline: Deadline | None = None) -> str:
        """The turn's commands.  The built-in strategies do not search (one pass over the board, well
        within :data:`~termgames.ai.budget.TIME_CAP` on the largest map), so ``deadline`` is not consulted."""
        seat = view.viewer
        if seat is None:
            raise ValueError("a bot plays a seat, not a spectator's view")
        return format_commands(self.strategy.decide(_board_of(view), seat))


def _board_of(view: Any) -> Board:
    board = getattr(view, "board", None)
    if isinstance(board, Board):
        return board
    return board_from_json(view.board_json(), view.players)


__all__ = ["DEFAULT_LEVEL", "LEVELS", "STRATEGIES", "MonadBot", "make_strategy"]
