"""The contract every game's back end implements.

A back end is pure Python: it never imports a UI or network library and never
does I/O.  A game is created from its options, its seat names and a seed; a
move is text in the game's own notation; applying a move either returns the
next state or raises :class:`RuleError` with a message a player can read.

Everything outside the back end (screens, bots, the CLI, the network server,
replays) sees a game only through :meth:`State.view`, the view of one seat or
of a spectator.  Undo, saves and replays are all built by the mid-end
(:mod:`termgames.match`) from the seed plus the list of moves.

A new game subclasses :class:`Game`, :class:`State` and :class:`View` here
and adds one descriptor to ``termgames.games.GAMES``; ``docs/architecture.md``
walks through every file, with Copolymer as the example, and
``tests/test_game_contract.py`` then checks the game by itself.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import RuleError
from ..games import GameDescriptor, describe
from ..untrusted import BadName, check_name, shorten_quotes
from .options import CompoundFlag, OptionSpec, Preset

#: A seat index (0-based, in seat order) or ``None`` for a spectator.
Viewer = int | None

#: Pseudo-viewer for "every board": allowed only once a game is over.
ALL = -1


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

    def position_key(self) -> Hashable:
        """What names the position this view shows, for what is worked out from it (a hint, an overlay, the move
        being assembled): the viewer, who is to move, and the moves that led here as this viewer sees them (a
        game's seed is fixed, so they fix the position).  Never a count of moves: an undo and another line of
        the same length repeat the count, not the position."""
        return (self.viewer, self.to_move, self.over, self.moves)

    def board_json(self) -> Any:
        """The board in the JSON shape ``termgames show --json`` prints."""
        raise NotImplementedError

    def board_text(self, ascii: bool = False) -> str:
        """The board as plain text, for ``termgames show``.

        ``ascii`` asks for ASCII characters only (a terminal that is not
        UTF-8, ``show --ascii``); a board drawn in ASCII anyway ignores it.
        """
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

    def progress(self) -> str:
        """How far a game in progress has come, as its screen counts: "move 12" (Monad, whose seats command
        together: "turn 6")."""
        return f"move {self.ply + 1}"

    def view_all(self) -> View:
        """Everything, hidden information included: for replays of finished games.

        Perfect-information games show a spectator the whole game already.
        Front ends ask for it only once the game is over (``Match.view``
        refuses otherwise).
        """
        return self.view(None)

    # -- moves -------------------------------------------------------------

    def apply(self, seat: int, move: str) -> State:
        """Check ``move`` by ``seat`` fully and return the next state."""
        if not 0 <= seat < len(self.seats):
            raise RuleError(f"there is no seat {seat + 1}")
        if self.is_over():
            raise RuleError("the game is over")
        if seat not in self.to_move():
            names = " and ".join(self.seats[s] for s in self.to_move())
            raise RuleError(f"it is {possessive(names)} turn, not {possessive(self.seats[seat], standing=True)}")
        text = move.strip()
        if not text:
            raise RuleError("the move is empty")
        try:
            return self._apply(seat, text)
        except RuleError as error:
            # A refusal quotes the move; a 100 kB move must not come back whole.
            raise RuleError(shorten_quotes(str(error))) from None

    @abstractmethod
    def _apply(self, seat: int, move: str) -> State:
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

    def drawn(self, seat: int, move: str, after: State) -> str | None:
        """What ``move`` by ``seat`` drew at random when it turned this state into ``after``, as text.

        None when the move drew nothing (the default).  Records keep it beside the move: a record then
        says what happened, and loading checks that the seed still draws it, so editing a record's seed
        cannot re-roll a random outcome that was already played (Mono's ``random`` layouts and probes).
        """
        return None

    def setup_drawn(self) -> str | None:
        """What setting up this (initial) state drew at random from the seed, as text; None when nothing."""
        return None

    def random_move(self, seat: int, rng: random.Random) -> str:
        """A legal move for ``seat`` (on turn), drawn from ``rng``: quick, with no strategy.

        The contract test (``tests/test_game_contract.py``) plays seeded
        random games with it; for a game that does not override it, the test
        plays the first AI level of its descriptor instead, which is slower.
        A game with hidden moves should draw them explicitly (Mono: a layout
        string, not ``random``) so that the test can vary what a seat hides.
        """
        raise NotImplementedError

    def rng(self, salt: str = "") -> random.Random:
        """A random source for this ply, fixed by the seed: replays draw the same numbers.

        Every hidden random outcome comes from here (or from :func:`seeded_rng` where no state exists
        yet): drawn from the table's secret seed, never from something guessable such as ``seed + seat``.
        """
        return seeded_rng(self.seed, f"{self.ply}:{salt}")


def seeded_rng(seed: int, salt: str) -> random.Random:
    """The random source named ``salt`` of the game whose secret seed is ``seed``.

    ``random.Random`` hashes a text seed with SHA-512, so its numbers tell nothing usable about the seed,
    and two salts give unrelated numbers.
    """
    return random.Random(f"{seed}:{salt}")


#: Names that are pronouns take their own possessive: a player named "me" reads "my turn", not "me's turn".
PRONOUN_POSSESSIVES = {
    "i": "my", "me": "my", "you": "your", "he": "his", "him": "his", "she": "her", "her": "her",
    "it": "its", "we": "our", "us": "our", "they": "their", "them": "their",
}


#: The possessives that stand alone ("not yours").
STANDING_POSSESSIVES = {"my": "mine", "your": "yours", "her": "hers", "our": "ours", "their": "theirs"}


def possessive(name: str, standing: bool = False, *, addressed: bool = False) -> str:
    """``ann`` -> ``ann's``, ``me`` -> ``my``: how every message says whose turn, board or cell it is.

    ``standing``: the form without its noun ("not yours", "not bob's").
    ``addressed``: the text speaks to its reader as "you" (the screens do: "Your turn"); there a
    player named "me" or "you" is a name, not the reader, so it reads ``"me"'s``, never "my" or "your".
    """
    own = PRONOUN_POSSESSIVES.get(name.lower())
    if own is not None and addressed:
        return f"\"{name}\"'s"
    if own is None:
        return f"{name}'s"
    if standing:
        own = STANDING_POSSESSIVES.get(own, own)
    return own.capitalize() if name[:1].isupper() else own


def _and(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join(words) if len(words) < 3 else ", ".join(words[:-1]) + " and " + words[-1]


def _flag_value(flag: str, eq: str, inline: str, items: list[str], hint: str = "") -> str:
    """The value of ``flag`` on the command line: ``--flag=V`` or the next word (taken from ``items``)."""
    if eq:
        return inline
    if items:
        return items.pop(0)
    raise RuleError(f"{flag} needs a value{hint}")


class Game(ABC):
    """One back end: the rules of a game, its options and its factory.

    What the rest of termgames needs to know about a game without importing
    it (title, summary, seat counts, AI levels, the modules of its screen and
    bots) is in its descriptor (:mod:`termgames.games`); the properties below
    read it from there, so it is written once.  The registry hands each game
    its descriptor (:func:`termgames.rules.get_game`); a game made directly
    (``Mono()``) takes the one registered under its ``name``, and a throwaway
    game in a test is handed its own.
    """

    #: The descriptor's name: the key this class is registered under in ``termgames.games.GAMES``.
    name: ClassVar[str]
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()
    presets: ClassVar[tuple[Preset, ...]] = ()
    #: The least time each AI move stays "thinking" on every front end, so players can follow it.
    ai_move_seconds: ClassVar[float] = 0.35
    #: The move an AI seat plays for itself when its bot fails or answers an illegal move, followed by
    #: the reason (Monad: ``fault REASON``, the turn goes on without it); None: the game waits instead.
    fault_move: ClassVar[str | None] = None
    #: What a seat that ran out of time plays every turn from then on, at a table of three or four (Monad:
    #: ``pass``, so that simultaneous turns stop waiting for it); None: the computer plays the seat instead,
    #: at the game's default level.
    timeout_move: ClassVar[str | None] = None
    compound_flags: ClassVar[tuple[CompoundFlag, ...]] = ()

    def __init__(self, descriptor: GameDescriptor | None = None) -> None:
        self.descriptor = describe(self.name) if descriptor is None else descriptor
        if self.descriptor.name != self.name:
            raise ValueError(f"{type(self).__name__} is {self.name!r}, not {self.descriptor.name!r}")

    # -- from the descriptor -------------------------------------------------

    @property
    def title(self) -> str:
        return self.descriptor.title

    @property
    def summary(self) -> str:
        return self.descriptor.summary

    @property
    def min_seats(self) -> int:
        return self.descriptor.min_seats

    @property
    def max_seats(self) -> int:
        return self.descriptor.max_seats

    @property
    def ai_levels(self) -> tuple[str, ...]:
        """AI levels offered, weakest first (or named bots); the default is ``default_level``."""
        return self.descriptor.ai_levels

    @property
    def default_level(self) -> str:
        return self.descriptor.default_level

    def check_level(self, level: str | None) -> str:
        """The AI level ``level`` names (the default level when None or empty); RuleError if there is none."""
        return self.descriptor.check_level(level)

    # -- options -----------------------------------------------------------
    #
    # The grammar is data (``option_specs``, ``presets``, ``compound_flags``);
    # these methods are its only readers and writers.  The CLI and the SSH
    # ``challenge`` command parse with :meth:`take_cli_options`, the setup
    # form goes through :meth:`OptionSpec.form_value`/:meth:`options_from_form`,
    # records and the server through :meth:`check_options`.

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
        for spec in self.option_specs:
            if result[spec.name]:
                result.update((name, specs[name].default) for name in spec.overrides)
        self._check_option_combination(result)
        return result

    def _check_option_combination(self, options: dict[str, Any]) -> None:  # noqa: B027 -- a hook, empty by default
        """Refuse combinations that make no game (even cell counts, ...)."""

    def take_cli_options(self, args: Sequence[str]) -> tuple[dict[str, Any], list[str]]:
        """Read the option flags among ``args``: (the checked options, the words that are not options).

        ``--size 9``, ``--size=9``, switches, presets and compound flags, in
        any order; a word that starts with ``-`` and is none of them is an
        error, any other word is returned (the SSH ``challenge`` command's
        player names).
        """
        specs = {spec.flag: spec for spec in self.option_specs}
        by_name = {spec.name: spec for spec in self.option_specs}
        presets = {preset.flag: preset for preset in self.presets}
        compounds = {compound.flag: compound for compound in self.compound_flags}
        options: dict[str, Any] = {}
        given: list[tuple[str, frozenset[str]]] = []  # each flag and the options it set
        rest: list[str] = []
        items = list(args)
        while items:
            word = items.pop(0)
            flag, eq, inline = word.partition("=")
            if not word.startswith("-"):
                rest.append(word)
            elif flag in presets and not eq:
                options.update(presets[flag].values)
                given.append((flag, frozenset(presets[flag].values)))
            elif flag in compounds:
                compound = compounds[flag]
                value = _flag_value(flag, eq, inline, items, f", e.g. {flag} {compound.example or compound.metavar}")
                for name, raw in compound.read(value).items():
                    # "--rhombus must be at least 3"; "--supply's turns must be at least 4" when it sets several
                    named = flag if len(compound.fills) == 1 else f"{flag}'s {name.replace('_', ' ')}"
                    options[name] = by_name[name].coerce(raw, named)
                given.append((flag, compound.sets))
            elif flag in specs:
                spec = specs[flag]
                if not spec.kind.takes_value:
                    options[spec.name] = spec.coerce(inline) if eq else True
                else:
                    options[spec.name] = spec.coerce(_flag_value(flag, eq, inline, items))
                given.append((flag, frozenset([spec.name])))
            else:
                listing = ", ".join(self.cli_flags()) or "none"
                raise RuleError(f"{self.name} has no option {flag!r} (its options: {listing})")
        self._check_flag_conflicts(given, options)
        return self.check_options(options), rest

    def _check_flag_conflicts(self, given: list[tuple[str, frozenset[str]]], options: dict[str, Any]) -> None:
        """Refuse a command line whose flags contradict each other (``--rhombus 7 --size 9``)."""
        flags_given = {flag for flag, _ in given}
        # Two different flags setting one option (``--small --large``, ``--small --size 11``) contradict
        # each other: refuse rather than let the last one win silently.
        for index, (flag, names) in enumerate(given):
            for other, other_names in given[:index]:
                if other != flag and names & other_names and not self._compound_or_override(flag, other):
                    both = _and(sorted(name.replace("_", " ") for name in names & other_names))
                    raise RuleError(f"{other} and {flag} both set the {both}; give only one of them")
        for compound in self.compound_flags:
            if compound.flag not in flags_given:
                continue
            for flag, names in given:
                if flag != compound.flag and names & compound.sets:
                    sets = _and([*compound.fixed, *compound.fills])
                    raise RuleError(f"{compound.flag} sets the {sets} itself; do not combine it with {flag}")
        for spec in self.option_specs:
            if spec.overrides and options.get(spec.name):
                for flag, names in given:
                    if names & set(spec.overrides):
                        decided = _and(spec.overrides)
                        raise RuleError(f"{spec.flag} decides the {decided} itself; do not combine it with {flag}")

    def _compound_or_override(self, *flags: str) -> bool:
        """Whether one of ``flags`` is a compound flag or an overriding switch (refused below with their own words)."""
        special = {compound.flag for compound in self.compound_flags}
        special |= {spec.flag for spec in self.option_specs if spec.overrides}
        return any(flag in special for flag in flags)

    def parse_cli_options(self, args: Sequence[str]) -> dict[str, Any]:
        """Parse game options written as CLI flags (``--size 9``, ``--small``, ``--rhombus 9``)."""
        options, rest = self.take_cli_options(args)
        if rest:
            listing = ", ".join(self.cli_flags()) or "none"
            raise RuleError(f"{self.name} has no option {rest[0]!r} (its options: {listing})")
        return options

    def option_flags(self, options: dict[str, Any]) -> list[str]:
        """CLI flags that :meth:`parse_cli_options` reads back as ``options`` (none for the defaults)."""
        options = self.check_options(options)
        defaults = self.default_options()
        done: set[str] = set()
        words: list[str] = []
        for compound in self.compound_flags:
            if compound.describes(options, defaults):
                words += compound.write(options)
                done |= compound.sets
        for spec in self.option_specs:
            value = options[spec.name]
            if spec.name in done or value == spec.default:
                continue
            words += spec.kind.write(spec, value)
        return words

    def options_from_form(self, raw: dict[str, Any]) -> dict[str, Any]:
        """The options a setup form's widget values (one per spec, see :meth:`OptionSpec.form_value`) make."""
        specs = {spec.name: spec for spec in self.option_specs}
        # an unknown name is left for check_options to refuse
        values = {name: specs[name].from_form(value) if name in specs else value for name, value in raw.items()}
        return self.check_options(values)

    def cli_flags(self) -> list[str]:
        """The option flags the CLI takes for this game, for help and error messages."""
        return (
            [compound.usage for compound in self.compound_flags]
            + [preset.flag for preset in self.presets]
            + [spec.usage for spec in self.option_specs]
        )

    def describe_options(self, options: dict[str, Any]) -> str:
        """A short human text of the options that differ from the defaults."""
        return " ".join(self.option_flags(options)) or "standard"

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
            try:
                check_name(name)
            except BadName as error:
                raise RuleError(str(error)) from None
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

    def stored_move(self, move: str) -> str:
        """A move read back from a record or a database, in the form today's rules take.

        A rule that tightens what a move may hold (Monad's fault reasons are printable now) must not
        make the records and tables written before it unreadable: such a move is rewritten here (made
        safe), never refused.  A move played now is checked by :meth:`State.apply` as it always was.
        """
        return move

    # -- documentation -----------------------------------------------------

    @abstractmethod
    def rules_text(self) -> str:
        """The rules, the rulings a player would notice and the notation, as Markdown."""



def default_seat_names(count: int) -> list[str]:
    return [f"p{i + 1}" for i in range(count)]
