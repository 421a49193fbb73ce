"""The games' back ends (pure Python), found through the game descriptors (:mod:`termgames.games`).

The descriptors name each game's module without importing it, so that
``termgames list`` and ``termgames --help`` stay fast.
"""

from __future__ import annotations

from ..games import GAMES, GameDescriptor, describe
from .base import Game, OptionSpec, Preset, RuleError, State, View, Viewer

_loaded: dict[str, Game] = {}


def game_names() -> list[str]:
    return list(GAMES)


def get_game(name: str) -> Game:
    """The back end called ``name``; RuleError names the known games if there is none."""
    descriptor = describe(name)
    if descriptor.name not in _loaded:
        rules: type[Game] = descriptor.rules_class()  # a Game subclass: the contract test checks it
        _loaded[descriptor.name] = rules(descriptor)
    return _loaded[descriptor.name]


__all__ = [
    "GAMES",
    "Game",
    "GameDescriptor",
    "OptionSpec",
    "Preset",
    "RuleError",
    "State",
    "View",
    "Viewer",
    "game_names",
    "get_game",
]
