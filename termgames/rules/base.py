"""The contract every game's back end implements.

A back end is pure Python: it never imports a UI or network library and never
does I/O.  A game is created from its options, its seat names and a seed; a
move is text in the game's own notation; applying a move either returns the
next state or raises :class:`RuleError` with a message a player can read.

Everything outside the back end (screens, bots, the CLI, the network server,
replays) sees a game only through :meth:`State.view`, the view of one seat or
of a spectator.  Undo, saves and replays are all built by the mid-end
(:mod:`termgames.match`) from the seed plus the list of moves.
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Sequence

#: A seat index (0-based, in seat order) or ``None`` for a spectator.
Viewer = int | None

#: Pseudo-viewer for "every board": allowed only once a game is over.
ALL = -1


class RuleError(ValueError):
    """A move, layout or option that the rules refuse.

    ``str(error)`` is a single line meant for the player ("F6 is already
    taken", "it is bob's turn").
    """


# --------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game, shared by the CLI, the setup screen and records.

    ``kind`` is ``"int"``, ``"float"``, ``"flag"`` or ``"choice"``.  ``presets`` are
    extra CLI flags that set several options at once (pbmserv's ``-small``
    becomes ``--small`` -> ``{"size": 9}``).
    """

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def coerce(self, value: Any) -> Any:
        """Turn ``value`` (text from the CLI or JSON from a record) into this option's type."""
        if self.kind == "flag":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on"):
                return True
            if isinstance(value, str) and value.lower() in ("0", "false", "no", "off"):
                return False
            raise RuleError(f"{self.flag} is a switch and takes no value")
        if self.kind == "int":
            if isinstance(value, bool):
                raise RuleError(f"{self.flag} needs a whole number")
            if isinstance(value, float) and not value.is_integer():
                raise RuleError(f"{self.flag} needs a whole number, not {value!r}")
            try:
                number = int(value)
            except (TypeError, ValueError, OverflowError):
                raise RuleError(f"{self.flag} needs a whole number, not {value!r}") from None
            if self.minimum is not None and number < self.minimum:
                raise RuleError(f"{self.flag} must be at least {self.minimum}, not {number}")
            if self.maximum is not None and number > self.maximum:
                raise RuleError(f"{self.flag} must be at most {self.maximum}, not {number}")
            return number
        if self.kind == "float":
            if isinstance(value, bool):
                raise RuleError(f"{self.flag} needs a number")
            try:
                real = float(value)
            except (TypeError, ValueError, OverflowError):
                raise RuleError(f"{self.flag} needs a number such as 0.1, not {value!r}") from None
            if not math.isfinite(real):
                raise RuleError(f"{self.flag} needs a finite number, not {value!r}")
            if self.minimum is not None and real < self.minimum:
                raise RuleError(f"{self.flag} must be at least {self.minimum}, not {real}")
            if self.maximum is not None and real > self.maximum:
                raise RuleError(f"{self.flag} must be at most {self.maximum}, not {real}")
            return real
        if self.kind == "choice":
            text = str(value).lower()
            if text not in self.choices:
                raise RuleError(f"{self.flag} must be one of {', '.join(self.choices)}, not {value!r}")
            return text
        raise AssertionError(f"unknown option kind {self.kind}")


@dataclass(frozen=True)
class Preset:
    """A CLI flag that stands for several option values (``--small``)."""

    flag: str
    values: dict[str, Any]
    help: str


# --------------------------------------------------------------------------
# Views
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class View:
    """What one seat (or a spectator, ``viewer is None``) may see of a game.

    Game back ends subclass this with their board.  A view never holds
    information the viewer may not see; it is what screens draw, what bots
    think about and what ``termgames show`` prints.
    """

    game: str
    viewer: Viewer
    players: tuple[str, ...]
    to_move: tuple[int, ...]
    over: bool
    scores: tuple[float, ...]
    winners: tuple[int, ...]
    #: One line a player reads first: whose turn and what is expected.
    status: str
    #: What the last move did, in words ("" before the first move).
    last_action: str = ""
    #: The move log as this viewer may see it: (seat, text) pairs.
    moves: tuple[tuple[int, str], ...] = ()

    def name(self, seat: int) -> str:
        return self.players[seat]

    def board_json(self) -> Any:
        """The board in the JSON shape ``termgames show --json`` prints."""
        raise NotImplementedError

    def board_text(self) -> str:
        """The board as plain text, for ``termgames show``."""
        raise NotImplementedError

    def log_text(self, move: str, ply: int | None = None) -> str:
        """How a move reads in a log; ``ply`` is its index in ``moves`` (a game may show what it did)."""
        return move

    def is_my_turn(self) -> bool:
        return self.viewer is not None and self.viewer in self.to_move


# --------------------------------------------------------------------------
# States and games
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class State(ABC):
    """An immutable game position.  ``apply`` returns a new state."""

    seats: tuple[str, ...]
    seed: int
    options: dict[str, Any] = field(compare=False)
    #: How many moves have been applied since the start.
    ply: int = 0

    # -- queries -----------------------------------------------------------

    @abstractmethod
    def to_move(self) -> tuple[int, ...]:
        """The seats that may move now (several when moves are simultaneous); () once over."""

    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def scores(self) -> tuple[float, ...]: ...

    def winners(self) -> tuple[int, ...]:
        """The seats with the best score once the game is over (several on a tie)."""
        if not self.is_over():
            return ()
        scores = self.scores()
        best = max(scores)
        return tuple(seat for seat, score in enumerate(scores) if score == best)

    @abstractmethod
    def view(self, viewer: Viewer) -> View: ...

    def view_all(self) -> View:
        """Everything, hidden information included: for replays of finished games.

        Perfect-information games show a spectator the whole game already.
        Front ends ask for it only once the game is over (``Match.view``
        refuses otherwise).
        """
        return self.view(None)

    # -- moves -------------------------------------------------------------

    def apply(self, seat: int, move: str) -> "State":
        """Check ``move`` by ``seat`` fully and return the next state."""
        if not 0 <= seat < len(self.seats):
            raise RuleError(f"there is no seat {seat + 1}")
        if self.is_over():
            raise RuleError("the game is over")
        if seat not in self.to_move():
            names = " and ".join(self.seats[s] for s in self.to_move())
            raise RuleError(f"it is {names}'s turn, not {self.seats[seat]}'s")
        text = move.strip()
        if not text:
            raise RuleError("the move is empty")
        return self._apply(seat, text)

    @abstractmethod
    def _apply(self, seat: int, move: str) -> "State":
        """Apply a move whose seat has already been checked to be on turn."""

    def normalise_move(self, seat: int, move: str) -> str:
        """The canonical text of ``move`` (what records and logs store)."""
        return move.strip()

    def redact_log(self, moves: Sequence[tuple[int, str]], viewer: Viewer) -> tuple[tuple[int, str], ...]:
        """The move log (seat, text) as ``viewer`` may see it in this state.

        By default each move is redacted alone (:meth:`redact_move`); games
        with simultaneous turns hide the moves of the turn not yet resolved,
        which only the position in the log tells apart.
        """
        return tuple((seat, self.redact_move(seat, move, viewer)) for seat, move in moves)

    def redact_move(self, seat: int, move: str, viewer: Viewer) -> str:
        """How ``move`` by ``seat`` appears in the log of ``viewer``.

        ``self`` is the state the viewer is looking at; ``viewer`` may be a
        seat, None (spectator) or ALL.  Games with hidden moves (Mono's
        layouts) hide them here.
        """
        return move

    def rng(self, salt: str = "") -> random.Random:
        """A random source for this ply, fixed by the seed: replays draw the same numbers."""
        return random.Random(f"{self.seed}:{self.ply}:{salt}")


def _flag_value(flag: str, eq: str, inline: str, items: list[str], hint: str = "") -> str:
    """The value of ``flag`` on the command line: ``--flag=V`` or the next word (taken from ``items``)."""
    if eq:
        return inline
    if items:
        return items.pop(0)
    raise RuleError(f"{flag} needs a value{hint}")


class Game(ABC):
    """One back end: the static description of a game and its factory."""

    name: ClassVar[str]
    title: ClassVar[str]
    summary: ClassVar[str]
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 2
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()
    presets: ClassVar[tuple[Preset, ...]] = ()
    #: AI levels offered, weakest first; the default is ``default_level``.
    ai_levels: ClassVar[tuple[str, ...]] = ()
    default_level: ClassVar[str] = ""

    # -- options -----------------------------------------------------------

    def default_options(self) -> dict[str, Any]:
        return {spec.name: spec.default for spec in self.option_specs}

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Fill defaults, coerce types and check the combination; raise RuleError if wrong."""
        specs = {spec.name: spec for spec in self.option_specs}
        unknown = sorted(set(options) - set(specs))
        if unknown:
            raise RuleError(f"{self.name} has no option {unknown[0]!r}")
        result = self.default_options()
        for name, value in options.items():
            result[name] = specs[name].coerce(value)
        self._check_option_combination(result)
        return result

    def _check_option_combination(self, options: dict[str, Any]) -> None:
        """Refuse combinations that make no game (even cell counts, ...)."""

    @staticmethod
    def take_flag(args: Sequence[str], flag: str, example: str) -> tuple[str | None, list[str]]:
        """Split off a game's own flag with a value (``--rhombus 9``, ``--supply=8,8,8``): (its value, the rest).

        For flags that stand for several options at once, which a game maps
        itself before :meth:`parse_cli_options` reads the rest.
        """
        value: str | None = None
        rest: list[str] = []
        items = list(args)
        while items:
            word = items.pop(0)
            name, eq, inline = word.partition("=")
            if name != flag:
                rest.append(word)
            else:
                value = _flag_value(flag, eq, inline, items, f", e.g. {flag} {example}")
        return value, rest

    def parse_cli_options(self, args: Sequence[str]) -> dict[str, Any]:
        """Parse game options written as CLI flags (``--size 9``, ``--small``)."""
        specs = {spec.flag: spec for spec in self.option_specs}
        presets = {preset.flag: preset for preset in self.presets}
        options: dict[str, Any] = {}
        items = list(args)
        while items:
            word = items.pop(0)
            flag, eq, inline = word.partition("=")
            if flag in presets and not eq:
                options.update(presets[flag].values)
                continue
            spec = specs.get(flag)
            if spec is None:
                listing = ", ".join(self.cli_flags()) or "none"
                raise RuleError(f"{self.name} has no option {flag!r} (its options: {listing})")
            if spec.kind == "flag":
                options[spec.name] = spec.coerce(inline) if eq else True
                continue
            options[spec.name] = spec.coerce(_flag_value(flag, eq, inline, items))
        return self.check_options(options)

    def cli_flags(self) -> list[str]:
        """The option flags the CLI takes for this game, for help and error messages."""
        flags = [spec.flag + ("" if spec.kind == "flag" else " N" if spec.kind == "int" else " X") for spec in self.option_specs]
        return flags + [preset.flag for preset in self.presets]

    def describe_options(self, options: dict[str, Any]) -> str:
        """A short human text of the options that differ from the defaults."""
        parts = []
        for spec in self.option_specs:
            value = options.get(spec.name, spec.default)
            if value == spec.default:
                continue
            if spec.kind == "flag":
                parts.append(spec.flag)
            else:
                parts.append(f"{spec.flag} {value}")
        return " ".join(parts) if parts else "standard"

    def options_to_cli(self, options: dict[str, Any]) -> list[str]:
        args: list[str] = []
        for spec in self.option_specs:
            value = options.get(spec.name, spec.default)
            if value == spec.default:
                continue
            if spec.kind == "flag":
                if value:
                    args.append(spec.flag)
            else:
                args += [spec.flag, str(value)]
        return args

    # -- creation ----------------------------------------------------------

    def check_seats(self, seats: Sequence[str]) -> tuple[str, ...]:
        names = tuple(seats)
        if not self.min_seats <= len(names) <= self.max_seats:
            if self.min_seats == self.max_seats:
                wanted = f"{self.min_seats}"
            else:
                wanted = f"{self.min_seats} to {self.max_seats}"
            raise RuleError(f"{self.title} is played by {wanted} players, not {len(names)}")
        for name in names:
            if not name or not name.strip() or any(c in name for c in " \t\n:,"):
                raise RuleError(f"{name!r} is not a usable player name (no spaces, commas or colons)")
        duplicated = {n for n in names if names.count(n) > 1}
        if duplicated:
            raise RuleError(f"two seats are named {sorted(duplicated)[0]!r}")
        return names

    def new(self, options: dict[str, Any], seats: Sequence[str], seed: int) -> State:
        """The initial state; the same arguments always give the same game."""
        checked = self.check_options(options)
        names = self.check_seats(seats)
        return self._new(checked, names, int(seed))

    @abstractmethod
    def _new(self, options: dict[str, Any], seats: tuple[str, ...], seed: int) -> State: ...

    # -- documentation -----------------------------------------------------

    @abstractmethod
    def rules_text(self) -> str:
        """The rules, the rulings a player would notice and the notation, as Markdown."""

    def keys_text(self) -> str:
        """The game's own keys beyond the common ones, as Markdown (may be empty)."""
        return ""


def default_seat_names(count: int) -> list[str]:
    return [f"p{i + 1}" for i in range(count)]
