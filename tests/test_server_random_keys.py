"""Random keystrokes in every screen (lobby, new table, each game on the server and at one keyboard): no traceback."""

from __future__ import annotations

import random

import pytest

from termgames.match import Seat
from termgames.rules import game_names, get_game
from termgames.server.hub import Hub
from termgames.server.stores.sqlite import Store
from termgames.server.ui.app import ServeApp
from termgames.server.ui.lobby import LobbyScreen

SIZE = (100, 32)
KEYS = [
    *"abcdefghijklmnoprstuvwxyzRABCDEFGHIJKL0123456789?+-.,:/ ",
    "up", "down", "left", "right", "enter", "space", "escape", "tab", "shift+tab", "backspace",
    "ctrl+s", "ctrl+z", "home", "end", "pageup", "pagedown", "q", "y",
]
PRESSES = 80


async def press_randomly(app: ServeApp, pilot, generator: random.Random) -> None:
    for _ in range(PRESSES):
        key = generator.choice(KEYS)
        if key == "q" and isinstance(app.screen, LobbyScreen):
            key = "escape"  # q in the lobby ends the session: keep pressing instead
        await pilot.press(key)
        assert app._exception is None, f"{key!r} raised"  # Textual keeps the app's first unhandled error here
        assert app.is_running, f"the app stopped after {key!r}"


@pytest.mark.parametrize("game_name", game_names())
async def test_random_keys_in_each_game_screen_and_the_lobby(tmp_path, game_name):
    hub = Hub(Store(tmp_path / "termgames.db"), tmp_path / "records")
    game = get_game(game_name)
    names = ["alice", "bob", "carol", "dave", "erin", "frank"][: game.min_seats]
    table = hub.create_table(game_name, {}, [Seat(name=name) for name in names], "alice")
    app = ServeApp(hub=hub, player="alice")
    generator = random.Random(f"{game_name}:14")
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await press_randomly(app, pilot, generator)  # the lobby, and wherever its keys lead
            while not isinstance(app.screen, LobbyScreen):
                app.pop_screen()
                await pilot.pause()
            app.open_table(table.id)
            await pilot.pause()
            await press_randomly(app, pilot, generator)
    finally:
        hub.close()
        hub.store.close()


@pytest.mark.parametrize("game_name", game_names())
async def test_random_keys_in_each_game_screen_at_one_keyboard(tmp_path, game_name):
    from termgames.app import TermgamesApp
    from termgames.launch import Launch
    from termgames.match import Match
    from termgames.screens.dialogs import ConfirmScreen

    game = get_game(game_name)
    names = ["ann", "bob", "cid", "dee", "eve", "fay"][: game.min_seats]
    match = Match(game_name, {}, [Seat(name) for name in names], 14)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=tmp_path / "game.json"))
    generator = random.Random(f"{game_name}:local")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(PRESSES):
            key = generator.choice(KEYS)
            key = "escape" if key in ("q", "ctrl+c") else key  # quitting ends the test's app, not a fault
            if key == "y" and isinstance(app.screen, ConfirmScreen) and app.screen.question == "Quit termgames?":
                key = "n"  # Esc asks to quit a game opened from the command line (issue 25, 6): yes would end it
            await pilot.press(key)
            assert app._exception is None, f"{key!r} raised"
            assert app.is_running, f"the app stopped after {key!r}"
