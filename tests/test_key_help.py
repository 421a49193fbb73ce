"""The key help is written from the screens' bindings: it lists every key a screen has and no other."""

from __future__ import annotations

from textual.binding import Binding

from termgames.games import GAMES
from termgames.screens.game import CURSOR_KEYS, GameScreen
from termgames.screens.keys import key_name, key_rows, keys_markdown
from termgames.screens.monunrail import MonUnrailScreen
from termgames.screens.replay import ReplayScreen


def bound_keys(screen_class) -> set[str]:
    """Every key the screen's own classes and its board widget's bind (less Textual's own keys)."""
    keys: set[str] = set()
    board = getattr(screen_class, "board_class", None)
    for cls in (*screen_class.__mro__, *(board.__mro__ if isinstance(board, type) else ())):
        if not cls.__module__.startswith("textual."):
            for binding in cls.__dict__.get("BINDINGS", []):
                keys |= {key.strip() for key in binding.key.split(",")}
    return keys


def game_screens() -> list:
    """The screen of every game of GAMES that has one."""
    return [descriptor.screen_class() for descriptor in GAMES.values() if descriptor.playable]


def test_every_bound_key_is_in_the_help_once_with_an_explanation():
    for screen_class in (*game_screens(), ReplayScreen):
        rows = key_rows(screen_class)
        listed = [key for row in rows for key in row.keys]
        assert set(listed) == bound_keys(screen_class), screen_class
        assert all(row.text for row in rows)


def test_a_subclass_binding_hides_the_base_binding_of_its_key():
    rows = {row.text: row for row in key_rows(MonUnrailScreen)}
    # GameScreen's "enter,space: act" is replaced by MonUnrail's own Enter and Space.
    assert not any("act: play the move" in text for text in rows)
    assert rows["unrailing: pick a tile to remove, or unpick it"].keys == ["space"]
    assert CURSOR_KEYS in rows  # the common keys MonUnrail keeps ("move the cursor ...")


def test_rows_group_bindings_of_one_explanation_and_name_keys_in_ascii():
    class Screen(GameScreen):
        BINDINGS = [
            Binding("plus", "step(1)", "More", tooltip="step the value"),
            Binding("minus", "step(-1)", "Less", tooltip="step the value"),
            Binding("ctrl+s", "save", "Save"),
        ]

    table = keys_markdown(Screen, "Marks: `*` the last move.")
    assert "| +, - | step the value |" in table
    assert "| Ctrl+S | Save |" in table
    assert table.rstrip().endswith("Marks: `*` the last move.")
    assert table.isascii()
    assert key_name("question_mark") == "?" and key_name("pagedown") == "PgDn"


def test_a_shared_table_keeps_every_key_of_the_game_and_chats_on_a_free_one():
    from termgames.screens.keys import bound_keys
    from termgames.server.ui.shared_game import shared_screen_class

    for screen_class in game_screens():
        shared = shared_screen_class(screen_class)
        rows = key_rows(shared)
        chat = [row for row in rows if row.text == "chat with the table"]
        assert len(chat) == 1 and chat[0].keys == [shared.CHAT_KEY]
        assert shared.CHAT_KEY not in bound_keys(screen_class)  # MonUnrail's t still picks the tile kind
        game_rows = {row.text: row.keys for row in key_rows(screen_class)}
        mute = [row for row in rows if row.text.startswith("mute a player's chat lines")]
        assert len(mute) == 1 and mute[0].keys == [shared.MUTE_KEY] == ["M"]
        assert {row.text: row.keys for row in rows if row not in (chat[0], mute[0])} == game_rows
    assert shared_screen_class(MonUnrailScreen).CHAT_KEY == "slash"


def test_keys_a_game_adds_through_its_board_are_in_its_help():
    from termgames.widgets.board import BoardWidget

    class Board(BoardWidget):
        BINDINGS = [Binding("x", "mark", "Mark", tooltip="mark the cell for later")]

    class Screen(GameScreen):
        board_class = Board

    rows = {row.text: row.keys for row in key_rows(Screen)}
    assert rows["mark the cell for later"] == ["x"]
