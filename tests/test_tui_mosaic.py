"""Mosaic's screen, driven by the keyboard: a building step, an alteration routine, undo, regions, grid, ASCII."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tui import board_text, panel_text, settle

from termgames.ai import make_bot
from termgames.app import TermgamesApp
from termgames.launch import Launch
from termgames.match import Match, SeatInfo
from termgames.records import load
from termgames.screens.mosaic import MosaicScreen
from termgames.widgets.mosaic_board import MosaicBoard, picture_of


@pytest.fixture(autouse=True)
def quick_ai(monkeypatch):
    monkeypatch.setattr("termgames.rules.mosaic.Mosaic.ai_move_seconds", 0.0)


def new_app(tmp_path: Path, seats=("ann", "bob"), seed=3, ascii=False, built=False, until=None
            ) -> tuple[TermgamesApp, Match, Path]:
    infos = [SeatInfo(name, "ai", "easy") if name.endswith("cpu") else SeatInfo(name) for name in seats]
    match = Match("mosaic", {}, infos, seed)
    if built or until is not None:
        # Bots play on (by default: build the board, so the test starts at the alteration phase's first Step SE).
        stop = until or (lambda state: state.phase != "building")
        bots = [make_bot("mosaic", "easy", seed=seat) for seat in range(len(seats))]
        while not stop(match.state) and len(match.moves) < 300:
            seat = match.state.to_move()[0]
            match.play(seat, bots[seat].choose(match.view(seat)))
    path = tmp_path / "game.json"
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=path), ascii=ascii)
    return app, match, path


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def test_a_building_step_by_keyboard(tmp_path):
    app, match, path = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MosaicScreen)
        board: MosaicBoard = screen.mosaic_board
        hand = match.state.hands[0]
        assert board.selected_tile() == hand[0]
        assert "Step SH/P" in panel_text(app.screen, "status")
        await pilot.press("right_square_bracket")  # the next hand tile
        assert board.selected_tile() == hand[1]
        await pilot.press("3")  # the third, by its number
        assert board.selected_tile() == hand[2]
        assert board.cursor_position() == (0, 0)  # the only legal position of the first tile
        await pilot.press("enter")
        await pilot.pause()
        first = "".join(str(q + 1) for q in hand[2])
        assert [m.move for m in match.moves] == [f"{first}@0,0"]
        # bob: Tab goes to a legal position of his selected tile, Enter places it there.
        tile = board.selected_tile()
        assert tile in match.state.hands[1]
        await pilot.press("tab")
        spot = board.cursor_position()
        await pilot.press("space")
        await pilot.pause()
        text = "".join(str(q + 1) for q in tile)
        assert match.moves[-1].move == f"{text}@{spot[0]},{spot[1]}"
        assert match.moves[-1].seat == 1
    assert len(load(path).moves) == 2


async def test_an_illegal_position_shows_the_rules_message(tmp_path):
    app, match, _ = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # ann's first tile at 0,0
        await pilot.pause()
        board = app.screen.mosaic_board
        legal = board.picture.placements[board.selected_tile()]
        for _ in range(5):
            await pilot.press("down", "right")  # the corner of the drawn board: diagonal to the first tile
        assert board.cursor_position() is not None and board.cursor_position() not in legal
        await pilot.press("enter")
        await pilot.pause()
        assert len(match.moves) == 1
        assert text_of(app, "#message")  # the refusal, in one line


async def test_an_alteration_routine_by_keyboard_and_undo(tmp_path):
    app, match, _ = new_app(tmp_path, built=True)
    start = len(match.moves)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        board = screen.mosaic_board
        assert match.state.kind == "SE"
        assert "Step SE" in panel_text(app.screen, "status")
        await pilot.press("tab")  # the first legal edge
        edge = board.cursor_edge()
        assert edge is not None and board.cursor_name() in match.state.legal_moves()
        await pilot.press("enter")
        await pilot.pause()
        assert match.moves[-1].move.startswith("edge ")
        # Step R: the cursor waits on a candidate; the status names the position being replaced.
        assert "Step R" in panel_text(app.screen, "status") and "tile that was at" in panel_text(app.screen, "status")
        assert "?" in board_text(app)
        await pilot.press("u")  # undo the step just made
        await pilot.pause()
        assert len(match.moves) == start
        await pilot.press("tab", "enter")
        await pilot.pause()
        # Every step of ann's routine by Enter: replacements, then the tiles placed back.
        for _ in range(12):
            if match.state.phase != "alteration" or match.state.to_move() != (0,) or match.state.routines > 0:
                break
            await pilot.press("enter")
            await pilot.pause()
        kinds = [m.move.split()[0] if " " in m.move else "place" for m in match.moves[start:]]
        assert kinds[:3] == ["edge", "take", "take"]
        assert "place" in kinds[3:5]
        assert all(m.seat == 0 for m in match.moves[start : start + 5])


async def test_region_highlight_and_grid(tmp_path):
    app, match, _ = new_app(tmp_path, built=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        board = app.screen.mosaic_board
        pos = min(match.state.board)
        board.spot = (2 * pos[0], 2 * pos[1])
        await pilot.press("r")
        assert "region of" in board.cursor_detail() and "points" in board.cursor_detail()
        assert board.highlight
        before = board_text(app)
        await pilot.press("g")
        assert board.grid and board_text(app) != before and "┼" in board_text(app)


async def test_ascii_mode_draws_only_ascii_with_a_digit_per_quarter(tmp_path):
    app, _match, _ = new_app(tmp_path, ascii=True, built=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = board_text(app)
        assert text.isascii()
        assert "\\" in text and "/" in text
        hands = "\n".join(app.screen.hands.text_lines())
        assert hands.isascii()


async def test_against_the_computer(tmp_path):
    app, match, _ = new_app(tmp_path, seats=("ann", "cpu"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await settle(pilot)
        assert [m.seat for m in match.moves] == [0, 1]
        await pilot.press("u")  # back to before ann's step, the computer's reply undone too
        await pilot.pause()
        assert match.moves == []


def test_the_picture_reads_the_legal_moves():
    match = Match("mosaic", {}, [SeatInfo("ann"), SeatInfo("bob")], 3)
    picture = picture_of(match.view(0))
    assert picture.kind == "SH/P" and picture.player == 0
    assert set(picture.placements) == set(match.state.hands[0])
    assert all(spots == {(0, 0)} for spots in picture.placements.values())


async def test_a_click_puts_the_cursor_on_the_edge_nearest_it(tmp_path):
    app, match, _ = new_app(tmp_path, built=True)
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.pause()
        board = app.screen.mosaic_board
        a, b = min(board.picture.edges)
        shift_x, shift_y, left, top, step_x, step_y = board._layout
        x, y = (a[1] - left) * step_x - shift_x, (a[0] - top) * step_y - shift_y
        # Just inside tile a, on the side facing b.
        offset = (x + 4, y + 1) if a[0] == b[0] else (x + 2, y + 2)
        await pilot.click("#board", offset=offset)
        assert board.cursor_edge() == (a, b)
        await pilot.press("enter")
        await pilot.pause()
        assert match.moves[-1].move == f"edge {a[0]},{a[1]} {b[0]},{b[1]}"


async def test_a_mismatch_subroutine_is_asked_and_marked(tmp_path):
    def mismatch(state) -> bool:
        return state.phase == "alteration" and state.subroutine == "mismatch" and state.kind == "R"

    # Seed 3: the easy bots' 31st move leaves a mismatch for bob to resolve.
    app, match, _ = new_app(tmp_path, seed=3, until=mismatch)
    assert mismatch(match.state)
    step = match.state.step()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        board = app.screen.mosaic_board
        status = panel_text(app.screen, "status")
        row, col = step.replacing
        assert "mismatch" in status and f"mismatched tile at {row},{col}" in status
        assert step.mismatched[0] in board.picture.mismatched_tiles
        drawn = board_text(app)
        assert "!" in drawn and "○" in drawn  # the mismatched tile, the candidates
        played = len(match.moves)
        await pilot.press("enter")  # the cursor waits on a candidate
        await pilot.pause()
        assert len(match.moves) == played + 1 and match.moves[-1].move.startswith("take ")
        assert match.moves[-1].seat == step.player


async def test_placing_back_in_an_alteration_routine_is_not_called_building(tmp_path):
    """Step SH/P comes in both phases: in an alteration routine the status said "Building, Step SH/P: ... next to
    the board" while tiles went back into it (issue 25, 5)."""
    from termgames.rules.mosaic.view import PLACE_KIND

    app, match, _ = new_app(
        tmp_path, until=lambda state: state.phase == "alteration" and state.step().kind == PLACE_KIND
    )
    assert match.state.phase == "alteration"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 3)
        status = " ".join(panel_text(app.screen, "status").split())
        assert "Step SH/P" in status and "Building" not in status and "back" in status, status
        assert "alteration" in status.lower(), status


@pytest.mark.parametrize("size", [(50, 20), (60, 20)])
async def test_mosaic_plays_in_a_small_terminal(tmp_path, size):
    """Issue 33 (4): under 72 columns the compact layout, no "terminal too small": the board scrolls over the
    hands (the mover's first, with every seat's score) and the panel, and a step is played there."""
    app, match, _ = new_app(tmp_path, seats=("ann", "bob", "cat", "dan"))
    async with app.run_test(size=size) as pilot:
        await settle(pilot, 3)
        screen = app.screen
        assert isinstance(screen, MosaicScreen)
        assert not screen.too_small()
        lines = [strip.text for strip in screen._compositor.render_strips()]
        text = "\n".join(lines)
        assert "terminal too small" not in text
        board, hands = screen.mosaic_board, screen.hands
        cursor_line = screen.query_one("#cursor-line")
        panel = screen.query_one("#side-panel")
        # Board, the cursor's line, the hands and the panel, one under the other, all on screen.
        assert board.region.bottom <= cursor_line.region.y < hands.region.y < panel.region.y
        assert panel.region.bottom <= size[1] - 1
        assert board.region.height >= 5
        # The mover's hand first, on one row with its numbers; every seat's name and score (the panel's are cut).
        hand_lines = lines[hands.region.y:hands.region.bottom]
        assert "ann (0)" in hand_lines[1]
        assert hand_lines[3].split()[0] == "1"
        for name in ("bob", "cat", "dan"):
            assert any(line.strip().startswith(f"{name} (0)") for line in hand_lines[4:])
        assert all(re.search(r" \+1\d$", line.rstrip()) for line in hand_lines[4:])  # 22 tiles: how many more
        assert "Step SH/P" in lines[panel.region.y + 1]
        # A tile beyond the row's end slides it.
        await pilot.press("9")
        hand_lines = [strip.text for strip in screen._compositor.render_strips()][hands.region.y:hands.region.bottom]
        assert "9" in hand_lines[3].split() and "<" in hand_lines[1]
        await pilot.press("1", "enter")
        await settle(pilot, 3)
        assert len(match.moves) == 1
        assert "bob (" in [strip.text for strip in screen._compositor.render_strips()][hands.region.y + 1]
