"""Messages read right for any player name: possessives of names that are pronouns ("me's turn")."""

from __future__ import annotations

import pytest

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
        assert "It is my turn" in str(app.screen.query_one("#message").render())
