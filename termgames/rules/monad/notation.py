"""Monad's commands as text: ``X,Y N MOVE DIR``, ``X,Y N MINE``, ``X,Y N BUILD``, joined by ``; ``.

Parsing is cached (a match repeats the same turns' text when replayed) and the canonical form parses
without the general expression; counts and coordinates are bounded so that no text becomes a number too
large to write out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..base import RuleError
from .geometry import ACTIONS, BUILD_CODE, DIRECTION_INDEX, DIRECTIONS, MINE_CODE

# --------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Command:
    """Order ``n`` units on cell (x, y) to MOVE (with a direction), MINE or BUILD."""

    x: int
    y: int
    n: int
    action: str
    direction: str | None = None
    #: The action as a number for the engine's hot loop: the direction's index for MOVE,
    #: MINE_CODE, BUILD_CODE, or -1 when the action or direction is not one of the rules'.
    code: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        action = self.action
        if action == "MOVE":
            code = DIRECTION_INDEX.get(self.direction, -1)  # type: ignore[arg-type]  # None -> -1
        else:
            code = MINE_CODE if action == "MINE" else BUILD_CODE if action == "BUILD" else -1
        object.__setattr__(self, "code", code)

    def text(self) -> str:
        if self.action == "MOVE":
            return f"{self.x},{self.y} {self.n} MOVE {self.direction}"
        return f"{self.x},{self.y} {self.n} {self.action}"

    def as_list(self) -> list[Any]:
        if self.action == "MOVE":
            return [self.x, self.y, self.n, "MOVE", self.direction]
        return [self.x, self.y, self.n, self.action]

    def __str__(self) -> str:
        return self.text()


#: Digits the notation reads in a coordinate and in a unit count.  Counts grow without bound (units
#: given BUILD on their hive multiply by about 1.2 a turn), so they get far more room; 4,000 digits
#: stay within what int() reads from text by default (4,300).
COORDINATE_DIGITS = 9
COUNT_DIGITS = 4000
LARGEST_COORDINATE = 10**COORDINATE_DIGITS - 1
LARGEST_COUNT = 10**COUNT_DIGITS - 1
_XY = rf"(-?[0-9]{{1,{COORDINATE_DIGITS}}})"
_N = rf"(-?[0-9]{{1,{COUNT_DIGITS}}})"
# [0-9], not \d: digits of other scripts are no part of the notation.
_COMMAND = re.compile(rf"{_XY}\s*,\s*{_XY}\s+{_N}\s+([A-Za-z]+)(?:\s+([A-Za-z]+))?", re.ASCII)
#: Longest move text read: a bot cannot make the engine parse megabytes.
MAX_MOVE_TEXT = 200_000


def _make_command(x: int, y: int, n: int, action: Any, direction: Any, shown: str) -> Command:
    if not isinstance(action, str) or action.upper() not in ACTIONS:
        raise RuleError(f"{shown!r}: the action is MOVE, MINE or BUILD, not {action!r}")
    action = action.upper()
    if action == "MOVE":
        if not isinstance(direction, str) or direction.upper() not in DIRECTION_INDEX:
            raise RuleError(f"{shown!r}: MOVE needs a direction, one of {' '.join(DIRECTIONS)}")
        return Command(x, y, n, "MOVE", direction.upper())
    if direction is not None and direction != "":
        raise RuleError(f"{shown!r}: {action} takes no direction")
    return Command(x, y, n, action)


#: The canonical notation (what records store), read in one pass over the whole text.
_CANONICAL = re.compile(rf"{_XY},{_XY} {_N} (?:MOVE (NE|NW|SE|SW|E|W)|(MINE|BUILD))(?:; |$)")


def _parse_canonical(text: str) -> tuple[Command, ...] | None:
    """The commands of a move in the canonical form, or None to read it the long way."""
    commands = []
    position = 0
    end = len(text)
    match = _CANONICAL.match
    while position < end:
        found = match(text, position)
        if found is None:
            return None
        x, y, n, direction, action = found.groups()
        if direction is None:
            commands.append(Command(int(x), int(y), int(n), action))
        else:
            commands.append(Command(int(x), int(y), int(n), "MOVE", direction))
        position = found.end()
    return tuple(commands)


@lru_cache(maxsize=256)  # apply and normalise_move read the same text one after the other
def _parse_cached(text: str) -> tuple[Command, ...]:
    stripped = text.strip()
    if not stripped or stripped.lower() == "pass":
        return ()
    fast = _parse_canonical(stripped)
    if fast is not None:
        return fast
    commands = []
    for part in re.split(r"[;\n]", stripped):
        part = part.strip()
        if not part:
            continue
        found = _COMMAND.fullmatch(part)
        if found is None:
            raise RuleError(f"cannot read {part[:60]!r}: a command is X,Y N MOVE DIR, X,Y N MINE or X,Y N BUILD")
        x, y, n, action, direction = found.groups()
        commands.append(_make_command(int(x), int(y), int(n), action, direction, part))
    return tuple(commands)


def parse_commands(text: str) -> list[Command]:
    """Read a move: commands separated by ``;`` (or new lines); ``pass`` or nothing is no command.

    Raises RuleError only on text that cannot be read; a command that can be
    read but not carried out is dropped when the turn resolves (ruling 4).
    """
    if len(text) > MAX_MOVE_TEXT:
        raise RuleError(f"the move is {len(text)} characters long; at most {MAX_MOVE_TEXT} are read")
    return list(_parse_cached(text))


def fits_notation(command: Command) -> bool:
    """Whether the command's numbers can be written in the notation (a record must replay)."""
    return (
        abs(command.x) <= LARGEST_COORDINATE
        and abs(command.y) <= LARGEST_COORDINATE
        and abs(command.n) <= LARGEST_COUNT
    )


def format_commands(commands: Iterable[Command]) -> str:
    """The canonical move text: ``3,4 2 MOVE NE; 5,5 1 MINE``, or ``pass`` for none."""
    text = "; ".join(command.text() for command in commands)
    return text or "pass"


def _whole(value: Any, what: str, shown: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise RuleError(f"{shown}: {what} must be a whole number, not {value!r}")
    return value


def coerce_command(obj: Any) -> Command:
    """A Command from what a bot returns: a Command, ``[x, y, n, "MOVE", "NE"]``, a dict or a string."""
    shown = repr(obj)[:60]
    if isinstance(obj, Command):
        x, y, n = (_whole(v, w, shown) for v, w in ((obj.x, "x"), (obj.y, "y"), (obj.n, "n")))
        return _make_command(x, y, n, obj.action, obj.direction, shown)
    if isinstance(obj, str):
        commands = parse_commands(obj)
        if len(commands) != 1:
            raise RuleError(f"{shown}: one command expected, found {len(commands)}")
        return commands[0]
    if isinstance(obj, (list, tuple)):
        if len(obj) not in (4, 5):
            raise RuleError(f"{shown}: a command list is [x, y, n, ACTION] or [x, y, n, \"MOVE\", DIR]")
        x, y, n = (_whole(v, w, shown) for v, w in zip(obj[:3], ("x", "y", "n")))
        return _make_command(x, y, n, obj[3], obj[4] if len(obj) == 5 else None, shown)
    if isinstance(obj, dict):
        missing = [key for key in ("x", "y", "n", "action") if key not in obj]
        if missing:
            raise RuleError(f"{shown}: a command object needs x, y, n and action (missing {', '.join(missing)})")
        x, y, n = (_whole(obj[k], k, shown) for k in ("x", "y", "n"))
        return _make_command(x, y, n, obj["action"], obj.get("direction"), shown)
    raise RuleError(f"{shown}: a command is a list, an object or a text, not {type(obj).__name__}")


