"""From one game to the next: the game-over panel, rematch, new game, the record's path, the computer's pace."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from games import PerGame
from textual.widgets import Static
from typer.testing import CliRunner

from termgames.app import TermgamesApp
from termgames.games import GAMES
from termgames.launch import Launch, PlayedRecord, exit_lines
from termgames.match import AI, Match, Seat
from termgames.preferences import Preferences, load_preferences, save_preferences
from termgames.records import load, save
from termgames.rules.base import State
from termgames.screens.game import GameScreen
from termgames.screens.keys import key_rows
from termgames.screens.start import SetupScreen, StartScreen
from termgames.table import LocalTable
from termgames.widgets.footer import Footer

#: Options that make each game short enough to play out at random in a test (tests/games/NAME.py's PLAY_OUT).
SMALL = PerGame("PLAY_OUT")


class IllegalBot:
    """A computer player that answers at once with a move no game takes: the seat then waits, nothing more."""

    level = "normal"

    def choose(self, view, deadline=None):
        return "not-a-move"


class FirstEmptyBot:
    """A Copolymer computer player that answers at once."""

    level = "normal"

    def choose(self, view, deadline=None):
        return view.board.names[min(view.legal_cells())]


def play_out(match: Match, seed: int = 1, leave: int = 0) -> Match:
    """Random moves (``pass`` where the rules draw none) until the game is over, or ``leave`` moves before."""
    rng = random.Random(seed)
    while not match.over:
        before = [(m.seat, m.move) for m in match.moves]
        seat = match.state.to_move()[0]
        draws = type(match.state).random_move is not State.random_move
        match.play(seat, match.state.random_move(seat, rng) if draws else "pass")
        assert [(m.seat, m.move) for m in match.moves][:-1] == before
    if leave:
        played = [(m.seat, m.move) for m in match.moves]
        match = Match(match.game, match.options, match.seats, match.seed)
        for seat, move in played[:-leave]:
            match.play(seat, move)
    return match


def finished_save(tmp_path: Path, game: str, seats: list[Seat]) -> tuple[Match, Path]:
    match = play_out(Match(game, SMALL[game], seats, 7))
    path = tmp_path / f"{game}-finished.json"
    save(path, match)
    return match, path


def footer_text(app) -> str:
    lines = [strip.text for strip in app.screen._compositor.render_strips()]
    return lines[app.screen.query_one(Footer).region.y]


def panel_text(app) -> str:
    panels = list(app.screen.query("#game-over").results(Static))
    return str(panels[0].render()) if panels else ""


async def wait_for(pilot, condition, rounds: int = 100) -> bool:
    for _ in range(rounds):
        if condition():
            return True
        await pilot.pause(0.02)
    return condition()


@pytest.fixture
def illegal_bots(monkeypatch):
    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: IllegalBot())


# -- rematch, for every game ----------------------------------------------------------------------------------


@pytest.mark.parametrize("game", [name for name, entry in GAMES.items() if entry.playable])
async def test_a_finished_game_offers_a_rematch_with_seats_swapped_where_moving_first_helps(
    tmp_path, game, illegal_bots
):
    descriptor = GAMES[game]
    level = descriptor.ai_levels[0]
    match, path = finished_save(tmp_path, game, [Seat("ann"), Seat("cpu", AI, level)])
    on_disk = path.read_bytes()
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, GameScreen) and app.screen.view.over
        assert f"Saved: {path}" in panel_text(app)  # the record's real path, whole
        assert "Rematch" in footer_text(app) and "New game" in footer_text(app)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, GameScreen) and app.screen.table.match is not match)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        again = screen.table.match
        expected = ["cpu", "ann"] if descriptor.first_player_edge else ["ann", "cpu"]
        assert list(again.names) == expected
        assert again.seats[expected.index("cpu")] == Seat("cpu", AI, level)  # the computer keeps its level
        assert again.options == match.options and again.seed != match.seed
        assert not again.over and all(again.seats[m.seat].is_ai for m in again.moves)  # Monad's fault move, maybe
        assert screen.table.save_path is not None and screen.table.save_path != path
        assert screen.table.save_path.parent == tmp_path
        assert not screen.view.over and panel_text(app) == ""
        assert "Rematch" not in footer_text(app)
        assert len(app.screen_stack) == 2  # the rematch took the finished game's place
    assert path.read_bytes() == on_disk


async def test_undo_after_the_end_takes_the_panel_away_and_the_last_move_brings_it_back(tmp_path):
    match = play_out(Match("copolymer", SMALL["copolymer"], [Seat("ann"), Seat("bob")], 7), leave=1)
    path = tmp_path / "game.json"
    save(path, match)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert panel_text(app) == "" and "Rematch" not in footer_text(app)
        last = play_out(Match("copolymer", SMALL["copolymer"], match.seats, 7)).moves[-1]
        screen.submit(last.move)
        await pilot.pause()
        assert screen.view.over and f"Saved: {path}" in panel_text(app)
        assert "Rematch" in footer_text(app)
        await pilot.press("u")
        await pilot.pause()
        assert not screen.view.over and panel_text(app) == "" and "Rematch" not in footer_text(app)
        await pilot.press("ctrl+n")  # hidden: does nothing now
        await pilot.pause()
        assert app.screen is screen
        screen.submit(last.move)
        await pilot.pause()
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)


async def test_the_panel_shows_where_the_record_really_is_after_it_moved(tmp_path):
    """A record changed on disk meanwhile: the game goes on in a new file, and the panel names that one."""
    match = play_out(Match("copolymer", SMALL["copolymer"], [Seat("ann"), Seat("bob")], 7), leave=2)
    path = tmp_path / "game.json"
    save(path, match)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=path))
    moves = [m.move for m in play_out(Match("copolymer", SMALL["copolymer"], match.seats, 7)).moves[-2:]]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        path.write_text(path.read_text().replace('"seed"', '"seed" ', 1))  # someone else wrote it
        for move in moves:
            screen.submit(move)
            await pilot.pause()
        assert screen.view.over
        moved = screen.table.save_path
        assert moved != path and load(moved).over
        assert f"Saved: {moved}" in panel_text(app)
        assert app.played_records() == [PlayedRecord(moved, True, "Copolymer")]


# -- new game -------------------------------------------------------------------------------------------------


async def test_new_game_opens_the_setup_filled_in_over_the_start_screen(tmp_path, illegal_bots):
    match, path = finished_save(tmp_path, "mono", [Seat("ann"), Seat("cpu", AI, "easy"), Seat("bea")])
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("start"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.open_game(match, path)  # as the start screen resumes a saved game
        await pilot.pause()
        await pilot.press("ctrl+n")
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, SetupScreen) and setup.game.name == "mono"
        assert isinstance(app.screen_stack[-2], StartScreen) and len(app.screen_stack) == 3
        assert setup.read_options() == match.options
        assert setup.read_seats() == list(match.seats)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)


async def test_new_game_from_a_game_started_on_the_command_line(tmp_path, illegal_bots):
    match, path = finished_save(tmp_path, "copolymer", [Seat("ann"), Seat("cpu", AI, "hard")])
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+n")
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        assert setup.read_options() == match.options and setup.read_seats() == list(match.seats)
        await pilot.press("ctrl+s")  # starts it as it is filled in
        await pilot.pause()
        assert isinstance(app.screen, GameScreen) and app.screen.table.match.seats == match.seats


# -- what is told at exit -------------------------------------------------------------------------------------


def test_exit_lines_name_each_record_and_how_to_go_on():
    lines = exit_lines([PlayedRecord(Path("/s/a b.json"), False, "Mono"), PlayedRecord(Path("/s/c.json"), True)])
    assert lines == [
        "Mono saved in /s/a b.json",
        "  resume it: termgames play --load '/s/a b.json'",
        "Game saved in /s/c.json",
        "  replay it: termgames replay /s/c.json",
    ]
    assert exit_lines([]) == []


async def test_played_records_list_games_with_a_record_and_leave_out_those_without_a_move(tmp_path, illegal_bots):
    match, path = finished_save(tmp_path, "copolymer", [Seat("ann"), Seat("cpu", AI, "easy")])
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+r")  # the rematch has no move yet: no record
        await pilot.pause()
        assert app.played_records() == [PlayedRecord(path, True, "Copolymer")]
        rematch = app.screen.table
        rematch.play(0, play_out(Match("copolymer", SMALL["copolymer"], rematch.seats, rematch.match.seed))
                     .moves[0].move)
        assert app.played_records() == [
            PlayedRecord(path, True, "Copolymer"),
            PlayedRecord(rematch.save_path, False, "Copolymer"),
        ]


def test_the_cli_prints_the_records_once_the_app_has_closed(tmp_path, monkeypatch):
    from termgames.cli import app as cli

    seen = {}

    def run(self):
        """Stands in for the app's run: a game with one move, and one never played."""
        seen["pace"] = self.pace
        match = self.launch.match
        played = LocalTable(match, self.launch.save_path)
        played.play(0, "B2")
        self.local_tables += [played, LocalTable(Match("copolymer", {"size": 3}, match.seats, 5), tmp_path / "x.json")]

    monkeypatch.setattr(TermgamesApp, "run", run)
    result = CliRunner().invoke(
        cli, ["play", "copolymer", "--size", "3", "-p", "ann", "-p", "bob", "--saves", str(tmp_path), "--pace", "slow"]
    )
    assert result.exit_code == 0, result.output
    (path,) = tmp_path.glob("copolymer-*.json")
    assert result.output.splitlines() == [f"Copolymer saved in {path}", f"  resume it: termgames play --load {path}"]
    assert seen["pace"] == "slow"
    result = CliRunner().invoke(cli, ["play", "copolymer", "--pace", "fast"])
    assert result.exit_code == 2
    assert "--pace: the pace must be instant, normal or slow, not 'fast'" in result.output


# -- the computer players' pace -------------------------------------------------------------------------------


@pytest.fixture
def quick_copolymer_bot(monkeypatch):
    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: FirstEmptyBot())


def copolymer_against_the_computer(tmp_path: Path, **app_options) -> tuple[TermgamesApp, Match]:
    match = Match("copolymer", {"size": 5}, [Seat("ann"), Seat("cpu", AI, "easy")], 3)
    launch = Launch("play", match=match, save_path=tmp_path / "game.json")
    return TermgamesApp(saves_dir=tmp_path, launch=launch, **app_options), match


async def test_instant_pace_makes_the_computer_move_without_delay(tmp_path, monkeypatch, quick_copolymer_bot):
    monkeypatch.setattr("termgames.rules.copolymer.Copolymer.ai_move_seconds", 30.0)  # normal would wait 30 s
    app, match = copolymer_against_the_computer(tmp_path, pace="instant")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: len(match.moves) == 2, rounds=25)  # well within half a second


async def test_the_pace_key_cycles_saves_and_hurries_a_move_waiting_out_its_pace(
    tmp_path, monkeypatch, quick_copolymer_bot
):
    monkeypatch.setattr("termgames.rules.copolymer.Copolymer.ai_move_seconds", 30.0)
    prefs = tmp_path / "config" / "preferences.json"
    app, match = copolymer_against_the_computer(tmp_path, preferences_path=prefs)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.pace == "normal"
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert len(match.moves) == 1 and app.screen.table.thinking  # answered, waiting out the normal pace
        await pilot.press("p")
        assert app.pace == "slow" and app.screen.table.pace == "slow"
        assert json.loads(prefs.read_text())["pace"] == "slow"
        await pilot.press("p")  # instant: the answer waiting is played now
        assert await wait_for(pilot, lambda: len(match.moves) == 2, rounds=25)
        assert load_preferences(prefs) == (Preferences(pace="instant"), "")
    again = TermgamesApp(saves_dir=tmp_path, preferences_path=prefs)
    assert again.pace == "instant"  # reloaded next time
    assert TermgamesApp(saves_dir=tmp_path, preferences_path=prefs, pace="slow").pace == "slow"  # --pace wins


async def test_the_start_screen_sets_the_pace_and_the_help_names_the_key(tmp_path):
    prefs = tmp_path / "preferences.json"
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("start"), preferences_path=prefs)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "pace (normal)" in str(app.screen.query_one("#start-hint", Static).render())
        await pilot.press("p")
        assert "pace (slow)" in str(app.screen.query_one("#start-hint", Static).render())
    assert load_preferences(prefs)[0].pace == "slow"


def test_every_game_screen_has_the_pace_rematch_and_new_game_keys():
    """A game's own binding of one of these keys would hide the common one: none may take them."""
    for name, entry in GAMES.items():
        if not entry.playable:
            continue
        rows = {row.text: row.keys for row in key_rows(entry.screen_class())}
        assert any(keys == ["p"] and "pace" in text for text, keys in rows.items()), name
        assert any(keys == ["ctrl+r"] and "rematch" in text for text, keys in rows.items()), name
        assert any(keys == ["ctrl+n"] and "new game" in text for text, keys in rows.items()), name


# -- the preferences file -------------------------------------------------------------------------------------


async def test_a_corrupt_preferences_file_warns_once_and_gives_the_defaults(tmp_path):
    prefs = tmp_path / "preferences.json"
    prefs.write_text("{not json")
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("start"), preferences_path=prefs)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.pace == "normal"
        warnings = [n.message for n in app._notifications if n.severity == "warning"]
        assert warnings == [f"Preferences in {prefs} ignored (not JSON): using the defaults"]
        await pilot.press("p")  # a new choice replaces the bad file
    assert load_preferences(prefs) == (Preferences(pace="slow"), "")


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"[1, 2]", "not a JSON object"),
        (b'{"pace": "warp"}', "pace 'warp' is not one of instant, normal, slow"),
        (b'{"pace": 3}', "pace '3' is not one of instant, normal, slow"),
        (b'{"version": 9, "pace": "slow"}', "version 9, not 1"),
        (b"\xff\xfe", "not JSON"),
        (b" " * 70_000, "larger than 64 kB"),
    ],
)
def test_preferences_are_checked_when_read(tmp_path, content, reason):
    path = tmp_path / "p.json"
    path.write_bytes(content)
    preferences, warning = load_preferences(path)
    assert preferences == Preferences()
    assert warning == f"Preferences in {path} ignored ({reason}): using the defaults"


def test_preferences_round_trip_and_a_missing_file_is_no_warning(tmp_path):
    path = tmp_path / "deep" / "p.json"
    assert load_preferences(path) == (Preferences(), "")
    save_preferences(path, Preferences(pace="instant"))
    assert load_preferences(path) == (Preferences(pace="instant"), "")
    assert [p.name for p in path.parent.iterdir()] == ["p.json"]  # written whole: no temporary file left


def test_the_panel_writes_the_home_folder_as_a_shell_does(monkeypatch, tmp_path):
    from termgames.screens.game import home_short

    monkeypatch.setenv("HOME", str(tmp_path))
    assert home_short(tmp_path / "saves" / "a.json") == "~/saves/a.json"
    assert home_short(Path("/elsewhere/a.json")) == "/elsewhere/a.json"


async def test_monads_footer_at_the_end_has_the_next_game_and_no_turn_keys(tmp_path, illegal_bots):
    match, path = finished_save(tmp_path, "monad", [Seat("ann"), Seat("cpu", AI, "random")])
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        footer = footer_text(app)
        assert "Rematch" in footer and "New game" in footer and "Quit" in footer
        assert "Mine" not in footer and "Build" not in footer and "Move" not in footer


# -- back to the start screen ---------------------------------------------------------------------------------


async def test_a_game_opened_from_the_start_screen_goes_back_to_it(tmp_path, illegal_bots):
    """q or Esc in a game opened from the start screen (through its setup) goes back there, asking first while the
    game goes on; the game just played is in its list. Before, q asked "Quit termgames?" and Esc did nothing (issue
    25, 6)."""
    from termgames.screens.dialogs import ConfirmScreen

    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("start"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # Copolymer's setup
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        await pilot.press("ctrl+s")
        await pilot.pause()
        game = app.screen
        assert isinstance(game, GameScreen)
        assert "q Back" in footer_text(app) and "Quit" not in footer_text(app)
        await pilot.press("enter")  # a move: the game is saved
        await wait_for(pilot, lambda: game.table.save_path is not None and game.table.save_path.exists())
        for key in ("escape", "q"):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen) and "start screen" in str(app.screen.question)
            await pilot.press("n")
            await pilot.pause()
            assert app.screen is game
        await pilot.press("escape", "y")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen) and len(app.screen_stack) == 2  # the setup went too
        assert app.return_value is None and app.is_running
        await wait_for(pilot, lambda: any(saved.path == game.table.save_path for saved in app.screen.saved))


async def test_a_finished_game_from_the_start_screen_goes_back_at_once_and_says_so(tmp_path):
    match, path = finished_save(tmp_path, "copolymer", [Seat("ann"), Seat("bob")])
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("start"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.open_game(match, path)  # as the start screen resumes a saved game
        await pilot.pause()
        assert "q: start screen" in panel_text(app)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)


async def test_esc_asks_to_quit_a_game_opened_from_the_command_line_and_clears_a_move_first(tmp_path):
    from termgames.screens.dialogs import ConfirmScreen

    match = Match("monunrail", {}, [Seat("ann"), Seat("bob")], 5)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=tmp_path / "g.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert "q Quit" in footer_text(app)
        await pilot.press("space")  # a tile into the move being assembled
        await pilot.pause()
        assert screen.rail_board.pending
        await pilot.press("escape")  # clears it, and no more
        await pilot.pause()
        assert app.screen is screen and not screen.rail_board.pending
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and app.screen.question == "Quit termgames?"


@pytest.mark.parametrize("width", [50, 60, 80])
async def test_the_end_lines_keep_each_key_whole(tmp_path, width):
    """At 50 columns the end line wrapped inside a key ("Ctrl+N: new" / "game"): each stays whole on its line."""
    match, path = finished_save(tmp_path, "copolymer", [Seat("ann"), Seat("bob")])
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=path))
    async with app.run_test(size=(width, 20)) as pilot:
        await pilot.pause()
        panel = app.screen.query_one("#game-over")
        lines = [strip.text for strip in app.screen._compositor.render_strips()][panel.region.y : panel.region.bottom]
        shown = "\n".join(line.strip() for line in lines)
        for key in ("Ctrl+R: rematch, seats swapped", "Ctrl+N: new game", "q: quit"):
            assert any(key in line for line in lines), shown
