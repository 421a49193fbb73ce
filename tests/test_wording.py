"""Messages read right for any player name: possessives of names that are pronouns ("me's turn")."""

from __future__ import annotations

import pytest
from tui import panel_text

from termgames.rules import RuleError, get_game
from termgames.rules.base import possessive


def test_possessive_of_names_and_pronouns():
    assert possessive("ann") == "ann's"
    assert possessive("me") == "my"
    assert possessive("Me") == "My"
    assert possessive("you") == "your"
    assert possessive("them") == "their"
    assert possessive("ann and bob") == "ann and bob's"
    assert possessive("you", standing=True) == "yours" and possessive("bob", standing=True) == "bob's"
    assert possessive("me", addressed=True) == '"me"\'s' and possessive("chris", addressed=True) == "chris's"


def test_a_turn_message_for_a_player_named_me():
    state = get_game("copolymer").new({"size": 3}, ["me", "you"], 1)
    with pytest.raises(RuleError) as refused:
        state.apply(1, "B2")
    assert str(refused.value) == "it is my turn, not yours"
    assert "me's" not in str(refused.value)


async def test_the_screen_says_whose_turn_it_is_in_good_english(tmp_path):
    from termgames.app import TermgamesApp
    from termgames.launch import Launch
    from termgames.match import Match, Seat

    match = Match("copolymer", {"size": 5}, [Seat("me"), Seat("cpu", "ai", "normal")], 3)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=tmp_path / "g.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.view = match.view(1)  # as if the keyboard were another seat's: refused, naming me
        app.screen.submit("C3")
        # The screen speaks to its reader as "you": a player named me is a name there, not the reader.
        assert 'It is "me"\'s turn' in str(app.screen.query_one("#message").render())


def test_no_message_makes_a_possessive_of_a_name_by_hand():
    """Every "whose" of a player goes through possessive(): a name followed by a hand-made 's is a "me's" to come.

    The few left name no player: a game's title, an option's flag, a tile.
    """
    import re
    from pathlib import Path

    import termgames

    allowed = ("{title}'s", "{game.title}'s", "{flag}'s", "{tile_text(tile)}'s", 'f"{name}\'s"')
    found = []
    from games import EXAMPLES_FOLDER

    for path in [*Path(termgames.__file__).parent.rglob("*.py"), *EXAMPLES_FOLDER.rglob("*.py")]:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if re.search(r"\{[^{}]*\}'s\b|\+ \"'s\"", line) and not any(ok in line for ok in allowed):
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert found == []


def test_monad_and_mono_say_whose_hive_and_board_in_good_english():
    from termgames.widgets.monad_board import describe_cell

    assert describe_cell({"hive": "me", "production": 2}).startswith('"me"\'s hive')
    assert describe_cell({"hive": "you", "production": 2}).startswith('"you"\'s hive')  # not the reader's
    assert describe_cell({"hive": "chris", "production": 2}).startswith("chris's hive")
    # Read by the player named me: her own hive and units are hers (it said "me"'s hive: issue 25, 10).
    mine = {"hive": "me", "production": 2, "owner": "me", "units": 3}
    assert describe_cell(mine, reader="me") == "your hive (2 production), your 3 units, 0 resources"
    assert describe_cell({"owner": "me", "units": 1}, reader="me") == "your 1 unit, 0 resources"
    assert describe_cell(mine, reader="chris").startswith('"me"\'s hive')


async def test_the_reader_s_own_hive_and_cell_on_the_cursor_line(tmp_path):
    from termgames.app import TermgamesApp
    from termgames.launch import Launch
    from termgames.match import Match, Seat

    for game, options in (("monad", {}), ("copolymer", {"size": 3})):
        match = Match(game, options, [Seat("me"), Seat("cpu", "ai", "greedy" if game == "monad" else "easy")], 3)
        if game == "copolymer":
            match.play(0, "B2")
        app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            screen = app.screen
            if game == "monad":
                screen.board.cursor = screen.board.initial_cursor()  # my start cell: my units
                screen.update_panel()
            else:
                screen.board.cursor = screen.view.board.index["B2"]
                screen.update_panel()
            await pilot.pause()
            line = str(screen.query_one("#cursor-line").render())
            assert "your" in line and '"me"' not in line, line


async def test_an_opponent_named_you_is_never_the_reader_on_the_screen(tmp_path):
    from termgames.app import TermgamesApp
    from termgames.launch import Launch
    from termgames.match import Match, Seat

    layout = "666699777664999787344999787342955888312555888"
    match = Match("mono", {}, [Seat("ann"), Seat("you", "ai", "normal")], 3)
    match.play(0, layout)
    match.play(1, layout[::-1])
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        line = str(screen.query_one("#cursor-line").render())
        assert line.startswith('"you"\'s ') and "your" not in line  # the board of the player named you
        legend = " ".join(panel_text(screen, "legend").split())
        assert "Your turn" in legend  # ann, at the keyboard, is the reader
