"""The game screen, driven by the keyboard: cursor, claims, obligations, undo, saves, AI, dialogs."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from termgames.app import TermgamesApp
from termgames.launch import Launch
from termgames.match import Match, SeatInfo
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
    monkeypatch.setattr("termgames.screens.game.make_bot", lambda game, level, seed=None: FirstEmptyBot())
    monkeypatch.setattr("termgames.screens.game.AI_MIN_SECONDS", 0.0)


def new_app(tmp_path: Path, seats=("ann", "bob"), options=None, seed=3) -> tuple[TermgamesApp, Match, Path]:
    infos = [SeatInfo(name, "ai", "normal") if name.endswith("bot") else SeatInfo(name) for name in seats]
    match = Match("copolymer", options or {"size": 5}, infos, seed)
    path = tmp_path / "game.json"
    return TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=path)), match, path


def board_text(app) -> str:
    return "\n".join(app.screen.board.text_lines())


async def settle(pilot, rounds: int = 20):
    for _ in range(rounds):
        await pilot.pause(0.02)


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
        assert "must claim again" in str(screen.query_one("#status").render())
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
    app, match, path = new_app(tmp_path)
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


async def test_ai_against_ai_plays_to_the_end(tmp_path):
    app, match, path = new_app(tmp_path, seats=("abot", "bbot"), options={"size": 3})
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            if match.over:
                break
        assert match.over
        assert "Game over" in str(app.screen.query_one("#status").render())
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


async def test_quit_asks_first(tmp_path):
    app, _, path = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
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
    app, match, path = new_app(tmp_path)
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
    app, match, path = new_app(tmp_path)
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
        await pilot.press("space")  # the act key does nothing while hidden
        assert len(match.moves) == 1
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen and screen.view.viewer == 1
        assert screen.board.text_lines()
