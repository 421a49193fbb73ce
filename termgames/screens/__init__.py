"""Screens.  Each game's screen is found through ``GAME_SCREENS`` without importing the others."""

from __future__ import annotations

import importlib

#: game name -> "module:Class" of its game screen (a GameScreen subclass).
GAME_SCREENS = {
    "copolymer": "termgames.screens.copolymer:CopolymerScreen",
    "mono": "termgames.screens.mono:MonoScreen",
    "mosaic": "termgames.screens.mosaic:MosaicScreen",
    "monunrail": "termgames.screens.monunrail:MonUnrailScreen",
}


def game_screen_class(game: str):
    """The game screen class for ``game``; LookupError if the game has no screen yet."""
    target = GAME_SCREENS.get(game)
    if target is None:
        raise LookupError(f"{game} cannot be played in the terminal screen yet; use termgames new/move/show")
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
