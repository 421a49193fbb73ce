"""The games' back ends (pure Python) and the registry that finds them.

The registry names each game's module without importing it, so that
``termgames list`` and ``termgames --help`` stay fast.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from .base import Game, OptionSpec, Preset, RuleError, State, View, Viewer


@dataclass(frozen=True)
class GameEntry:
    name: str
    title: str
    summary: str
    module: str
    cls: str


REGISTRY: dict[str, GameEntry] = {
    entry.name: entry
    for entry in (
        GameEntry(
            "copolymer",
            "Copolymer",
            "Claim cells of a honeycomb; touching two enemy cells earns another claim. Majority wins. (2 players)",
            "termgames.rules.copolymer",
            "Copolymer",
        ),
        GameEntry(
            "monad",
            "Monad",
            "Bots command units on a hex map: mine, build hives, fight; simultaneous turns. (2-4 players)",
            "termgames.rules.monad",
            "Monad",
        ),
        GameEntry(
            "mosaic",
            "Mosaic",
            "Build a board of two-coloured tiles, then recolour it edge by edge into large regions. (2-4 players)",
            "termgames.rules.mosaic",
            "Mosaic",
        ),
        GameEntry(
            "mono",
            "Mono",
            "Probe the hidden boards of your opponents for runs of rising values. (2-4 players)",
            "termgames.rules.mono",
            "Mono",
        ),
        GameEntry(
            "monunrail",
            "MonUnrail",
            "Build a railway circuit together, then take it apart; the last remover wins. (2 players)",
            "termgames.rules.monunrail",
            "MonUnrail",
        ),
    )
}

_loaded: dict[str, Game] = {}


def game_names() -> list[str]:
    return list(REGISTRY)


def get_game(name: str) -> Game:
    """The back end called ``name``; RuleError names the known games if there is none."""
    key = name.strip().lower()
    entry = REGISTRY.get(key)
    if entry is None:
        raise RuleError(f"there is no game {name!r} (games: {', '.join(REGISTRY)})")
    if key not in _loaded:
        module = importlib.import_module(entry.module)
        _loaded[key] = getattr(module, entry.cls)()
    return _loaded[key]


__all__ = [
    "Game",
    "GameEntry",
    "OptionSpec",
    "Preset",
    "REGISTRY",
    "RuleError",
    "State",
    "View",
    "Viewer",
    "game_names",
    "get_game",
]
