"""Per-game test data, found by the game's name: ``tests/games/NAME.py`` for every game of ``GAMES``.

The tests that cover every game take the games from ``termgames.games.GAMES`` and what they need to know
of one (options that make it short, its largest board, the keys that reach a far row) from its module
here, through :func:`game_data`: a new game without its module, or without a name a test asks for, fails
that test with a message naming what to add (``tests/games/copolymer.py`` says what each name is).

:data:`EXAMPLES` are the games under ``examples/`` (the template game): in no registry, they are
registered for the contract tests' run only (:func:`registered`).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from termgames.games import GAMES, GameDescriptor

EXAMPLES_FOLDER = Path(__file__).resolve().parents[2] / "examples"


def _examples() -> dict[str, GameDescriptor]:
    """Each ``examples/NAME/`` package's ``DESCRIPTOR``, by name (the folder is put on ``sys.path``)."""
    if str(EXAMPLES_FOLDER) not in sys.path:
        sys.path.insert(0, str(EXAMPLES_FOLDER))
    found = {}
    for folder in sorted(EXAMPLES_FOLDER.iterdir()):
        if (folder / "__init__.py").is_file():
            descriptor = importlib.import_module(folder.name).DESCRIPTOR
            assert descriptor.name not in GAMES, f"examples/{folder.name} is named as a game of GAMES"
            found[descriptor.name] = descriptor
    return found


#: The template games of ``examples/``, by name.
EXAMPLES: dict[str, GameDescriptor] = _examples()


@contextmanager
def registered(name: str) -> Iterator[None]:
    """``GAMES`` with the example game ``name`` in it, for as long as the block runs (a game of ``GAMES``:
    nothing changes)."""
    if name not in EXAMPLES:
        yield
        return
    GAMES[name] = EXAMPLES[name]
    try:
        yield
    finally:
        del GAMES[name]


def game_data(game: str) -> ModuleType:
    """The module ``tests/games/GAME.py``; the test fails, naming the file to add, when there is none."""
    try:
        return importlib.import_module(f"games.{game}")
    except ModuleNotFoundError as missing:
        if missing.name != f"games.{game}":
            raise
        pytest.fail(f"tests/games/{game}.py is missing: a game's test data lives there (see tests/games/copolymer.py)")


def data(game: str, name: str) -> Any:
    """``name`` from ``tests/games/GAME.py``; the test fails, naming what to add, when it is not there."""
    module = game_data(game)
    if not hasattr(module, name):
        pytest.fail(f"tests/games/{game}.py has no {name}: add it (tests/games/copolymer.py says what it is)")
    return getattr(module, name)


def playable() -> list[str]:
    """The games of ``GAMES`` with a screen."""
    return [name for name, descriptor in GAMES.items() if descriptor.playable]


class PerGame(Mapping[str, Any]):
    """One name of every game's ``tests/games/NAME.py``, as a mapping from the game's name: its keys are the
    games of ``GAMES`` (``screens_only``: those with a screen), so a test parametrized over it covers every
    game, and a game whose module lacks the name fails the test, saying what to add."""

    def __init__(self, name: str, *, screens_only: bool = False) -> None:
        self.name, self.screens_only = name, screens_only

    def __getitem__(self, game: str) -> Any:
        return data(game, self.name)

    def __iter__(self) -> Iterator[str]:
        return iter(playable() if self.screens_only else list(GAMES))

    def __len__(self) -> int:
        return len(list(iter(self)))


@dataclass(frozen=True)
class SmallBoard:
    """A board that does not fit the smallest terminals the README promises (60x20, 50x20) whole."""

    options: dict[str, Any]
    #: The keys that bring the cursor to a far row.
    keys: tuple[str, ...]
    #: The row labels the board draws at its rows' left, a pattern whose group 1 is the label.
    label: str
    #: How many rows the board has, and the labels of its first and last rows, as drawn top to bottom.
    rows: int
    edge: tuple[str, str]
    #: The cursor's cell name -> the label of its row.
    row_of: Callable[[str], str]
