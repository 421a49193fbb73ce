"""How long the Monad map takes to draw a turn (board_json plus the widget's lines), at 20x20 and 60x60.

The watch screen draws up to 50 turns a second: a turn must draw well within 20 ms.
Run: python bench/monad_map.py
"""

from __future__ import annotations

import time

from termgames.ai.monad.match import MonadMatch
from termgames.rules.monad import board_json
from termgames.screens.monad_live import _turns
from termgames.screens.monad_watch import TurnFeed, follow
from termgames.widgets.monad_board import MonadBoard


def main() -> None:
    for size in (20, 60):
        match = MonadMatch(["greedy", "swarm"], {"turns": 200, "width": size, "height": size}, seed=3)
        feed = TurnFeed(match.names, board_json)
        follow(feed, _turns(match, feed))
        board = MonadBoard()
        started = time.perf_counter()
        for index in range(len(feed)):
            board.show(feed.board_json(index))
        per_turn = (time.perf_counter() - started) / len(feed) * 1000
        print(f"{size}x{size}: {len(feed)} turns, {per_turn:.2f} ms a turn (board_json + map lines)")


if __name__ == "__main__":
    main()
