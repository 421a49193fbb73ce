"""What every ``termgames`` command shares: a refusal in one line, output made safe, a record read or refused.

Below :mod:`termgames.cli` and the games' own commands (``termgames monad ...``), which all take
these from here.  Imports typer and the lowest floor only: ``termgames --help`` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from .untrusted import printable

if TYPE_CHECKING:
    from .match import Match

#: The exit status of a command refused for what a player, a script or a file gave it.
EXIT_USAGE = 2


def fail(message: str) -> NoReturn:
    """End the command with one readable line and exit status 2 (anything from a file or a player escaped)."""
    print(f"termgames: {printable(message, keep_newlines=False)}", file=sys.stderr)
    raise typer.Exit(EXIT_USAGE)


def say(text: str) -> None:
    """Print ``text`` (which may hold names and moves from players and files) with nothing that drives a terminal."""
    print(printable(text))


def load_record(path: Path) -> Match:
    """The game recorded at ``path``; a record that cannot be read ends the command with its reason."""
    from .records import RecordError, load

    try:
        return load(path)
    except RecordError as error:
        fail(str(error))
