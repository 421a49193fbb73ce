"""Mono's screen: a layout typed by the keyboard, the privacy screen, probing one position at a time."""

from __future__ import annotations

from termgames.app import TermgamesApp
from termgames.launch import Launch
from termgames.match import Match, SeatInfo
from termgames.rules.mono import Mono
from termgames.screens.dialogs import PrivacyScreen
from termgames.screens.mono import MonoScreen

EXAMPLE = "666699777664999787344999787342955888312555888"


async def test_layout_privacy_and_probing(tmp_path):
    match = Match(Mono(), {}, [SeatInfo("fred"), SeatInfo("ned")], 2)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=tmp_path / "m.json"))
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonoScreen)
        board = screen.mono_board
        board.cursor = 0
        await pilot.press(*EXAMPLE[:-1])
        await pilot.press("enter")  # one cell still empty: refused with a reason
        assert match.moves == []
        assert "still empty" in str(screen.query_one("#message").render())
        await pilot.press("8", "enter")
        await pilot.pause()
        assert match.moves[0].move == EXAMPLE
        assert "Enter hides the boards for ned" in str(screen.query_one("#message").render())
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PrivacyScreen) and app.screen.player == "ned"
        assert board.text_lines() == []  # fred's board is gone before ned looks
        await pilot.press("enter")
        await pilot.pause()
        text = "\n".join(board.text_lines())
        assert "6  6  6  6" not in text  # ned never sees fred's layout
        await pilot.press("R")  # ned lays out at random
        await pilot.pause()
        await pilot.press("enter")  # ned hands over
        await pilot.pause()
        await pilot.press("enter")  # fred is alone: his view
        await pilot.pause()
        assert screen.view.viewer == 0 and screen.view.phase == "probe"
        assert board.board_seat == 1
        board.cursor = match.state.grid.index["a1"]
        await pilot.press("enter")
        await pilot.pause()
        assert match.moves[-1].move == "a1,hold"
        assert match.state.to_move() == (0,)  # the first value never ends a turn
        await pilot.press("u")
        assert len(match.moves) == 3  # probes cannot be taken back
        await pilot.press("e")
        await pilot.pause()
        assert match.moves[-1].move == "end"
        assert screen.view.viewer == 0 and screen.view.turns  # fred sees his turn's result first
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PrivacyScreen)
        assert "fred probed a1" in app.screen.result and "scored" in app.screen.result
