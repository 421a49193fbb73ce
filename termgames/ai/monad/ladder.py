"""Monad on the ladder (``bench/ladder.py``): its built-in bots on the match runner, each decision timed.

Monad's turns are simultaneous: every living seat decides each turn on the same board, then the
turn resolves.  A *decision* is one seat's answer to one turn (the strategy's ``decide`` on the
board, timed around the adapter's ``receive``), so the times compare with the other games'
``choose`` calls.  The runner is the one ``termgames monad match`` uses (a 2000-turn match keeps
one board, no views or records per turn).  Scores are the units each seat holds at the end (the
rules' scores).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..timed import TimedGame
from .adapters import make_adapter
from .match import MonadMatch


def ladder_game(levels: Sequence[str], options: dict[str, Any], seed: int, bot_seeds: Sequence[int],
                plies: int = 0) -> TimedGame:
    """One match of the bots ``levels`` (one a seat), seeded ``bot_seeds``; ``plies``: stop after so many turns."""
    played = TimedGame()
    adapters = [make_adapter(level, bot_seed) for level, bot_seed in zip(levels, bot_seeds)]
    #: Turns resolved so far, and each decision's turn (its position: the turns before it).
    turn = [0]
    turns_of: list[int] = []

    def timed(seat: int, receive: Callable[[], Any]) -> Callable[[], Any]:
        def receive_timed() -> Any:
            turns_of.append(turn[0])
            return played.timed(seat, 0, receive)

        return receive_timed

    for seat, adapter in enumerate(adapters):
        adapter.receive = timed(seat, adapter.receive)  # type: ignore[method-assign]  # timing wrapper, this run only
    match = MonadMatch(adapters, options, seed=seed, names=[f"p{seat + 1}" for seat in range(len(adapters))])
    for event in match.turns():
        turn[0] = event.turn
        if plies and event.turn >= plies:
            match.close()
            break
    result = match.result()
    # The moves in a record's order (each resolved turn's seats in order), and where each decision stood.
    moved_before = [0]
    for moves in match.moves:
        played.moves += [(seat, move) for seat, move in enumerate(moves) if move is not None]
        moved_before.append(len(played.moves))
    played.decisions = [
        replace(decision, before=moved_before[min(at, len(match.moves))])
        for decision, at in zip(played.decisions, turns_of)
    ]
    played.scores = tuple(float(units) for units in result.units)
    played.winners = tuple(result.winners) if result.over else ()
    return played
