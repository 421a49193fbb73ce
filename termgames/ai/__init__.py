"""Computer players.

A bot sees a game only through the view of its own seat, exactly what a human
in that seat would see, and answers with a move in the game's notation.
Bots are pure Python (no UI, no I/O) and may take a while: front ends run
them off the UI thread.
"""

from __future__ import annotations

import importlib
from typing import Protocol

from ..rules import View

#: game name -> module with ``make_bot(level, seed)``
BOT_MODULES = {
    "copolymer": "termgames.ai.copolymer",
    "monad": "termgames.ai.monad",
    "mono": "termgames.ai.mono",
    "mosaic": "termgames.ai.mosaic",
    "monunrail": "termgames.ai.monunrail",
}


class Bot(Protocol):
    level: str

    def choose(self, view: View) -> str:
        """The move to play in the position ``view`` shows (the bot's seat is ``view.viewer``)."""
        ...


def make_bot(game: str, level: str, seed: int | None = None) -> Bot:
    module = importlib.import_module(BOT_MODULES[game])
    return module.make_bot(level, seed)
