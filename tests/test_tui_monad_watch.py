"""Monad's map widget and its watch screen, fed fake boards in the board_json shape (no engine needed)."""

from __future__ import annotations

import threading
from typing import Any

from tui import settle

from termgames.app import TermgamesApp
from termgames.rules.monad import Command, board_json
from termgames.screens.monad_watch import MonadWatchScreen, TurnFeed, chart, watch_turns
from termgames.widgets.monad_board import MonadBoard, step_cell


def fake_board(turn: int = 0, width: int = 20, height: int = 20, names=("ann", "bob")) -> dict[str, Any]:
    cells: list[list[dict[str, Any]]] = [
        [{"resources": (x * 7 + y * 3) % 51} for x in range(width)] for y in range(height)
    ]
    cells[1][1].update(owner=names[0], units=12, hive=names[0], production=3)
    cells[height - 2][width - 2].update(owner=names[1], units=150)
    cells[5][5].update(owner=names[0], units=3 + turn)
    cells[10][10] = {"resources": 0, "obstacle": True}
    return {
        "width": width,
        "height": height,
        "turn": turn,
        "limit": 2000,
        "resources": {name: 100 + turn for name in names},
        "units": {names[0]: 15 + turn, names[1]: 150},
        "hives": {names[0]: 1 + turn // 10, names[1]: 0},
        "cells": cells,
    }


def fake_feed(turns: int = 30) -> TurnFeed:
    feed = TurnFeed(["ann", "bob"])
    for turn in range(turns):
        dropped = [
            ["5,5 9 MOVE E: only 3 units there"] if turn % 3 == 1 else [],
            ["fault timeout"] if turn == 2 else [],
        ]
        feed.append(fake_board(turn), dropped=dropped)
    feed.finish("ann wins")
    return feed


def screen_lines(app) -> list[str]:
    """The whole screen as text, as the terminal would show it."""
    return ["".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()]


async def open_watch(app, feed: TurnFeed, **kwargs) -> MonadWatchScreen:
    screen = MonadWatchScreen(feed, "Replay: Monad", ascii_only=app.ascii, **kwargs)
    await app.push_screen(screen)
    return screen


def test_hex_cursor_steps_follow_ruling_1():
    # Even row: NE (x+1, y-1), NW (x, y-1), SE (x+1, y+1), SW (x, y+1); odd row one column less.
    assert step_cell(3, 4, "up_right", 9, 9) == (4, 3) and step_cell(3, 4, "up_left", 9, 9) == (3, 3)
    assert step_cell(3, 4, "down_right", 9, 9) == (4, 5) and step_cell(3, 4, "down_left", 9, 9) == (3, 5)
    assert step_cell(3, 5, "up_right", 9, 9) == (3, 4) and step_cell(3, 5, "up_left", 9, 9) == (2, 4)
    assert step_cell(3, 5, "down_right", 9, 9) == (3, 6) and step_cell(3, 5, "down_left", 9, 9) == (2, 6)
    assert step_cell(3, 5, "left", 9, 9) == (2, 5) and step_cell(3, 5, "up", 9, 9) == (3, 4)
    assert step_cell(0, 0, "up", 9, 9) is None and step_cell(8, 1, "right", 9, 9) is None


def test_chart_squeezes_to_its_width():
    line = chart(list(range(100)), 10, 99, ascii_only=True)
    assert len(line) == 10 and line[-1] == "#" and line[0] in " _"
    assert chart([0, 5, 10], 16, 10, ascii_only=False) == " ▄█"


async def test_map_fits_at_80x24_with_owner_letters_hives_and_rocks(tmp_path):
    app = TermgamesApp(saves_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_watch(app, fake_feed())
        await settle(pilot, 3)
        board = screen.board
        lines = board.text_lines()
        assert len(lines) <= 21 and max(len(line) for line in lines) <= 61
        # Staggered: even rows shifted right by one, so row 1 (odd) starts further left than row 0.
        assert lines[1].startswith(" . A12") and lines[0].startswith("  ")
        text = "\n".join(lines)
        assert "b++" in text and "###" in text and "a3" in text
        # The whole map is on screen beside the panel: every row, and the panel's totals.
        shown = "\n".join(screen_lines(app))
        assert "A12" in shown and "b++" in shown and "100r 15u 1h" in shown
        assert board.region.right <= screen.query_one("#side-panel").region.x
        assert board.region.height == 20


async def test_replay_steps_plays_and_goes_to_a_turn(tmp_path):
    app = TermgamesApp(saves_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_watch(app, fake_feed())
        await pilot.press("right", "l")
        assert screen.index == 2 and "turn 2/2000" in str(screen.query_one("#status").render())
        assert "fault timeout" in str(screen.query_one("#dropped").render())
        await pilot.press("left")
        assert "only 3 units there" in str(screen.query_one("#dropped").render())
        await pilot.press("G")
        assert screen.index == 29 and "ann wins" in str(screen.query_one("#status").render())
        await pilot.press("colon")
        await pilot.pause()
        await pilot.press("1", "7", "enter")
        await pilot.pause()
        assert screen.index == 17
        for _ in range(9):
            await pilot.press("plus")
        assert screen.speed_index == 5  # 50 turns a second at most
        await pilot.press("minus", "minus", "minus")  # 5 a second
        await pilot.press("space")
        assert screen.timer is not None
        await pilot.pause(0.5)
        await pilot.press("p")
        assert screen.timer is None and 17 < screen.index < 29


async def test_layers_toggle(tmp_path):
    app = TermgamesApp(saves_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_watch(app, fake_feed())
        await pilot.pause()
        before = "\n".join(screen.board.text_lines())
        await pilot.press("1")  # units off: the resources show as numbers
        assert "units" not in screen.board.shown_layers
        no_units = "\n".join(screen.board.text_lines())
        assert "a3" not in no_units and " 35" in no_units and "A" in no_units
        await pilot.press("3")  # hives off too
        assert "A" not in "\n".join(screen.board.text_lines())
        await pilot.press("2")  # resources off: rocks alone
        assert set("\n".join(screen.board.text_lines())) <= {" ", "#", "\n"}
        await pilot.press("1", "2", "3")
        assert "\n".join(screen.board.text_lines()) == before


async def test_ascii_mode_draws_no_unicode(tmp_path):
    app = TermgamesApp(saves_dir=tmp_path, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_watch(app, fake_feed())
        screen.board.set_queue([Command(5, 5, 2, "MOVE", "NE"), Command(1, 1, 1, "MINE")])
        await pilot.press("l", "l", "l", "l")
        await pilot.pause()
        assert "NE2" in "\n".join(screen.board.text_lines())
        shown = "\n".join(screen_lines(app))
        assert shown.isascii(), [c for c in shown if not c.isascii()]


async def test_narrow_terminal_puts_the_panel_under_a_scrolling_map(tmp_path):
    app = TermgamesApp(saves_dir=tmp_path)
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await open_watch(app, fake_feed())
        await settle(pilot, 3)
        assert screen.has_class("narrow")
        panel = screen.query_one("#side-panel")
        area = screen.query_one("#board-area")
        assert panel.region.y >= area.region.bottom
        assert area.max_scroll_y > 0  # the map scrolls
        await pilot.press("l")
        assert screen.index == 1  # the arrow keys still step (the scrolling map never takes them)


async def test_live_feed_follows_the_runner(tmp_path):
    release = threading.Event()

    def turns():
        for turn in range(5):
            if turn == 3:
                release.wait(5)
            yield fake_board(turn), None

    feed = TurnFeed(["ann", "bob"])
    app = TermgamesApp(saves_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_watch(app, feed, live=True)
        await pilot.press("plus", "plus", "plus")  # 50 turns a second
        thread = watch_turns(feed, turns())
        await settle(pilot, 10)
        assert len(feed) == 3 and screen.index == 2 and not feed.finished
        release.set()
        thread.join(5)
        await settle(pilot, 10)
        assert feed.finished and screen.index == 4


async def test_a_failing_runner_is_reported_not_raised(tmp_path):
    def turns():
        yield fake_board(0), None
        raise RuntimeError("bot exploded")

    feed = TurnFeed(["ann", "bob"])
    app = TermgamesApp(saves_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_watch(app, feed, live=True)
        watch_turns(feed, turns()).join(5)
        await settle(pilot, 5)
        assert "bot exploded" in str(screen.query_one("#status").render())


def test_the_widget_draws_a_board_dict_alone():
    board = MonadBoard()
    board.show(fake_board(0, width=12, height=12))
    assert len(board.text_lines()) >= 12


def test_a_runner_match_feeds_the_live_screen_turn_by_turn():
    from termgames.ai.monad.match import MonadMatch
    from termgames.screens.monad_live import _turns
    from termgames.screens.monad_watch import follow

    match = MonadMatch(["greedy", "swarm"], {"turns": 30}, seed=3)
    feed = TurnFeed(match.names, board_json)
    follow(feed, _turns(match, feed))
    assert len(feed) == 31 and [feed.frame(i).turn for i in (0, 30)] == [0, 30]
    assert feed.finished and "30 turns" in feed.result
    last = feed.board_json(30)
    assert feed.frame(30).totals[1] == (last["resources"]["swarm"], last["units"]["swarm"], last["hives"]["swarm"])


def test_huge_unit_counts_stay_short():
    from termgames.widgets.monad_board import count_text, short_count

    assert [short_count(n) for n in (42, 12_345, 4_500_000, 10**15)] == ["42", "12.3k", "4.5M", "1.0e15"]
    assert short_count(10**5000) == "~1e5000"  # no str() of a 5001-digit int (Python refuses past 4300)
    assert count_text(10**5000, 2) == "++" and count_text(99, 2) == "99"
    assert chart([1, 10**3, 10**10, 10**20], 4, 10**20, ascii_only=False) == "▁▂▄█"  # log scale
