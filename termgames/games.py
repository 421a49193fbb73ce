"""The games termgames knows: one :class:`GameDescriptor` per game, in :data:`GAMES`, the only registry.

Everything else finds a game here: the rules (``termgames.rules.get_game``),
the computer players (``termgames.ai.make_bot``), the screens
(``termgames.screens.game_screen_class``), ``termgames list``, the start screen
and the lobby.  A descriptor names its parts as ``"module:attribute"`` text
and imports them only when asked, so ``termgames --help`` and ``termgames
list`` import neither Textual nor any game's module.  This module stands
below the rules (it imports only :mod:`termgames.errors` and
:mod:`termgames.untrusted`): the rules read their title, seats and levels
from it, and each layer loads its own part (``get_game`` the rules,
``make_bot`` the bot, ``game_screen_class`` the screen).

Adding a game is its modules plus one entry in :data:`GAMES`: the
checklist, from the template game ``examples/takeaway``, is in ``docs/architecture.md``.
Besides the rules, a descriptor may name the game's screen (which names its
board widget), its replay screen, its own CLI commands, its bot and levels,
and how the ladder plays it (:class:`Ladder`); the shared code (``cli.py``,
``app.py``, ``app.tcss``, ``bench/ladder.py``) names no game.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import RuleError
from .untrusted import quoted


def load(target: str) -> Any:
    """The object a ``"package.module:attribute"`` text names, importing its module now."""
    module_name, _, attribute = target.partition(":")
    value: Any = importlib.import_module(module_name)
    for part in attribute.split(".") if attribute else ():
        value = getattr(value, part)
    return value


@dataclass(frozen=True)
class Ladder:
    """How the ladder (``bench/ladder.py``) plays the game's computer players against each other."""

    #: Options set for games between computer players unless the command line sets them: limits that end
    #: a match two evenly matched bots might never finish.
    match_limits: Mapping[str, Any] = field(default_factory=dict)
    #: Numeric options that are not the board's size: ``--largest`` leaves them as they are.
    not_sizes: frozenset[str] = frozenset()
    #: The random player's move when the notation has one (Mono's ``random`` probe, pbmserv's random
    #: prober); None: the rules' ``State.random_move``.
    random_move: str | None = None
    #: ``(levels, options, seed, bot_seeds, plies) -> TimedGame`` (:mod:`termgames.ai.timed`): the game's own
    #: way to play a ladder game, when the ladder's loop over one mover at a time is not it.
    runner: str | None = None


@dataclass(frozen=True)
class GameDescriptor:
    """Everything termgames needs to know about one game, in one place, importing nothing.

    ``rules``, ``screen`` and ``bot`` are ``"module:attribute"``
    texts, imported on first use.
    """

    #: The name players type (``termgames new copolymer``), lower case.
    name: str
    #: The name as written in titles ("MonUnrail").
    title: str
    #: One sentence for ``termgames list``, the start screen and the lobby (the seat count is added).
    summary: str
    #: The back end: a :class:`~termgames.rules.base.Game` subclass.
    rules: str
    #: The game screen (a ``GameScreen`` subclass, which names its board widget: ``board_class``);
    #: None when the game has none yet (CLI play only).
    screen: str | None = None
    #: The replay screen, ``(match, source, *, ascii_only, palette) -> Screen``, when the game replays its own
    #: way (Monad steps whole turns, not one seat's move at a time); the shared replay screen otherwise.
    replay: str = "termgames.screens.replay:ReplayScreen"
    #: ``(app: typer.Typer) -> None``: adds the game's own commands to ``termgames`` (Monad's ``termgames
    #: monad ...``, MonUnrail's ``termgames solve``).  Called at every start of the CLI, so its module imports
    #: only typer at its top.
    commands: str | None = None
    #: ``(level, seed) -> Bot``: the computer players; None when the game has none.
    bot: str | None = None
    #: AI levels, weakest first (or, with ``levels_are_bots``, the bots by name, simplest first).
    #: The first is what the contract test plays when the rules offer no ``State.random_move``.
    ai_levels: tuple[str, ...] = ()
    #: The level an AI seat gets when none is named (``--player bob:ai``).
    default_level: str = ""
    #: True when each level is a different bot named after its strategy (Monad: random, greedy,
    #: swarm) rather than one bot at several strengths; front ends then label a level "NAME bot".
    levels_are_bots: bool = False
    min_seats: int = 2
    max_seats: int = 2
    #: True when some seat's view hides what another seat may see (Mono's layouts); the contract
    #: test then checks that no view depends on what another seat hid.
    hidden_information: bool = False
    #: True when the seat that moves first has an edge: a rematch then rotates the seats (two players
    #: swap), so the players take turns at the first seat.  False keeps everyone where they sat.
    first_player_edge: bool = False
    #: How ``bench/ladder.py`` plays the game (its defaults: the rules' random moves, no limits).
    ladder: Ladder = Ladder()
    #: ``(level, seed) -> Analyst`` (:mod:`termgames.analysis`): the engine that values each move of a game
    #: after it (``termgames analyse``); None when the game has none.
    analyst: str | None = None
    #: The least loss, in the analyst's unit, of an inaccuracy, a mistake and a blunder (documented on the
    #: game's page).
    analysis_thresholds: tuple[float, float, float] = (0.0, 0.0, 0.0)
    #: The clocks the server's lobby offers to pair at once (``termgames serve``'s quick pairing): the game's
    #: common settings, as ``--clock`` takes them (``5m+3s``, ``3d/move`` for correspondence).
    quick_pairings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.ai_levels and self.default_level not in self.ai_levels:
            raise ValueError(f"{self.name}: default level {self.default_level!r} is not one of its levels")
        if bool(self.ai_levels) != bool(self.bot):
            raise ValueError(f"{self.name}: AI levels and a bot go together")

    # -- what players read ---------------------------------------------------

    @property
    def players_text(self) -> str:
        """ "2 players", "2-4 players"."""
        if self.min_seats == self.max_seats:
            return f"{self.min_seats} players"
        return f"{self.min_seats}-{self.max_seats} players"

    @property
    def blurb(self) -> str:
        """The summary with the seat count: what ``termgames list`` and the start screen show."""
        return f"{self.summary} ({self.players_text})"

    def level_label(self, level: str) -> str:
        """How a setup form names an AI of ``level``: "AI (normal)", or "greedy bot" for named bots."""
        return f"{level} bot" if self.levels_are_bots else f"AI ({level})"

    @property
    def playable(self) -> bool:
        """Whether the game has a terminal screen (otherwise termgames new/move/show only)."""
        return self.screen is not None

    # -- checks --------------------------------------------------------------

    def check_level(self, level: str | None) -> str:
        """The AI level ``level`` names (the default when None or empty); RuleError if there is none.

        The one place a seat's level is checked: ``--player NAME:ai:LEVEL``, records, the server's
        tables (through :meth:`Game.check_level <termgames.rules.base.Game.check_level>`) and
        :func:`termgames.ai.make_bot`.
        """
        title, levels = self.title, self.ai_levels
        if not levels:
            raise RuleError(f"{title} has no AI yet")
        name = (level or "").strip().lower() or self.default_level
        if name not in levels:
            raise RuleError(f"{title}'s AI levels are {', '.join(levels)}, not {level!r}")
        return name

    # -- the parts, imported on first use ------------------------------------

    def rules_class(self) -> Any:
        """The :class:`~termgames.rules.base.Game` subclass (typed where it is made: ``termgames.rules.get_game``)."""
        return load(self.rules)

    def screen_class(self) -> Any:
        """The game screen class; LookupError if the game has no screen yet."""
        if self.screen is None:
            raise LookupError(
                f"{self.name} cannot be played in the terminal screen yet; use termgames new/move/show"
            )
        return load(self.screen)

    def replay_screen(self) -> Any:
        """What makes the game's replay screen (see ``replay``); LookupError if the game has no screen yet."""
        self.screen_class()  # a game without a screen has no board to replay on either
        return load(self.replay)

GAMES: dict[str, GameDescriptor] = {
    descriptor.name: descriptor
    for descriptor in (
        GameDescriptor(
            name="copolymer",
            title="Copolymer",
            summary="Claim cells of a honeycomb; touching two enemy cells earns another claim. Majority wins.",
            rules="termgames.rules.copolymer:Copolymer",
            screen="termgames.screens.copolymer:CopolymerScreen",
            bot="termgames.ai.copolymer:CopolymerBot",
            ai_levels=("easy", "normal", "hard"),
            default_level="normal",
            quick_pairings=("5m+3s", "10m+5s", "3d/move"),
            # Turns alternate and the first claim comes before any reply: the first seat has the edge.
            first_player_edge=True,
            # Cells of the final margin, by playouts (docs/copolymer.md): below 2 cells is within their noise
            # (the best of several noisy estimates looks better than it is).
            analyst="termgames.ai.copolymer_analysis:make_analyst",
            analysis_thresholds=(2.0, 3.0, 4.0),
        ),
        GameDescriptor(
            name="monad",
            title="Monad",
            summary="Bots command units on a hex map: mine, build hives, fight; simultaneous turns.",
            rules="termgames.rules.monad:Monad",
            screen="termgames.screens.monad:MonadScreen",
            replay="termgames.screens.monad:replay_screen",
            commands="termgames.monad_cli:add_commands",
            bot="termgames.ai.monad:MonadBot",
            ai_levels=("random", "greedy", "swarm"),
            default_level="greedy",
            quick_pairings=("10m+10s", "3d/move"),
            levels_are_bots=True,
            max_seats=4,
            hidden_information=True,
            # Simultaneous turns on a symmetric map (rules/monad.md): no seat moves first.
            first_player_edge=False,
            # The turn limit ends a match; simultaneous turns play on the match runner.
            ladder=Ladder(not_sizes=frozenset({"turns"}), runner="termgames.ai.monad.ladder:ladder_game"),
            analyst="termgames.ai.monad_analysis:make_analyst",
            # Units (docs/monad.md "Analysis"): a hive counts as 20, so losing a new hive's worth is a blunder.
            analysis_thresholds=(3.0, 8.0, 15.0),
        ),
        GameDescriptor(
            name="mosaic",
            title="Mosaic",
            summary="Build a board of two-coloured tiles, then recolour it edge by edge into large regions.",
            rules="termgames.rules.mosaic:Mosaic",
            screen="termgames.screens.mosaic:MosaicScreen",
            bot="termgames.ai.mosaic:make_bot",
            ai_levels=("random", "easy", "normal", "hard"),
            default_level="normal",
            quick_pairings=("10m+5s", "3d/move"),
            max_seats=4,
            # Turns alternate in both phases and the first seat places and alters first.
            first_player_edge=True,
            # A game ends only when a player holds the winning score at two checks in a row, which two evenly
            # matched computer players may never do: ruling 5's limit "for matches between computer players"
            # ends it after 60 alteration routines, the highest score winning (as bench/mosaic_ai.py plays).
            ladder=Ladder(match_limits={"max_routines": 60}, not_sizes=frozenset({"max_routines"})),
            analyst="termgames.ai.mosaic_analysis:make_analyst",
            # Points (docs/mosaic.md "Analysis"): a region of 5 tiles is worth 25, one cut from 6 to 5 loses 11.
            analysis_thresholds=(5.0, 12.0, 25.0),
        ),
        GameDescriptor(
            name="mono",
            title="Mono",
            summary="Probe the hidden boards of your opponents for runs of rising values.",
            rules="termgames.rules.mono:Mono",
            screen="termgames.screens.mono:MonoScreen",
            bot="termgames.ai.mono:MonoBot",
            ai_levels=("easy", "normal", "hard"),
            default_level="normal",
            quick_pairings=("5m+5s", "10m+5s", "3d/move"),
            max_seats=4,
            hidden_information=True,
            # The game ends after a full round "so that all players get an equal number of moves. This
            # avoids a potential first move advantage" (rules/mono.md): the seats stay.
            first_player_edge=False,
            ladder=Ladder(random_move="random"),
            analyst="termgames.ai.mono_analysis:make_analyst",
            # Expected points (docs/mono.md "Analysis"): a run of four scores 16, following a region one more
            # cell earns 2n+1.
            analysis_thresholds=(2.0, 5.0, 10.0),
        ),
        GameDescriptor(
            name="monunrail",
            title="MonUnrail",
            summary="Build a railway circuit together, then take it apart; the last remover wins.",
            rules="termgames.rules.monunrail:MonUnrail",
            screen="termgames.screens.monunrail:MonUnrailScreen",
            commands="termgames.monunrail_cli:add_commands",
            bot="termgames.ai.monunrail:MonUnrailBot",
            ai_levels=("easy", "normal", "hard"),
            default_level="normal",
            quick_pairings=("5m+3s", "10m+5s", "3d/move"),
            # The pie rule exists because the first move is worth having; it hands the second seat the
            # choice instead, so the seats' roles still differ: a rematch gives each player the other one.
            first_player_edge=True,
            # Results (docs/monunrail.md): 1 won, 0.5 open, 0 lost; half a game lost is a mistake, a whole one
            # a blunder, and nothing is an inaccuracy.
            analyst="termgames.ai.monunrail_analysis:make_analyst",
            analysis_thresholds=(0.5, 0.5, 1.0),
        ),
    )
}


def describe(name: str) -> GameDescriptor:
    """The descriptor of the game ``name`` (any case, spaces ignored); RuleError names the known games."""
    descriptor = GAMES.get(name.strip().lower())
    if descriptor is None:
        raise RuleError(f"there is no game {quoted(name)} (games: {', '.join(GAMES)})")
    return descriptor
