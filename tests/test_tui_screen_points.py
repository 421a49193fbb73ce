"""Issue 33, item 11: the screens' points at 80x24, 60x20 and 50x20 (one wording for the help key, undo at a
game's end alike in every game, a finished replay leaves without asking, Monad's map and panel, the logs, the
``?`` dialog)."""

from __future__ import annotations

import functools
import re

import pytest
from tui import QUICK, finished_match, footer_descriptions, settle

from termgames.app import TermgamesApp
from termgames.games import GAMES
from termgames.launch import Launch
from termgames.match import Match, SeatInfo


@pytest.fixture(autouse=True)
def quick_ai(monkeypatch):
    monkeypatch.setattr("termgames.rules.mono.Mono.ai_move_seconds", 0.0)


def screen_lines(app) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


@pytest.mark.parametrize("game", list(GAMES))
async def test_the_help_key_has_one_wording_in_every_game(tmp_path, game):
    match = Match(game, QUICK[game][0], [SeatInfo("me"), SeatInfo("cpu", "ai", "random")], 1)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 3)
        assert "Help" in footer_descriptions(app)
        assert " ? Help " in screen_lines(app)[-1]


@pytest.mark.parametrize("game", list(QUICK))
async def test_undo_at_a_games_end_is_offered_alike_where_it_works(tmp_path, game):
    """Every game's end at this keyboard offers u Undo in its footer, but Mono's (whose moves are never taken back)."""
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=finished_match(game), save_path=None))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        offered = "Undo" in footer_descriptions(app)
        assert offered == (game != "mono")
        app.screen.action_act()  # (a click on the board: Enter leaves the footer at the end)
        await pilot.pause()
        said = str(app.screen.query_one("#message").render())
        assert ("u undoes" in said) == offered, said
        if offered:
            await pilot.press("u")
            await settle(pilot, 3)
            assert not app.screen.view.over


@pytest.mark.parametrize("size", [(50, 20), (60, 20)])
async def test_the_help_dialog_gives_a_small_terminal_to_the_rules(tmp_path, size):
    """The ? dialog at 50x20 showed seven lines of rules: the terminal's margins, the box's padding, the title's
    margin and a hint on two lines took the rest.  Now the box fills the terminal and the rules its lines."""
    match = Match("copolymer", {}, [SeatInfo("ann"), SeatInfo("bob")], 4)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
    async with app.run_test(size=size) as pilot:
        await settle(pilot, 3)
        await pilot.press("question_mark")
        await settle(pilot, 3)
        lines = screen_lines(app)
        assert lines[0].startswith("╭") and lines[-1].startswith("╰")  # the whole terminal
        assert "Copolymer" in lines[1]
        inside = [line[1:-1].strip() for line in lines[1:-1]]
        assert inside[-1].startswith("Esc, q or ? close") and inside[-1].endswith("scroll")  # one line
        assert sum(1 for line in inside[:-1] if line) >= 13
        await pilot.press("escape")
        await pilot.resize_terminal(100, 30)
        await pilot.press("question_mark")
        await settle(pilot, 3)
        lines = screen_lines(app)
        assert not lines[0].strip()  # at a roomy size, the dialog as before


@functools.cache
def mono_of_four_moves() -> tuple[tuple[int, str], ...]:
    """The moves of a Mono of four players on eight regions, played to its end by bots (once: they take seconds)."""
    from termgames.ai import make_bot

    match = Match("mono", {"size": 8}, [SeatInfo(name) for name in ("me", "you", "cat", "dan")], 1)
    bots = [make_bot("mono", "easy", seed=seat) for seat in range(4)]
    while not match.over and len(match.moves) < 3000:
        seat = match.view(None).to_move[0]
        match.play(seat, bots[seat].choose(match.view(seat)))
    return tuple((move.seat, move.move) for move in match.moves)


def mono_of_four() -> Match:
    """That Mono, finished: its end's texts fill the panel beside the boards at 80x24."""
    match = Match("mono", {"size": 8}, [SeatInfo(name) for name in ("me", "you", "cat", "dan")], 1)
    for seat, move in mono_of_four_moves():
        match.play(seat, move)
    assert match.over
    return match


@pytest.mark.parametrize("mode", ["play", "replay"])
async def test_monos_log_keeps_its_lines_at_the_end_and_in_the_replay(tmp_path, mode):
    """At 80x24 the end of a four-player Mono (and its replay) filled the panel with texts: the log got no line."""
    from termgames.widgets.panel import SidePanel

    app = TermgamesApp(saves_dir=tmp_path, launch=Launch(mode, match=mono_of_four(), save_path=None))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        if mode == "replay":
            await pilot.press("end")
            await settle(pilot, 3)
        log = app.screen.query_one("#move-log")
        assert log.region.height >= SidePanel.LOG_LINES_LEAST
        assert log.region.bottom <= app.screen.query_one("#side-panel").region.bottom
        lines = screen_lines(app)
        last = log.text_lines()[-1].split()
        shown = " ".join(line[log.region.x:log.region.right] for line in lines[log.region.y:log.region.bottom])
        assert last[-1] in shown.split()  # the last move's end in sight


async def test_monunrails_log_breaks_a_move_between_its_tiles_at_50x20(tmp_path):
    """A move of three tiles is longer than the log's line at 50x20: it broke wherever the line ended (``C4:T-n``
    then ``w``); now after a comma, each tile whole."""
    match = Match("monunrail", {}, [SeatInfo("ann"), SeatInfo("bob")], 7)
    move = "C2:T-ne,C3:T-se,C4:T-nw"
    match.play(0, move)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
    async with app.run_test(size=(50, 20)) as pilot:
        await settle(pilot, 3)
        log = app.screen.query_one("#move-log")
        assert log.scrollable_content_region.width < len(move)
        lines = screen_lines(app)
        shown = [line[log.region.x:log.region.right].strip(" ▏") for line in lines[log.region.y:log.region.bottom]]
        words = " ".join(shown).split()
        assert words[:3] == ["1.", "ann", "C2:T-ne,C3:T-se,"] and words[3] == "C4:T-nw", shown


def monad_app(tmp_path, options=None) -> TermgamesApp:
    match = Match("monad", options or {}, [SeatInfo("me"), SeatInfo("cpu", "ai", "greedy")], 5)
    return TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))


async def computer_done(pilot, screen) -> None:
    """Until the computer seat has given its commands for the turn (bounded: a stuck one fails the test)."""
    for _ in range(400):
        if not screen.table.thinking:
            break
        await pilot.pause(0.05)
    assert not screen.table.thinking
    await settle(pilot, 2)


def area_lines(app) -> list[str]:
    """The map's area as the player sees it."""
    area = app.screen.query_one("#board-area").region
    return [line[area.x:area.right] for line in screen_lines(app)[area.y:area.bottom]]


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (50, 20)])
async def test_monads_map_keeps_its_labels_and_marks_its_cursor_with_glyphs(tmp_path, size):
    """The 20x20 map had no row or column labels at these sizes, and its cursor (default palette) was only a
    background colour.  Now the column numbers head the area and the row numbers stand at its left, kept there
    as the map scrolls; the cursor's row number is followed by ``>``, its cell stands between ``[`` ``]``."""
    app = monad_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, 5)
        board = app.screen.board
        for presses in ([], ["right"] * 17 + ["down"] * 18):  # the start cell (1,1), then near the far corner
            for key in presses:
                await pilot.press(key)
            await settle(pilot, 2)
            x, y = board.cursor_xy()
            lines = area_lines(app)
            assert re.search(r"\b(0|5|10|15)\b", lines[0]), lines[0]  # the column numbers' line
            assert all(re.match(r" ?\d\d?[ >]", line) for line in lines[1:]), lines  # a row number on each line
            marked = [line for line in lines[1:] if re.match(rf" ?{y}>", line)]
            assert len(marked) == 1, lines
            assert "[" in marked[0] and "]" in marked[0], marked  # the blank columns either side of the cell
        assert (x, y) == (18, 19)


async def test_monads_cursor_line_is_whole_at_50x20(tmp_path):
    """A hive with units under the cursor was cut at 50 columns; there the line says it in the panel's
    abbreviations (``40r``), and in words where it has the room."""
    app = monad_app(tmp_path)
    async with app.run_test(size=(50, 20)) as pilot:
        await settle(pilot, 5)
        screen = app.screen
        await computer_done(pilot, screen)  # its commands, once in, draw the map from the view again
        screen.monad_board.cell(1, 1).update(hive="me", production=12, owner="me", units=1500, resources=40)
        screen.update_panel()
        await settle(pilot, 2)
        line = str(screen.query_one("#cursor-line").render()).strip()
        assert line == "1,1: your hive (prod 12), your 1500u, 40r"
        await pilot.resize_terminal(100, 30)
        await settle(pilot, 3)
        # The resize draws the board from the view again (the opponent's turn may come meanwhile): the same cell
        # once more, now with the room for words.
        screen.monad_board.cell(1, 1).update(hive="me", production=12, owner="me", units=1500, resources=40)
        screen.update_panel()
        await settle(pilot, 2)
        line = str(screen.query_one("#cursor-line").render()).strip()
        assert line == "1,1: your hive (12 production), your 1500 units, 40 resources"


async def test_monads_panel_takes_the_columns_a_small_map_leaves(tmp_path):
    """At 80x24 a 14x14 map left blank columns between it and a 19-column panel whose texts wrapped two words
    a line: the panel takes them now."""
    app = monad_app(tmp_path, {"width": 14, "height": 14})
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        panel = app.screen.query_one("#side-panel").region
        map_right = app.screen.board.region.right
        assert panel.width > 19 and panel.x - map_right <= 3
        assert "Turn 1 of 2000: waiting for" in screen_lines(app)[panel.y]
