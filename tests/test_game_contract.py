"""The contract every registered game keeps, run over every entry of ``termgames.games.GAMES`` and the template
game of ``examples/`` (registered for the test's run only: ``tests/games``'s ``EXAMPLES``).

A game joins these tests by being registered: options round-trip through CLI
flags, the setup form and records; seeded random games replay from their
records to the same views; no view depends on what another seat hid; every
view draws as text (plain and ASCII) and as JSON; and the descriptor is the
only registry.
"""

from __future__ import annotations

import ast
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from games import EXAMPLES, registered

import termgames.ai
import termgames.rules
import termgames.screens
from termgames import records
from termgames.ai import make_bot
from termgames.games import GAMES, GameDescriptor, describe
from termgames.match import Match, SeatInfo
from termgames.report import view_json, view_text
from termgames.rules import Game, RuleError, get_game
from termgames.rules.base import ALL

NAMES = ("ann", "bob", "cyd", "dee")
#: A random game stops here even if it is not over (a game that never ends is a bug of its own).
MAX_PLIES = 600
#: Properties the Game reads from its descriptor: a rules class must not write them again.
DESCRIPTOR_FACTS = ("title", "summary", "min_seats", "max_seats", "ai_levels", "default_level")

#: The games the contract is checked on: every game of GAMES, and the template games of examples/.
CONTRACT_GAMES = {**GAMES, **EXAMPLES}

games = pytest.mark.parametrize("name", list(CONTRACT_GAMES))


@pytest.fixture(autouse=True)
def example_registered(request):
    """A test of an example game runs with it in GAMES, and only that test."""
    name = request.node.callspec.params.get("name") if hasattr(request.node, "callspec") else None
    with registered(name):
        yield


def seats_for(game: Game, count: int | None = None) -> list[SeatInfo]:
    return [SeatInfo(name) for name in NAMES[: count or game.min_seats]]


def random_mover(descriptor: GameDescriptor, seed: int):
    """``(match, seat) -> move``: the rules' ``random_move``, else the descriptor's first AI level."""
    rng = random.Random(seed)
    bots: dict[int, Any] = {}

    def move(match: Match, seat: int) -> str:
        try:
            return match.state.random_move(seat, rng)
        except NotImplementedError:
            if not descriptor.ai_levels:
                pytest.fail(f"{descriptor.name}: override State.random_move or give the game an AI level")
            if seat not in bots:
                bots[seat] = make_bot(descriptor.name, descriptor.ai_levels[0], seed=seed * 10 + seat)
            return bots[seat].choose(match.view(seat))

    return move


def random_game(name: str, seed: int, count: int | None = None, max_plies: int = MAX_PLIES) -> Match:
    """A game of random legal moves, fixed by ``seed`` (cut off after ``max_plies`` moves)."""
    descriptor = describe(name)
    game = get_game(name)
    match = Match(game, {}, seats_for(game, count), seed)
    mover = random_mover(descriptor, seed)
    turn_rng = random.Random(f"turns:{seed}")
    while not match.over and len(match.moves) < max_plies:
        seat = turn_rng.choice(match.state.to_move())
        match.play(seat, mover(match, seat))
    return match


def viewers(match: Match) -> list[int | None]:
    return [*range(len(match.seats)), None]


def prefix(match: Match, ply: int) -> Match:
    """The match as it stood after ``ply`` moves, as a new Match (its states are shared, not replayed)."""
    copy = Match.__new__(Match)
    copy.__dict__.update(match.__dict__)
    copy.states = match.states[: ply + 1]
    copy.moves = match.moves[:ply]
    return copy


# --------------------------------------------------------------------------
# One registry
# --------------------------------------------------------------------------


@games
def test_the_descriptor_is_the_only_registry(name):
    descriptor = GAMES[name]
    game = get_game(name)
    assert type(game) is descriptor.rules_class() and game.name == name
    assert game.descriptor is descriptor
    for fact in DESCRIPTOR_FACTS:
        # written once, in the descriptor; a rules class that sets its own would drift from it
        assert fact not in vars(type(game)), f"{type(game).__name__}.{fact} repeats the descriptor"
        assert getattr(game, fact) == getattr(descriptor, fact)
    assert 1 <= descriptor.min_seats <= descriptor.max_seats
    assert descriptor.title and descriptor.summary and "\n" not in descriptor.blurb
    if descriptor.playable:
        screen = descriptor.screen_class()
        assert termgames.screens.game_screen_class(name) is screen
        from textual.widget import Widget

        assert issubclass(screen.board_class, Widget)  # named once, by the screen
        assert callable(descriptor.replay_screen()) and termgames.screens.replay_screen_factory(name)
    for level in descriptor.ai_levels:
        assert make_bot(name, level, seed=1).level == level
    if descriptor.ai_levels:
        assert make_bot(name, None, seed=1).level == descriptor.default_level
    with pytest.raises(RuleError, match="levels" if descriptor.ai_levels else "no AI"):
        make_bot(name, "no-such-level", seed=1)


def test_no_second_registry_exists():
    assert not hasattr(termgames.rules, "REGISTRY")
    assert not hasattr(termgames.ai, "BOT_MODULES")
    assert not hasattr(termgames.screens, "GAME_SCREENS")
    assert termgames.rules.game_names() == list(GAMES)
    with pytest.raises(RuleError, match="no game"):
        describe("chess")


#: The shared parts that find every game through its descriptor, naming none (issue 24: one game, one place).
GAME_FREE = ("termgames/cli.py", "termgames/app.py", "termgames/app.tcss", "bench/ladder.py")


def game_mentions(path: Path) -> list[str]:
    """Where ``path`` names a game in its code: an import of a game's module, a name made of a game's, a comparison
    with a game's name, a style selector.  Words in help texts and comments are not code."""
    names = set(GAMES)
    if path.suffix == ".tcss":
        code = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
        return [word for word in re.findall(r"[A-Za-z_]+", code) if word.lower() in names or word.lower().removesuffix(
            "board").removesuffix("screen") in names]
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        words: list[str] = []
        if isinstance(node, ast.ImportFrom):
            words = [node.module or "", *(alias.name for alias in node.names)]
        elif isinstance(node, ast.Import):
            words = [alias.name for alias in node.names]
        elif isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            words = [node.name]
        elif isinstance(node, ast.Compare):
            words = [side.value for side in (node.left, *node.comparators)
                     if isinstance(side, ast.Constant) and isinstance(side.value, str) and side.value in names]
        found += [word for word in words if names & set(re.split(r"[._]", word.lower()))]
    return found


@pytest.mark.parametrize("path", GAME_FREE)
def test_the_shared_parts_name_no_game(path):
    assert game_mentions(Path(__file__).resolve().parent.parent / path) == []


@pytest.mark.parametrize(("game", "command"), [("monad", "monad"), ("monunrail", "solve")])
def test_a_games_own_commands_are_declared_by_the_game(game, command):
    """``termgames monad ...`` and ``termgames solve`` come from their games' descriptors, not from cli.py."""
    import typer

    from termgames.cli import app
    from termgames.games import load

    def names(typer_app: typer.Typer) -> list[str | None]:
        return [c.name or (c.callback and c.callback.__name__) for c in typer_app.registered_commands] + [
            g.name for g in typer_app.registered_groups
        ]

    alone = typer.Typer()
    load(GAMES[game].commands)(alone)
    assert names(alone) == [command]
    assert names(app).count(command) == 1


def test_rules_and_bots_import_no_front_end():
    """What docs/architecture.md says each part may import: rules and bots are pure Python."""
    import subprocess
    import sys

    modules = sorted(
        {target.partition(":")[0] for d in GAMES.values() for target in (d.rules, d.bot) if target is not None}
    )
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n    importlib.import_module(name)\n"
        "front = ('textual', 'rich', 'typer', 'asyncssh', 'termgames.screens', 'termgames.widgets',"
        " 'termgames.server')\n"
        "bad = sorted(m for m in sys.modules if m.startswith(front))\n"
        "assert not bad, bad\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# --------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------


def option_sets(game: Game) -> list[dict[str, Any]]:
    """Checked option sets: defaults, each preset and compound flag, each spec at its edges, random mixes."""
    raw: list[dict[str, Any]] = [{}]
    raw += [dict(preset.values) for preset in game.presets]
    raw += [game.parse_cli_options([compound.flag, compound.example]) for compound in game.compound_flags]
    for spec in game.option_specs:
        raw += [{spec.name: value} for value in spec.kind.edges(spec)]
    rng = random.Random(7)
    for _ in range(30):
        raw.append({spec.name: spec.kind.random_value(spec, rng) for spec in game.option_specs})
    checked = []
    for options in raw:
        try:
            checked.append(game.check_options(options))
        except RuleError:
            continue  # a combination that makes no game (an even board, ...)
    return checked


@games
def test_options_round_trip_through_cli_flags_form_and_records(name):
    game = get_game(name)
    sets = option_sets(game)
    assert sets[0] == game.default_options() and game.option_flags(sets[0]) == []
    for options in sets:
        flags = game.option_flags(options)
        assert game.parse_cli_options(flags) == options, flags
        assert game.take_cli_options([*flags, "someone"]) == (options, ["someone"])
        form = {spec.name: spec.form_value(options[spec.name]) for spec in game.option_specs}
        assert game.options_from_form(form) == options
        assert isinstance(game.describe_options(options), str)
        for count in range(game.min_seats, game.max_seats + 1):
            try:
                match = Match(game, options, seats_for(game, count), 11)
            except RuleError:
                continue  # options for other seat counts (Mono's --take-min needs three players)
            assert records.loads(records.dumps(match)).options == options
            break
        else:
            pytest.fail(f"{options} make no game for any seat count")


@games
def test_the_help_lists_every_flag_and_unknown_ones_are_named(name):
    game = get_game(name)
    listed = {usage.partition(" ")[0] for usage in game.cli_flags()}
    declared = {spec.flag for spec in game.option_specs} | {preset.flag for preset in game.presets}
    assert listed == declared | {compound.flag for compound in game.compound_flags}
    with pytest.raises(RuleError, match=f"{name} has no option '--no-such-flag'"):
        game.parse_cli_options(["--no-such-flag"])


@games
async def test_setup_form_shows_and_reads_back_the_options(name, tmp_path):
    from textual.app import App

    from termgames.screens.start import SetupScreen

    descriptor = GAMES[name]
    if not descriptor.playable:
        pytest.skip(f"{name} has no screen")
    game = get_game(name)
    wanted = option_sets(game)[-1]  # a random mix
    assert wanted != game.default_options()

    class FormApp(App[None]):
        def on_mount(self) -> None:
            self.saves_dir = tmp_path
            self.push_screen(SetupScreen(name, wanted))

    app = FormApp()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        assert screen.read_options() == wanted


# --------------------------------------------------------------------------
# Random games: records, views, drawing
# --------------------------------------------------------------------------


def game_cases() -> list[tuple[str, int, int]]:
    cases = []
    for name, descriptor in CONTRACT_GAMES.items():
        for seed in (1, 2):
            cases.append((name, seed, descriptor.min_seats))
        if descriptor.max_seats > descriptor.min_seats:
            cases.append((name, 3, descriptor.max_seats))
    return cases


@pytest.mark.parametrize(("name", "seed", "count"), game_cases())
def test_a_random_game_replays_from_its_record_to_the_same_views(name, seed, count):
    match = random_game(name, seed, count)
    assert match.moves, "a random game made no move"
    again = records.loads(records.dumps(match))
    assert [m.move for m in again.moves] == [m.move for m in match.moves]
    last = len(match.moves)
    for ply in sorted({*range(0, last + 1, max(1, last // 24)), last}):  # two dozen positions along the game
        for viewer in viewers(match):
            assert again.view(viewer, ply) == match.view(viewer, ply), (ply, viewer)
    if match.over:
        assert again.view(ALL) == match.view(ALL)
        assert again.result() == match.result()


@pytest.mark.parametrize(("name", "seed", "count"), game_cases())
def test_every_view_draws_as_text_and_json(name, seed, count):
    match = random_game(name, seed, count)
    plies = sorted({0, 1, len(match.moves) // 2, len(match.moves) - 1, len(match.moves)})
    for ply in plies:
        for viewer in viewers(match) + ([ALL] if match.over else []):
            view = match.view(viewer, ply)
            text = view.board_text()
            plain = view.board_text(ascii=True)
            assert text.strip() and plain.strip()
            assert plain.isascii(), (ply, viewer, [c for c in plain if not c.isascii()])
            json.dumps(view.board_json())
            assert view.status and "\n" not in view.status
            for seat, move in view.moves:
                assert isinstance(view.log_text(move, None), str) and 0 <= seat < len(match.seats)
    for viewer in viewers(match):
        json.dumps(view_json(match, viewer))
        assert view_text(match, viewer, ascii=True).isascii()


#: Digits of other scripts that ``int()`` and ``str.isdigit()`` read as numbers: Arabic-Indic and fullwidth.
OTHER_DIGITS = [str.maketrans("0123456789", "".join(chr(zero + n) for n in range(10))) for zero in (0x0660, 0xFF10)]


@games
def test_moves_take_ascii_digits_only(name):
    """A move written with another script's digits is refused with a RuleError (int() would read them: a house
    rule of docs/architecture.md's checklist)."""
    match = random_game(name, 1, max_plies=60)
    checked = 0
    for ply, record in enumerate(match.moves):
        if not any(char.isdigit() for char in record.move):
            continue
        state = match.states[ply]
        for digits in OTHER_DIGITS:
            with pytest.raises(RuleError):
                state.apply(record.seat, record.move.translate(digits))
        checked += 1
    if not checked:
        pytest.skip(f"{name}'s random game wrote no move with a digit")


# --------------------------------------------------------------------------
# Hidden information
# --------------------------------------------------------------------------


def hidden_moves(match: Match) -> list[tuple[int, int, int]]:
    """(ply, seat, viewer) for each move whose log entry the viewer sees redacted just after it."""
    found = []
    for ply, record in enumerate(match.moves):
        for viewer in range(len(match.seats)):
            if viewer != record.seat and match.view(viewer, ply + 1).moves[ply][1] != record.move:
                found.append((ply, record.seat, viewer))
    return found


@pytest.mark.parametrize(("name", "seed", "count"), game_cases())
def test_no_view_shows_what_another_seat_hid(name, seed, count):
    descriptor = GAMES[name]
    match = random_game(name, seed, count, max_plies=120)  # the hiding shows from the first turns on
    hidden = hidden_moves(match)
    if not descriptor.hidden_information:
        assert not hidden, f"{name} hides moves: set hidden_information=True in its descriptor"
        return
    assert hidden, f"{name} declares hidden information but a random game hid nothing"
    checked = 0
    varied = sorted({(ply, seat) for ply, seat, _viewer in hidden})
    for ply, seat in varied[:: max(1, len(varied) // 12)]:  # a dozen of them, spread over the game
        # The same game but for what ``seat`` hid at ``ply``: every other viewer must see no difference.
        before = prefix(match, ply)
        other = None
        for attempt in range(20):
            move = random_mover(descriptor, seed=1000 * (ply + 1) + attempt)(before, seat)
            candidate = before.state.normalise_move(seat, move)
            if candidate != match.moves[ply].move:
                other = candidate
                break
        if other is None:
            continue
        before.play(seat, other)
        for viewer in [*range(len(match.seats)), None]:
            if viewer == seat:
                continue
            assert before.view(viewer) == match.view(viewer, ply + 1), (ply, seat, viewer)
            assert before.view(viewer).board_text() == match.view(viewer, ply + 1).board_text()
        checked += 1
    assert checked, "no hidden move could be varied"


# --------------------------------------------------------------------------
# The descriptor itself
# --------------------------------------------------------------------------


def test_levels_named_after_bots_are_labelled_as_bots():
    plain = GameDescriptor("x", "X", "An x.", "m:X", bot="m:b", ai_levels=("easy", "hard"), default_level="easy")
    named = GameDescriptor(
        "y", "Y", "A y.", "m:Y", bot="m:b", ai_levels=("random", "greedy"), default_level="greedy", levels_are_bots=True
    )
    assert plain.level_label("easy") == "AI (easy)"
    assert named.level_label("greedy") == "greedy bot"
    assert named.check_level(None) == "greedy" and named.check_level(" Random ") == "random"
    with pytest.raises(RuleError, match="Y's AI levels are random, greedy, not 'swarm'"):
        named.check_level("swarm")
    with pytest.raises(RuleError, match="has no AI"):
        GameDescriptor("z", "Z", "A z.", "m:Z").check_level("easy")
    with pytest.raises(ValueError, match="default level"):
        GameDescriptor("w", "W", "A w.", "m:W", bot="m:b", ai_levels=("a",), default_level="b")
