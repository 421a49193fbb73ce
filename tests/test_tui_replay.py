"""The replay screen: stepping, jumping, playing, and whose view is shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui import finished_match, panel_text

from termgames.app import TermgamesApp
from termgames.launch import Launch
from termgames.match import Match, Seat
from termgames.rules.base import ALL
from termgames.screens.dialogs import GoToMoveScreen
from termgames.screens.replay import ReplayScreen


def finished(size: int = 5) -> Match:
    match = Match("copolymer", {"size": size}, [Seat("ann"), Seat("bob")], 9)
    while not match.over:
        view = match.view(match.state.to_move()[0])
        match.play(view.to_move[0], view.board.names[max(view.legal_cells())])
    return match


def claimed(screen: ReplayScreen) -> int:
    return sum(owner is not None for owner in screen.query_one("#board").view.owners)


async def test_step_jump_and_go_to(tmp_path):
    match = finished()
    total = len(match.moves)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="x.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert screen.ply == 0 and claimed(screen) == 0
        await pilot.press("right", "l")
        assert screen.ply == 2 and claimed(screen) == 2
        await pilot.press("left")
        assert screen.ply == 1
        await pilot.press("end")
        assert screen.ply == total and claimed(screen) == 19
        assert f"move {total} of {total}" in panel_text(screen, "status")
        await pilot.press("home")
        assert screen.ply == 0
        await pilot.press("G")
        assert screen.ply == total
        await pilot.press("g", "colon")
        await pilot.pause()
        assert isinstance(app.screen, GoToMoveScreen)
        await pilot.press("7", "enter")
        await pilot.pause()
        assert screen.ply == 7 and claimed(screen) == 7


async def test_play_and_pause_with_speed(tmp_path):
    match = finished()
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        for _ in range(4):
            await pilot.press("plus")
        assert screen.speed_index == 4  # fastest
        await pilot.press("space")
        assert screen.timer is not None
        await pilot.pause(0.7)
        assert screen.ply >= 2
        await pilot.press("p")
        stopped = screen.ply
        await pilot.pause(0.5)
        assert screen.timer is None and screen.ply == stopped


async def test_viewers_include_everything_only_once_over(tmp_path):
    match = finished()
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert screen.viewers == [ALL, 0, 1, None]
        await pilot.press("v")
        assert "viewing as ann" in panel_text(screen, "status")
    unfinished = Match("copolymer", {"size": 3}, [Seat("ann"), Seat("bob")], 1)
    unfinished.play(0, "B2")
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=unfinished))
    async with app.run_test(size=(80, 24)) as pilot:
        assert ALL not in app.screen.viewers


async def test_log_follows_the_current_move_and_the_board_has_no_cursor(tmp_path):
    from termgames.records import load

    match = load(Path(__file__).parent.parent / "saves" / "copolymer-ada-vs-brian.json")
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        log = screen.query_one("#move-log")
        board = screen.query_one("#board")
        await pilot.press("G")
        await pilot.pause(0.1)
        assert log.scroll_y > 0 and log.scroll_y >= log.max_scroll_y - 1  # the last turns are in sight
        assert "[" not in "\n".join(board.text_lines())  # a replay has no cursor
        await pilot.press("g")
        await pilot.pause(0.1)
        assert log.scroll_y == 0
        await pilot.press("number_sign")
        await pilot.pause()
        assert isinstance(app.screen, GoToMoveScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and screen.ply == 0


async def test_view_cycles_through_every_board_each_seat_and_a_spectator(tmp_path):
    match = finished()
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        seen = []
        for _ in range(4):
            seen.append((screen.viewer, screen.query_one("#board").view.viewer))
            await pilot.press("v")
        # Every board (a perfect-information game shows it as a spectator sees it), each seat, a spectator.
        assert seen == [(ALL, None), (0, 0), (1, 1), (None, None)]
        status = panel_text(screen, "status")
        # Copolymer hides nothing: not "every board" (issue 25, 10), which only a game with hidden boards has.
        assert "viewing as everyone (nothing is hidden)" in " ".join(status.split())
        for _ in range(6):
            await pilot.press("minus")
        assert screen.speed_index == 0  # 4 s a move, the slowest


async def test_ascii_replay_title(tmp_path):
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=finished()), ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert str(app.screen.query_one("#game-title").render()).isascii()
        assert "\n".join(app.screen.query_one("#board").text_lines()).isascii()


@pytest.mark.parametrize("game", ["copolymer", "monad"])
async def test_q_leaves_a_replay_opened_alone_without_asking(tmp_path, game):
    """Issue 33: a replay has nothing unsaved: opened from the command line, q leaves at once, as Esc leaves one
    opened from the start screen (Monad's replay is its watch screen's)."""
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=finished_match(game), source="x.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0 and not app.is_running
