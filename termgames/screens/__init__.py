"""Screens.  Each game's screen is found through its descriptor (:mod:`termgames.games`), importing no other."""

from __future__ import annotations

from typing import Any

from ..games import describe


def game_screen_class(game: str) -> Any:
    """The game screen class for ``game``; LookupError if the game has no screen yet."""
    return describe(game).screen_class()


def replay_screen_factory(game: str) -> Any:
    """What makes a replay screen of ``game``, ``(match, source, *, ascii_only, palette) -> Screen``;
    LookupError if the game has no screen yet."""
    return describe(game).replay_screen()
