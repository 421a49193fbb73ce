"""The game screen, driven by the keyboard: cursor, claims, obligations, undo, saves, AI, dialogs."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from bots import GatedBot
from tui import board_text, panel_text, settle

from termgames.app import TermgamesApp
from termgames.launch import Launch
from termgames.match import Match, Seat
from termgames.records import load
from termgames.screens.dialogs import ConfirmScreen, HelpScreen, PrivacyScreen
from termgames.screens.game import GameScreen


class FirstEmptyBot:
    """A stand-in bot: instant, and it records which thread it ran on."""

    level = "normal"
    threads: list[str] = []

    def choose(self, view):
        FirstEmptyBot.threads.append(threading.current_thread().name)
        return view.board.names[min(view.legal_cells())]


@pytest.fixture(autouse=True)
def quick_bots(monkeypatch):
    FirstEmptyBot.threads = []
    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: FirstEmptyBot())
    monkeypatch.setattr("termgames.rules.copolymer.Copolymer.ai_move_seconds", 0.0)


def new_app(tmp_path: Path, seats=("ann", "bob"), options=None, seed=3) -> tuple[TermgamesApp, Match, Path]:
    infos = [Seat(name, "ai", "normal") if name.endswith("bot") else Seat(name) for name in seats]
    match = Match("copolymer", options or {"size": 5}, infos, seed)
    path = tmp_path / "game.json"
    return TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=path)), match, path


async def test_cursor_keys_and_claims_by_enter_and_space(tmp_path):
    app, match, _ = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.board.cursor_name() == "C3"  # the centre of the 5-row board
        await pilot.press("right", "l")
        assert screen.board.cursor_name() == "C5"
        await pilot.press("h", "left", "up")
        assert screen.board.cursor_name() in ("B2", "B3")
        await pilot.press("down", "j")
        assert screen.board.cursor_name()[0] == "D"
        await pilot.press("k", "w")  # back to row C, then up-left
        start = screen.board.cursor_name()
        await pilot.press("x")  # down-right undoes up-left
        await pilot.press("w")
        assert screen.board.cursor_name() == start
        # Claim C3 with Enter, then bob claims C4 with Space.
        for _ in range(5):
            await pilot.press("x")
        while screen.board.cursor_name() != "C3":
            await pilot.press("h" if screen.board.cursor_name() > "C3" else "l")
            if screen.board.cursor_name()[0] != "C":
                await pilot.press("k" if screen.board.cursor_name()[0] > "C" else "j")
        await pilot.press("enter")
        await pilot.press("l", "space")
        await pilot.pause()
    assert [m.move for m in match.moves] == ["C3", "C4"]
    assert [m.seat for m in match.moves] == [0, 1]


async def test_illegal_claim_shows_the_rules_message_and_changes_nothing(tmp_path):
    app, match, path = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # ann takes C3
        saved = path.read_bytes()
        await pilot.press("enter")  # bob tries C3 too
        await pilot.pause()
        message = str(app.screen.query_one("#message").render())
        assert "C3 is already taken by ann" in message
    assert len(match.moves) == 1
    assert path.read_bytes() == saved


async def test_a_claim_touching_two_enemies_keeps_the_turn(tmp_path):
    app, match, _ = new_app(tmp_path)
    for seat, cell in [(0, "C2"), (1, "C3"), (0, "C4"), (1, "A1")]:
        match.play(seat, cell)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        index = match.state.board.index
        screen.board.cursor = index["D3"]  # touches C3 only of bob's: the turn passes
        await pilot.press("enter")
        assert screen.view.to_move == (1,) and not screen.view.must_continue
        screen.board.cursor = index["D2"]  # touches C2 and D3, both ann's: bob claims again
        await pilot.press("enter")
        await pilot.pause()
        assert screen.view.to_move == (1,)
        assert screen.view.must_continue
        assert "must claim again" in panel_text(screen, "status")
    assert [m.move for m in match.moves][-2:] == ["D3", "D2"]


async def test_undo_in_hot_seat_and_against_the_ai(tmp_path):
    app, match, path = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "l", "enter")
        assert len(match.moves) == 2
        await pilot.press("u")
        await pilot.pause()
        assert len(match.moves) == 1
        assert len(load(path).moves) == 1  # the undo is saved too

    app, match, path = new_app(tmp_path, seats=("ann", "bot"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await settle(pilot)
        assert [m.seat for m in match.moves] == [0, 1]  # the AI answered on its own
        await pilot.press("u")
        await settle(pilot)
        assert match.moves == []  # ann's claim and the AI's reply are both undone
        assert app.screen.view.to_move == (0,)
    assert FirstEmptyBot.threads and all(name != "MainThread" for name in FirstEmptyBot.threads)


async def test_saved_after_every_move_and_resumed(tmp_path):
    app, _match, path = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        assert [m.move for m in load(path).moves] == ["C3"]
        await pilot.press("l", "enter")
        assert [m.move for m in load(path).moves] == ["C3", "C4"]
        before = app.screen.view.owners
    resumed = load(path)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=resumed, save_path=path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.view.owners == before
        assert "●" in board_text(app) and "○" in board_text(app)
        assert app.screen.view.to_move == (0,)


async def test_ai_against_ai_plays_to_the_end(tmp_path, monkeypatch):
    # No pacing, and a bound in time far above what the game needs: on a loaded machine each AI
    # decision may take a second, and a count of short pauses ran out before the game did.
    monkeypatch.setattr("termgames.rules.copolymer.Copolymer.ai_move_seconds", 0.0)
    app, match, path = new_app(tmp_path, seats=("abot", "bbot"), options={"size": 3})
    async with app.run_test(size=(80, 24)) as pilot:
        deadline = time.monotonic() + 120
        while not match.over and time.monotonic() < deadline:
            await pilot.pause(0.05)
        assert match.over
        await pilot.pause()  # the table's news of the last move reaches the screen as a message
        assert "Game over" in panel_text(app.screen, "status")
    assert load(path).over


async def test_help_opens_and_closes(tmp_path):
    app, _, _ = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "Copolymer" in app.screen.text and "undo" in app.screen.text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)


async def test_a_game_joins_the_saves_only_with_its_first_move(tmp_path):
    app, _, path = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not path.exists()  # started, nothing played: no empty record in the saves list
        await pilot.press("q")
        await pilot.pause()
        assert "Nothing has been played yet" in app.screen.detail
        await pilot.press("n", "enter")
        await pilot.pause()
        assert [m.move for m in load(path).moves] == ["C3"]
        await pilot.press("u")  # back to no move: the record stays, and says so
        await pilot.pause()
        assert load(path).moves == []
    assert list(tmp_path.glob("*.json")) == [path]


async def test_quit_asks_first(tmp_path):
    app, _, path = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert str(path) in app.screen.detail
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        await pilot.press("q", "y")
        await pilot.pause()
    assert app.return_code == 0 or app.return_code is None
    assert not app.is_running


async def test_palettes_and_ascii_mode(tmp_path):
    app, _match, _path = new_app(tmp_path)
    app.ascii = True
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "l", "enter")
        text = board_text(app)
        assert text.isascii()
        assert "X" in text and "O" in text
        for name in ("colourblind", "mono", "default"):
            await pilot.press("c")
            assert app.screen.board.palette_name == name
            assert board_text(app).isascii()
            board = app.screen.board
            drawn = "\n".join(board.render_line(y).text for y in range(board.size.height))
            assert drawn.isascii() and "[" in drawn and "X" in drawn
    app, _match, _path = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        assert "●" in board_text(app)


async def test_privacy_screen_between_human_seats(tmp_path):
    from termgames.screens.copolymer import CopolymerScreen

    class HiddenCopolymer(CopolymerScreen):
        hides_information = True

    app, match, _ = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.pop_screen()
        from termgames.table import LocalTable

        screen = HiddenCopolymer(LocalTable(match))
        app.push_screen(screen)
        await pilot.pause()
        assert not isinstance(app.screen, PrivacyScreen)  # the first player just starts
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, PrivacyScreen)  # ann sees what her claim did
        assert screen.view.viewer == 0 and screen.board.text_lines()
        await pilot.press("enter")  # ... then hands over
        await pilot.pause()
        assert isinstance(app.screen, PrivacyScreen)
        assert app.screen.player == "bob"
        assert screen.board.text_lines() == []  # nothing of the board shows behind it
        await pilot.press("space")  # Space, pressed a moment too late, neither plays nor passes the screen
        await pilot.pause()
        assert len(match.moves) == 1
        assert isinstance(app.screen, PrivacyScreen) and screen.board.text_lines() == []
        for key in ("q", "escape"):  # ask to quit, the boards still hidden; n goes back to the privacy screen
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen) and screen.board.text_lines() == []
            await pilot.press("n")
            await pilot.pause()
            assert isinstance(app.screen, PrivacyScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen and screen.view.viewer == 1
        assert screen.board.text_lines()


def footer_text(app) -> str:
    from termgames.widgets.footer import Footer

    lines = [strip.text for strip in app.screen._compositor.render_strips()]
    return lines[app.screen.query_one(Footer).region.y]


async def test_footer_lists_only_the_keys_that_do_something_now(tmp_path, monkeypatch):
    import random

    app, match, _ = new_app(tmp_path, options={"size": 3})
    rng = random.Random(1)
    while len(match.state.to_move()) and len(match.moves) < 6:
        seat = match.state.to_move()[0]
        match.play(seat, match.state.random_move(seat, rng))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "Claim" in footer_text(app) and "Undo" in footer_text(app)
        while not match.over:
            seat = app.screen.view.viewer
            app.screen.submit(match.state.random_move(seat, rng))
            await pilot.pause()
        await pilot.pause()
        assert app.screen.view.over
        assert "Claim" not in footer_text(app)  # nothing left to claim
        assert "Undo" in footer_text(app) and "Quit" in footer_text(app)


async def wait_for(pilot, condition, rounds: int = 100):
    for _ in range(rounds):
        if condition():
            return True
        await pilot.pause(0.02)
    return condition()


async def test_undo_while_the_ai_thinks_drops_its_stale_move(tmp_path, monkeypatch):
    bot = GatedBot()
    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: bot)
    app, match, path = new_app(tmp_path, seats=("ann", "bot"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # ann claims C3; the AI starts thinking
        assert await wait_for(pilot, bot.asked.is_set)
        assert "bot is thinking" in panel_text(app.screen, "status")
        await pilot.press("u")  # ann takes her claim back while the AI thinks
        assert match.moves == []
        bot.gate.set()
        await settle(pilot)
        assert match.moves == []  # the AI's answer to the undone position is dropped, silently
        assert "tried" not in str(app.screen.query_one("#message").render())
        assert not app.screen.table.thinking and app.screen.view.to_move == (0,)
        assert load(path).moves == []


async def test_the_spinner_turns_only_while_the_computer_thinks(tmp_path, monkeypatch):
    """An idle screen runs no timer (a server holds hundreds of screens): the spinner's starts and stops with
    the thinking."""
    bot = GatedBot()
    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: bot)
    app, match, _path = new_app(tmp_path, seats=("ann", "bot"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        spinner = app.screen._spinner
        assert not spinner._active.is_set()  # ann's turn: nothing turns
        await pilot.press("enter")  # ann claims; the AI starts thinking
        assert await wait_for(pilot, bot.asked.is_set)
        assert await wait_for(pilot, spinner._active.is_set)
        shown = {panel_text(app.screen, "status")}
        for _ in range(20):
            await pilot.pause(0.05)
            shown.add(panel_text(app.screen, "status"))
        assert len(shown) > 1  # the spinner turned
        bot.gate.set()
        await settle(pilot)
        assert await wait_for(pilot, lambda: not app.screen.table.thinking and len(match.moves) >= 2)
        assert await wait_for(pilot, lambda: not spinner._active.is_set())
        assert "thinking" not in panel_text(app.screen, "status")


async def test_undo_with_nothing_to_undo_lets_the_ai_play_on(tmp_path, monkeypatch):
    bot = GatedBot()
    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: bot)
    app, match, _ = new_app(tmp_path, seats=("abot", "bob"))
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, bot.asked.is_set)  # the AI moves first, on its own
        await pilot.press("u")
        assert "Nothing to undo" in str(app.screen.query_one("#message").render())
        bot.gate.set()
        assert await wait_for(pilot, lambda: len(match.moves) == 1)
        assert match.moves[0].seat == 0
        await pilot.pause()
        assert app.screen.view.viewer == 1 and app.screen.view.to_move == (1,)


async def test_up_and_down_keep_their_column_and_hex_keys_step_to_neighbours(tmp_path):
    app, match, _ = new_app(tmp_path, options={"size": 11})  # the standard board
    async with app.run_test(size=(80, 24)) as pilot:
        board = app.screen.board
        assert board.cursor_name() == "F6"
        await pilot.press("k", "j")
        assert board.cursor_name() == "F6"  # up then down comes back
        await pilot.press("k", "k")
        assert board.cursor_name() == "D5"  # two rows straight up: the same column
        assert match.state.board.column(board.cursor) == match.state.board.column(match.state.board.index["F6"])
        await pilot.press("j", "j", "up", "down")
        assert board.cursor_name() == "F6"
        steps = {"w": "E5", "e": "E6", "z": "G6", "x": "G7", "a": "F5", "d": "F7"}
        for key, cell in steps.items():
            board.cursor = match.state.board.index["F6"]
            await pilot.press(key)
            assert board.cursor_name() == cell, key
        assert "cursor F7: empty" in str(app.screen.query_one("#cursor-line").render())


async def test_board_lines_are_drawn_on_the_theme_background(tmp_path):
    app, _, _ = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        board = app.screen.board
        rendered = [board.render_line(y) for y in range(board.size.height)]
        assert "[·]" in "\n".join(strip.text for strip in rendered)
        for strip in rendered:
            assert all(segment.style and segment.style.bgcolor is not None for segment in strip)


async def test_big_boards_scroll_to_keep_the_cursor_in_sight(tmp_path):
    app, _match, _ = new_app(tmp_path, options={"size": 19})
    async with app.run_test(size=(60, 24)) as pilot:
        await pilot.pause()
        area = app.screen.query_one("#board-area")
        assert app.screen.has_class("narrow")  # the panel is under the board
        for _ in range(9):
            await pilot.press("j")
        await pilot.pause()
        assert app.screen.board.cursor_name().startswith("T")
        assert area.scroll_y > 0
        line = app.screen.board.cursor_region().y
        assert area.scroll_y <= line < area.scroll_y + area.scrollable_content_region.height


async def test_enter_does_not_confirm_quitting(tmp_path):
    _app, _, _ = new_app(tmp_path, seats=("ann", "bob"))
    app_unsaved = TermgamesApp(
        saves_dir=tmp_path,
        launch=Launch("play", match=Match("copolymer", {"size": 3}, [Seat("a"), Seat("b")], 1)),
    )
    async with app_unsaved.run_test(size=(80, 24)) as pilot:
        await pilot.press("q")
        await pilot.pause()
        assert "not saved" in app_unsaved.screen.detail
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app_unsaved.screen, ConfirmScreen) and app_unsaved.is_running
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app_unsaved.screen, GameScreen)


async def test_ascii_help_has_no_markdown_marks_or_unicode(tmp_path):
    app, _, _ = new_app(tmp_path)
    app.ascii = True
    async with app.run_test(size=(80, 24)) as pilot:
        assert str(app.screen.query_one("#game-title").render()).isascii()
        await pilot.press("question_mark")
        await pilot.pause()
        text = str(app.screen.query_one("#help-text").render())
        assert text.isascii() and "**" not in text and "Copolymer\n=========" in text


async def test_privacy_screen_first_when_a_hidden_hot_seat_game_resumes(tmp_path):
    from termgames.screens.copolymer import CopolymerScreen
    from termgames.table import LocalTable

    class HiddenCopolymer(CopolymerScreen):
        hides_information = True

    app, match, _ = new_app(tmp_path)
    match.play(0, "C3")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.pop_screen()
        screen = HiddenCopolymer(LocalTable(match))
        app.push_screen(screen)
        await pilot.pause()
        assert isinstance(app.screen, PrivacyScreen) and app.screen.player == "bob"
        assert screen.board.text_lines() == []
        assert not any("C3" in line for line in screen.query_one("#move-log").text_lines())
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen and screen.view.viewer == 1
        assert "●" in "\n".join(screen.board.text_lines())
        assert any("C3" in line for line in screen.query_one("#move-log").text_lines())


async def test_a_click_moves_the_cursor_and_a_click_on_the_cursor_claims(tmp_path):
    app, match, _ = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        board = screen.board
        target = next(cell for cell, name in enumerate(board.view.board.names) if name != board.cursor_name())
        (line, x), = [place for place, cell in board._cell_at.items() if cell == target]
        offset = (x + board.content_offset.x, line + board.content_offset.y)
        await pilot.click(board, offset=offset)
        await pilot.pause()
        name = board.view.board.names[target]
        assert board.cursor_name() == name and name in str(screen.query_one("#cursor-line").render())
        assert not match.moves
        await pilot.click(board, offset=offset)
        await pilot.pause()
        assert [m.move for m in match.moves][:1] == [name]
