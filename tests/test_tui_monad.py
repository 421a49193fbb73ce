"""Monad's seat at the keyboard and its replay, on the real engine: queue commands, end turns, step turns."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui import settle

from termgames.app import TermgamesApp
from termgames.launch import Launch
from termgames.match import Match, SeatInfo, parse_player
from termgames.rules import get_game
from termgames.rules.monad import MonadState
from termgames.screens.monad import MonadScreen, feed_from_match
from termgames.screens.monad_watch import MonadWatchScreen


class PassBot:
    """A stand-in computer seat: instant, sends no commands."""

    level = "greedy"

    def choose(self, view):
        return "pass"


@pytest.fixture(autouse=True)
def quick_bots(monkeypatch):
    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: PassBot())
    monkeypatch.setattr("termgames.rules.monad.Monad.ai_move_seconds", 0.0)


def seat_app(tmp_path: Path, options=None, ascii=False) -> tuple[TermgamesApp, Match]:
    match = Match("monad", options or {}, [SeatInfo("me"), SeatInfo("cpu", "ai", "greedy")], 5)
    app = TermgamesApp(saves_dir=tmp_path, ascii=ascii, launch=Launch("play", match=match, save_path=None))
    return app, match


def my_moves(match: Match) -> list[str]:
    return [record.move for record in match.moves if record.seat == 0]


def test_cpu_level_seats_parse():
    seat = parse_player("cpu:greedy", get_game("monad"))
    assert seat.is_ai and seat.level == "greedy" and seat.name == "cpu"


async def test_queue_commands_and_end_the_turn(tmp_path):
    app, match = seat_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, MonadScreen)
        assert screen.board.cursor_name() == "1,1"  # on my start unit
        await pilot.press("1", "b")  # build a hive with the one unit
        assert screen.queued and screen.queued[-1].text() == "1,1 1 BUILD"
        assert "+1" in "\n".join(screen.board.text_lines())  # drawn on the map
        await pilot.press("m")  # no unit left to command there
        assert "No units of yours left" in screen.message
        await pilot.press("enter")
        await settle(pilot, 5)
        assert my_moves(match) == ["1,1 1 BUILD"]
        state = match.state
        assert isinstance(state, MonadState) and state.board.turn == 1
        assert state.board.hive_counts[0] == 1
        assert screen.queued == []
        await pilot.press("enter")  # nothing queued: pass
        await settle(pilot, 5)
        assert my_moves(match) == ["1,1 1 BUILD", "pass"]


async def test_moves_by_space_then_direction_and_shift_keys_and_take_back(tmp_path):
    app, match = seat_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        screen = app.screen
        await pilot.press("space", "e")  # move NE (the cursor stays)
        assert [c.text() for c in screen.queued] == ["1,1 1 MOVE NE"]
        assert screen.board.cursor_name() == "1,1"
        await pilot.press("backspace")
        assert screen.queued == []
        await pilot.press("X")  # one key: move SE
        assert [c.text() for c in screen.queued] == ["1,1 1 MOVE SE"]
        assert "↘1" in "\n".join(screen.board.text_lines())
        await pilot.press("x")  # the cursor follows SE: (1,1) odd row -> (1,2)
        assert screen.board.cursor_name() == "1,2"
        await pilot.press("2", "m")
        assert "No units of yours left" in screen.message and len(screen.queued) == 1
        await pilot.press("enter")
        await settle(pilot, 5)
        assert my_moves(match) == ["1,1 1 MOVE SE"]
        assert match.state.board.units[match.state.board.index(1, 2)] == 1


async def test_tab_goes_to_units_not_yet_commanded(tmp_path):
    app, _match = seat_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        screen = app.screen
        await pilot.press("down", "down", "tab")
        assert screen.board.cursor_name() == "1,1"  # my only unit
        await pilot.press("m", "tab")
        assert "No units of yours left" in screen.message and screen.board.cursor_name() == "1,1"


async def test_unit_counts_are_checked_before_queueing(tmp_path):
    app, _match = seat_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        screen = app.screen
        await pilot.press("5", "m")
        assert "Only 1 of your units" in screen.message and not screen.queued
        await pilot.press("escape", "plus", "minus", "m")
        assert [c.text() for c in screen.queued] == ["1,1 1 MINE"]


async def test_the_map_fits_at_80x24_and_ascii_mode_is_ascii(tmp_path):
    app, _match = seat_app(tmp_path, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        screen = app.screen
        await pilot.press("space", "e")
        area = screen.query_one("#board-area")
        # 20x20: the rows fit; its row numbers take three columns, by which the map scrolls beside the panel.
        assert area.max_scroll_y == 0 and area.max_scroll_x == 3
        lines = ["".join(s.text for s in strip) for strip in app.screen._compositor.render_strips()]
        assert "\n".join(lines).isascii()
        assert "NE1" in "\n".join(screen.board.text_lines())


async def test_a_big_map_scrolls_to_keep_the_cursor_in_sight(tmp_path):
    app, _match = seat_app(tmp_path, options={"width": 40, "height": 40})
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        screen = app.screen
        area = screen.query_one("#board-area")
        for _ in range(30):
            await pilot.press("down", "right")
        await settle(pilot, 3)
        assert screen.board.cursor_name() == "31,31"
        cursor = screen.board.cursor_region()
        assert cursor is not None
        top = area.scroll_offset.y
        assert area.max_scroll_y > 0 and top <= cursor.y < top + area.scrollable_content_region.height
        left = area.scroll_offset.x
        assert left <= cursor.x < left + area.scrollable_content_region.width


async def test_replay_of_a_monad_record_steps_whole_turns(tmp_path):
    match = Match("monad", {}, [SeatInfo("ann"), SeatInfo("bob")], 7)
    for turn in range(4):
        match.play(1, "pass")
        match.play(0, "1,1 1 BUILD" if turn == 0 else "5,5 1 MINE")
    feed = feed_from_match(match)
    assert len(feed) == 5 and [feed.frame(i).turn for i in range(5)] == [0, 1, 2, 3, 4]
    assert feed.frame(1).commands[0] == ("1,1 1 BUILD",)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 3)
        screen = app.screen
        assert isinstance(screen, MonadWatchScreen)
        assert "A" not in "\n".join(screen.board.text_lines())
        await pilot.press("l")
        assert screen.index == 1 and "A1" in "\n".join(screen.board.text_lines())
        await pilot.press("l", "l")
        # MINE where ann has no units: the rules drop it (ruling 4), and the screen says why.
        dropped = str(screen.query_one("#dropped").render())
        assert "dropped:" in dropped and "5,5" in dropped


@pytest.mark.parametrize("size", [(80, 24), (60, 20), MonadScreen.MINIMUM_SIZE])
async def test_turn_log_shows_each_seats_sends_and_L_scrolls_it(tmp_path, size):
    """The shared L key is honest on Monad's seat: a log of what each seat sent, turn by turn, scrolled by keys."""
    from termgames.widgets.move_log import MoveLog

    app, _match = seat_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, 5)
        screen = app.screen
        for _ in range(12):
            await pilot.press("m", "enter")  # MINE with my unit, end the turn (the bot passes)
            await settle(pilot, 3)
        log = screen.query_one(MoveLog)
        assert log.region.height >= 2 and log.region.width >= 16  # in sight, beside or under the map
        lines = log.text_lines()
        assert sorted(lines[:2]) == ["  1. cpu pass", "  1. me 1,1 1 MINE"] and len(lines) == 25
        assert sorted(lines[-3:-1]) == [" 12. cpu pass", " 12. me 1,1 1 MINE"]
        assert lines[-1] == " 13. cpu (sent)"  # the bot's commands for the turn in progress stay hidden
        assert log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y
        cursor = screen.board.cursor
        await pilot.press("L")
        assert app.focused is log
        await pilot.press("up", "up")
        assert log.scroll_y == log.max_scroll_y - 2 and screen.board.cursor == cursor  # the log's keys, not the map's
        await pilot.press("L")
        assert app.focused is not log
        await pilot.press("up")
        assert screen.board.cursor != cursor


async def test_turn_log_hides_what_another_seat_sent_until_the_turn_resolves(tmp_path):
    app, match = seat_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        from termgames.widgets.move_log import MoveLog

        log = app.screen.query_one(MoveLog)
        assert [(record.seat, record.move) for record in match.moves] == [(1, "pass")]  # the computer sent first
        assert log.text_lines() == ["  1. cpu (sent)"]  # what it sent shows once the turn resolves
        await pilot.press("enter")
        await settle(pilot, 3)
        assert log.text_lines()[:2] == ["  1. cpu pass", "  1. me pass"]
