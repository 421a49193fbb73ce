"""ASCII mode (``--ascii``, automatic under ``LANG=C``): nothing on any screen, dialog or notification outside ASCII."""

from __future__ import annotations

import pytest

from termgames.app import TermgamesApp
from termgames.games import GAMES
from termgames.launch import Launch
from termgames.match import Match, Seat

PLAYABLE = [name for name, descriptor in GAMES.items() if descriptor.playable]


def screen_text(app) -> str:
    """Everything the terminal shows now (the top screen over the ones under it, toasts included)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def assert_ascii(app, where: str) -> None:
    text = screen_text(app)
    strange = sorted({char for char in text if not char.isascii()})
    assert not strange, f"{where}: {strange}"


@pytest.mark.parametrize("game", PLAYABLE)
async def test_ascii_game_screen_dialogs_and_notifications(tmp_path, game):
    match = Match(game, {}, [Seat("ann"), Seat("bob")], 3)
    launch = Launch("play", match=match, save_path=tmp_path / "g.json")
    app = TermgamesApp(saves_dir=tmp_path, launch=launch, ascii=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        assert_ascii(app, "game screen")
        app.notify("Colours: default", timeout=5)  # what c says, as a toast
        app.notify("a warning", severity="warning", timeout=5)
        app.notify("an error", severity="error", timeout=5)
        await pilot.pause()
        assert "an error" in screen_text(app)
        assert_ascii(app, "notifications")
        await pilot.press("question_mark")
        await pilot.pause()
        assert_ascii(app, "help")
        await pilot.press("escape")
        await pilot.press("q")
        await pilot.pause()
        assert "Quit" in screen_text(app)
        assert_ascii(app, "quit dialog")


@pytest.mark.parametrize("index", range(len(PLAYABLE)))
async def test_ascii_start_and_setup_screens(tmp_path, index):
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("start"), ascii=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        assert_ascii(app, "start screen")
        await pilot.press(*["down"] * index, "enter")
        await pilot.pause()
        assert "New game of" in screen_text(app)
        assert_ascii(app, "setup screen")


@pytest.mark.parametrize("game", PLAYABLE)
async def test_ascii_replay_screen(tmp_path, game):
    match = Match(game, {}, [Seat("ann"), Seat("bob")], 3)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="g.json"), ascii=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        assert "Replay" in screen_text(app)
        assert_ascii(app, "replay screen")
