"""Mono's screen: the layout editor, probing by keyboard, privacy between players, the overlay, fitting 80x24."""

from __future__ import annotations

import random
import re
import threading

import pytest
from tui import Terminal, panel_text, snake_layout

from termgames.app import TermgamesApp
from termgames.launch import Launch
from termgames.match import AI, Match, Seat
from termgames.rules.mono import Mono, label
from termgames.screens.dialogs import PrivacyScreen
from termgames.screens.mono import MonoScreen
from termgames.screens.replay import ReplayScreen
from termgames.widgets.mono_board import MonoBoard

EXAMPLE = "666699777664999787344999787342955888312555888"
OTHER = "666991444699999954677779552688777532888888533"


def mono_app(tmp_path, seats=("fred", "ned"), options=None, moves=(), seed=2):
    infos = [Seat(name, AI, "normal") if name.endswith("bot") else Seat(name) for name in seats]
    match = Match(Mono(), options or {}, infos, seed)
    for seat, move in moves:
        match.play(seat, move)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=tmp_path / "m.json"))
    return app, match


def screen_text(app) -> str:
    """Everything the terminal shows now, as plain text."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def message(screen) -> str:
    return str(screen.query_one("#message").render())


def board_slot(screen, seat) -> MonoBoard:
    return next(slot for slot in screen.query(MonoBoard) if slot.seat == seat and slot.display)


def rendered_cells(app, slot: MonoBoard) -> list[str]:
    """What the terminal shows in each cell of a compact 9-region board, read off the rendered screen."""
    lines = screen_text(app).splitlines()
    area = slot.content_region
    cells = []
    for row in range(5):
        line = lines[area.y + 2 + row]
        cells += [line[area.x + 2 + 2 * column] for column in range(9)]
    return cells


def assert_hidden(app, layout: str) -> None:
    """No row of ``layout`` (a 9-region board hidden from the viewer) shows anywhere on the terminal."""
    text = screen_text(app)
    for row in range(5):
        values = layout[row * 9 : row * 9 + 9]
        assert " ".join(values) not in text and values not in text


async def test_layout_editor_shows_what_is_wrong_and_privacy_hides_every_board(tmp_path):
    app, match = mono_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonoScreen)
        board = screen.mono_board
        assert board.cursor == 0 and "type a region label" in message(screen)
        await pilot.press(*EXAMPLE[:4], "6")  # a fifth 6 in the top row: region 6 would have 7 cells
        await pilot.press(*EXAMPLE[5:9], "6", "6")
        assert "region 6 has 7 cells, it needs 6" in message(screen)
        assert "6!" in "\n".join(board_slot(screen, 0).text_lines())  # the region's cells are marked
        await pilot.press("enter")  # refused with the reason
        assert match.moves == [] and "region 6 has 7 cells" in message(screen)
        board.cursor = 4
        await pilot.press("9")  # e5 fixed
        board.cursor = 11
        await pilot.press("4", *EXAMPLE[12:-1])
        assert "1 empty cell" in message(screen) and "short: 8 (1)" in message(screen)
        await pilot.press("backspace", "backspace")  # on an empty cell: back one and clear it, as in text
        assert board.draft[-3:] == [None, None, None] and board.cursor == len(EXAMPLE) - 3
        await pilot.press(*EXAMPLE[-3:], "enter")
        await pilot.pause()
        assert match.moves[0].move == EXAMPLE
        assert "Enter hides the boards for ned" in message(screen)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PrivacyScreen) and app.screen.player == "ned"
        assert board.text_lines() == []  # fred's board is gone before ned looks
        assert_hidden(app, EXAMPLE)
        assert "a b c d" not in screen_text(app)  # no board at all behind the privacy screen
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen and screen.view.viewer == 1
        assert_hidden(app, EXAMPLE)  # ned never sees fred's layout
        assert "laid out" in screen_text(app)


async def test_a_whole_turn_by_keyboard_then_privacy_for_the_next_player(tmp_path):
    app, match = mono_app(tmp_path, moves=[(0, EXAMPLE), (1, OTHER)])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, PrivacyScreen)  # a resumed hot-seat game: who sits here?
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        board = screen.mono_board
        assert screen.view.viewer == 0 and board.board_seat == 1
        assert_hidden(app, OTHER)
        await pilot.click(board_slot(screen, 0), offset=(3, 6))  # a click on your own board: no cursor there
        assert board.board_seat == 1
        await pilot.click(board_slot(screen, 1), offset=(3, 6))  # padding 1, row number and space 2: a1
        await pilot.pause()
        assert board.cursor_name() == "a1" and "ned's a1: hidden" in str(screen.query_one("#cursor-line").render())
        await pilot.press("enter")  # a1 = 8
        await pilot.press("right", "enter")  # b1 = 8
        await pilot.press("up", "l", "enter")  # c2 = 8
        await pilot.pause()
        assert [m.move for m in match.moves[2:]] == ["a1,hold", "b1,hold", "c2,hold"]
        legend = panel_text(screen, "legend")
        assert "Your turn: 8 8 8" in legend and "scores 9 if it ends now" in legend
        assert "c2: 8" in str(screen.query_one("#cursor-line").render())
        await pilot.press("u")  # probes cannot be taken back
        assert len(match.moves) == 5 and "cannot be undone" in message(screen)
        await pilot.press("e")
        await pilot.pause()
        assert match.moves[-1].move == "end" and match.state.scores()[0] == 9
        assert screen.view.viewer == 0  # fred sees his turn's result first
        assert "Last: fred 8 8 8 = 9" in panel_text(screen, "legend")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PrivacyScreen)
        assert "fred probed a1=8, b1=8, c2=8 and scored 9" in app.screen.result
        await pilot.press("enter")
        await pilot.pause()
        assert screen.view.viewer == 1
        assert_hidden(app, EXAMPLE)
        assert rendered_cells(app, board_slot(screen, 0)) == ["·"] * 45  # ned has probed nothing of fred's
        assert rendered_cells(app, board_slot(screen, 1)) == list(OTHER)
        own = "\n".join(board_slot(screen, 1).text_lines())
        assert " ".join(OTHER[:9]) in own  # ned's own board, every value


async def test_random_probes_are_marked_and_the_game_end_is_announced(tmp_path):
    app, match = mono_app(tmp_path, moves=[(0, EXAMPLE), (1, OTHER), (0, "a1,hold")])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # past the privacy screen
        await pilot.pause()
        screen = app.screen
        assert "End: the round a board is" in panel_text(screen, "legend")
        await pilot.press("r")  # random probes until a decrease
        await pilot.pause()
        record = match.state.turns[-1]
        randoms = [p for p in record.probes if p.random]
        assert randoms
        text = "\n".join(board_slot(screen, 1).text_lines())
        assert f"{label(randoms[0].value)}*" in text  # a mark, not only a colour


async def test_deduction_overlay_on_off_in_a_thread(tmp_path, monkeypatch):
    calls = []

    def fake_beliefs(view, board_seat, samples, seed):
        calls.append((threading.current_thread().name, view.viewer, board_seat))
        return [None if value is not None else ((7, 0.62), (5, 0.38)) for value in view.boards[board_seat]]

    monkeypatch.setattr("termgames.screens.mono.cell_candidates", fake_beliefs)
    app, match = mono_app(tmp_path, moves=[(0, EXAMPLE), (1, OTHER), (0, "a1,hold")])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        board = screen.mono_board
        board.cursor = match.state.grid.index["c3"]
        await pilot.press("d")
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = "\n".join(board_slot(screen, 1).text_lines())
        # Every hidden cell but the cursor's, whose brackets stay brackets (they turned into "?": issue 25, 10) and
        # cover the guess mark of the cell before; the line under the boards gives the cursor's guess.
        assert text.count("7?") == 42 and "7[·]7?" in text.splitlines()[4]
        assert text.splitlines()[6].startswith("1 8 ")  # a1 still shows its true value, unmarked
        assert "c3: hidden, probably 7 (62 %)" in str(screen.query_one("#cursor-line").render())
        assert calls and all(name != "MainThread" for name, _, _ in calls) and calls[0][1:] == (0, 1)
        await pilot.press("right", "right", "right", "enter")  # f3 = 9, the turn goes on: beliefs again
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(calls) == 2
        await pilot.press("d")
        assert "?" not in "\n".join(board_slot(screen, 1).text_lines())


async def test_no_hints_forbids_the_overlay(tmp_path, monkeypatch):
    monkeypatch.setattr("termgames.screens.mono.cell_candidates", lambda *a, **k: pytest.fail("no overlay"))
    app, match = mono_app(tmp_path, options={"no_hints": True}, moves=[(0, EXAMPLE), (1, OTHER)])
    assert "--no-hints" in Mono().describe_options(match.options)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await pilot.press("d")
        await pilot.pause()
        assert not app.screen.overlay
        assert "Deduce" not in screen_text(app).splitlines()[-1]  # the footer offers no key that does nothing
    app, match = mono_app(tmp_path, moves=[(0, EXAMPLE), (1, OTHER)])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert "Deduce" in screen_text(app).splitlines()[-1]  # with hints, it is there


@pytest.mark.parametrize(
    ("size", "seats", "per_row", "compact"),
    [((80, 24), 2, 2, True), ((80, 24), 4, 2, True), ((80, 24), 3, 2, True), ((120, 40), 2, 2, False)],
)
async def test_boards_fit_the_terminal(tmp_path, size, seats, per_row, compact):
    names = ["ann", "bob", "cat", "dan"][:seats]
    layouts = [EXAMPLE, OTHER, EXAMPLE[::-1], OTHER[::-1]]
    app, _match = mono_app(tmp_path, seats=names, moves=[(s, layouts[s]) for s in range(seats)])
    async with app.run_test(size=size) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert screen.mono_board.per_row == per_row and screen.mono_board.compact == compact
        slots = [slot for slot in screen.query(MonoBoard) if slot.display]
        assert len(slots) == seats
        whole = app.screen.region
        panel = screen.query_one("#side-panel").region
        for slot in slots:
            assert whole.contains_region(slot.region), slot.region
            assert not slot.region.overlaps(panel)
            assert slot.region.width >= len(slot.text_lines()[2])  # no row is cut
        first, second = slots[0].region, slots[1].region
        assert first.y == second.y and first.right <= second.x  # side by side


async def test_ai_seat_probes_one_at_a_time_without_privacy(tmp_path, monkeypatch):
    class FirstCellsBot:
        level = "normal"

        def choose(self, view):
            if view.phase == "layout":
                return "random"
            if view.open_turn is not None and len(view.open_turn.probes) >= 2:
                return "end"
            cell = min(set(range(view.grid.cells)) - view.probed)
            return f"{view.grid.names[cell]},hold"

    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: FirstCellsBot())
    monkeypatch.setattr("termgames.rules.mono.Mono.ai_move_seconds", 0.0)
    app, match = mono_app(tmp_path, seats=("ann", "bot"), moves=[(0, EXAMPLE)])
    pushed = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.screen_stack[-1]  # the game screen
        for _ in range(30):
            await pilot.pause(0.02)
            pushed.append(type(app.screen).__name__)
        screen = app.screen
        assert isinstance(screen, MonoScreen) and "PrivacyScreen" not in pushed
        assert match.moves[1].move == "random"
        await pilot.press("enter", "e")  # ann probes once and ends; the bot answers probe by probe
        for _ in range(30):
            await pilot.pause(0.02)
        assert [m.move for m in match.moves[4:]] == ["a5,hold", "b5,hold", "end"]
        assert screen.view.viewer == 0 and not isinstance(app.screen, PrivacyScreen)


async def test_replay_shows_one_seat_then_every_board(tmp_path):
    match = Match(Mono(), {"size": 3}, [Seat("ann"), Seat("bob")], 5)
    match.play(0, "122333")
    match.play(1, "333221")
    while not match.over:
        match.play(match.state.to_move()[0], "random")
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="m.json"))

    def rows(screen, seat):  # each row's cells, between the row numbers (roomy spacing: small boards)
        return ["".join(line.replace("*", "").split()[1:-1]) for line in board_slot(screen, seat).text_lines()[2:4]]

    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await pilot.press("G")  # the end, every board
        assert rows(screen, 0) == ["122", "333"] and rows(screen, 1) == ["333", "221"]
        await pilot.press("g", "l", "l", "v")  # after both layouts, as ann: her board only
        assert screen.viewer == 0
        assert rows(screen, 0) == ["122", "333"] and rows(screen, 1) == ["···", "···"]


async def test_the_last_round_is_announced(tmp_path):
    app, match = mono_app(tmp_path, options={"size": 2}, moves=[(0, "122"), (1, "221"), (0, "a1,b1,c1")])
    assert match.state.final_round() and not match.over
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # past the privacy screen: ned's turn, the last of the game
        await pilot.pause()
        legend = panel_text(app.screen, "legend")
        assert "Last round: the game ends after ned's turn" in legend


async def test_a_finished_game_resumes_without_privacy_and_shows_every_board(tmp_path):
    app, match = mono_app(tmp_path, options={"size": 2}, moves=[(0, "122"), (1, "221"), (0, "a1,b1,c1"), (1, "random")])
    assert match.over
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonoScreen)  # nothing is secret any more
        assert screen.view.viewer == -1
        rows = ["".join(board_slot(screen, seat).text_lines()[2].replace("*", "").split()[1:-1]) for seat in (0, 1)]
        assert rows == ["122", "221"]
        assert "Every board" in panel_text(screen, "legend")


async def test_arrows_cross_onto_the_neighbouring_opponent_board(tmp_path):
    layouts = [EXAMPLE, OTHER, EXAMPLE[::-1], OTHER[::-1]]
    app, match = mono_app(tmp_path, seats=("ann", "bob", "cat", "dan"), moves=[(s, layouts[s]) for s in range(4)])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        board = app.screen.mono_board  # ann's board, bob's; cat's, dan's
        assert board.board_seat == 1 and board.per_row == 2
        board.cursor = match.state.grid.index["e1"]
        await pilot.press("down")  # off bob's bottom edge: dan's board, top row
        assert (board.board_seat, board.cursor_name()) == (3, "e5")
        await pilot.press(*["left"] * 5)  # across to cat's right edge
        assert (board.board_seat, board.cursor_name()) == (2, "i5")
        await pilot.press("up")  # ann's own board is not for probing: the cursor stays
        assert (board.board_seat, board.cursor_name()) == (2, "i5")
        await pilot.press("shift+tab")
        assert board.board_seat == 1


async def test_every_region_of_a_35_region_board_can_be_typed_by_its_number(tmp_path):
    from termgames.rules.mono import grid_for, random_layout

    layout = random_layout(35, __import__("random").Random(5))
    app, match = mono_app(tmp_path, options={"size": 35})
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        screen = app.screen
        board = screen.mono_board
        await pilot.press("1")  # region 1, or the start of 10-19: in the cell now, the cursor waits
        assert board.draft[0] == 1 and board.cursor == 0
        assert "1_" in message(screen) and "10-19" in message(screen)  # the pending digit is on show
        await pilot.press("7")
        assert board.draft[0] == 17 and board.cursor == 1 and label(17) == "h"
        await pilot.press("3", "enter")  # Enter keeps the 3 as it is and moves on
        assert board.draft[1] == 3 and board.cursor == 2
        await pilot.press("4")  # no region 40-49 here: 4 goes in at once
        assert board.draft[2] == 4 and board.cursor == 3
        await pilot.press("3", "6")
        assert board.draft[3] == 3 and "no region 36" in message(screen)
        await pilot.press("2", "right")  # an arrow keeps the first digit alone too
        assert board.draft[3] == 2 and board.cursor == 4
        board.cursor = 0
        for value in range(1, 36):  # every label from 1 to z, typed as its number
            digits = str(value)
            await pilot.press(*digits)
            if len(digits) == 1 and value * 10 <= 35:
                await pilot.press("space")
        assert board.draft[:35] == list(range(1, 36)) and board.cursor == 35
        board.draft = list(layout)  # the rest of the board as typed would be (630 cells are slow to press)
        await pilot.press("minus", "plus")
        assert "valid" in message(screen)
        await pilot.press("enter")
        await pilot.pause()
        assert match.moves[0].move == "".join(label(v) for v in layout)
        assert len(match.moves[0].move) == grid_for(35).cells


async def test_random_layout_is_previewed_rolled_again_and_escape_brings_back_the_typed_one(tmp_path):
    app, match = mono_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        board = screen.mono_board
        await pilot.press(*EXAMPLE[:5])
        typed = list(board.draft)
        assert "Esc" not in screen_text(app).splitlines()[-1]  # nothing to go back to yet
        await pilot.press("R")
        first = list(board.draft)
        assert None not in first and match.moves == []  # a preview: nothing is played yet
        assert "R another one" in message(screen) and "Esc" in screen_text(app).splitlines()[-1]
        rolls = {tuple(first)}
        for _ in range(3):
            await pilot.press("R")
            rolls.add(tuple(board.draft))
        assert len(rolls) > 1 and match.moves == []  # R rolls again
        await pilot.press("escape")
        assert board.draft == typed and match.moves == []  # back to what was typed
        await pilot.press("R")
        shown = "".join(label(v) for v in board.draft)
        await pilot.press("enter")
        await pilot.pause()
        assert match.moves[0].move == shown  # Enter confirms the layout on show


async def test_the_overlay_lists_every_candidate_of_the_cursor_cell(tmp_path, monkeypatch):
    app, match = mono_app(tmp_path, moves=[(0, EXAMPLE), (1, OTHER), (0, "a1,hold")])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        screen.mono_board.cursor = match.state.grid.index["c3"]
        await pilot.press("d")
        await app.workers.wait_for_complete()
        await pilot.pause()
        candidates = screen.mono_board.candidates_at_cursor()
        assert candidates is not None and len(candidates) > 1  # the real inference: several values possible
        assert abs(sum(chance for _, chance in candidates) - 1) < 1e-9
        legend = " ".join(panel_text(screen, "legend").split())
        assert "c3 may be:" in legend
        for value, chance in candidates:
            assert f"{label(value)}={chance:.0%}" in legend
        top = candidates[0]
        assert f"{label(top[0])}?" in "\n".join(board_slot(screen, 1).text_lines())  # the board: the likeliest
        await pilot.press("right")
        assert screen.mono_board.candidates_at_cursor() != candidates or "d3 may be" in " ".join(
            panel_text(screen, "legend").split())


async def test_replaying_an_unfinished_hot_seat_game_never_shows_a_hidden_board(tmp_path):
    _app, match = mono_app(tmp_path, moves=[(0, EXAMPLE), (1, OTHER), (0, "a1,hold")])
    assert not match.over
    replay = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="m.json"))
    async with replay.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = replay.screen
        assert isinstance(screen, ReplayScreen) and screen.viewers == [None]  # hot seat: a spectator only
        for _ply in range(4):
            for _turn in range(3):
                assert_hidden(replay, EXAMPLE)
                assert_hidden(replay, OTHER)
                await pilot.press("v")  # any key a replay has
            await pilot.press("l", "n", "c")
            await replay.workers.wait_for_complete()
            await pilot.pause()


async def test_replaying_an_unfinished_game_against_the_computer_shows_the_human_seat_only(tmp_path):
    _app, match = mono_app(tmp_path, seats=("fred", "bot"), moves=[(0, EXAMPLE), (1, OTHER)])
    replay = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="m.json"))
    async with replay.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = replay.screen
        assert screen.viewers == [0, None]
        await pilot.press("G")
        assert " ".join(EXAMPLE[:9]) in screen_text(replay) or EXAMPLE[:9] in screen_text(replay).replace(" ", "")
        assert_hidden(replay, OTHER)  # the computer's board stays hidden
        await pilot.press("n")  # the overlay, as the live game offers it, on the computer's board
        await replay.workers.wait_for_complete()
        await pilot.pause()
        assert "?" in "\n".join(board_slot(screen, 1).text_lines())
        await pilot.press("v", "v")
        assert_hidden(replay, OTHER)


async def test_the_turn_keys_leave_the_footer_while_the_computer_probes(tmp_path, monkeypatch):
    gate = threading.Event()

    class SlowBot:
        level = "normal"

        def choose(self, view):
            assert gate.wait(5)
            return "random"

    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: SlowBot())
    monkeypatch.setattr("termgames.rules.mono.Mono.ai_move_seconds", 0.0)
    app, _match = mono_app(tmp_path, seats=("ann", "bot"), moves=[(0, EXAMPLE), (1, OTHER)])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        assert "Probe" in footer and "End turn" in footer  # ann's turn
        await pilot.press("enter", "e")
        for _ in range(50):
            await pilot.pause(0.02)
            if app.screen.table.thinking:
                break
        assert app.screen.table.thinking
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        assert "Probe" not in footer and "End turn" not in footer and "Random" not in footer
        gate.set()
        for _ in range(50):
            await pilot.pause(0.02)
            if not app.screen.table.thinking:
                break
        await pilot.pause()
        assert "Probe" in screen_text(app).splitlines()[-1]  # ann's turn again


async def test_replay_analysis_goes_round_the_boards_with_Tab_at_three_players(tmp_path):
    """With 3-4 players the replay's overlay covers one board; Tab and Shift+Tab (the live game's keys for the next
    board) move it to the next and back, and the message names the board it covers.  Without it, Tab is the log's."""
    from termgames.widgets.move_log import MoveLog

    _app, match = mono_app(tmp_path, seats=("ann", "bob", "cat"), moves=[(0, EXAMPLE), (1, OTHER), (2, EXAMPLE)])
    replay = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="m.json"))
    async with replay.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = replay.screen
        assert screen.viewers == [None]  # hot seat, unfinished: a spectator (ann to probe: bob's board first)
        await pilot.press("G", "n")
        await replay.workers.wait_for_complete()
        await pilot.pause()

        def overlaid() -> list[int]:
            return [seat for seat in range(3) if "?" in "\n".join(board_slot(screen, seat).text_lines())]

        assert overlaid() == [1] and "bob's board" in message(screen)
        await pilot.press("tab")
        await replay.workers.wait_for_complete()
        await pilot.pause()
        assert overlaid() == [2] and "cat's board" in message(screen) and replay.focused is not screen.query_one(
            MoveLog)
        await pilot.press("shift+tab")
        await replay.workers.wait_for_complete()
        await pilot.pause()
        assert overlaid() == [1]
        await pilot.press("n")  # the overlay off: Tab is the log's again
        assert overlaid() == [] and "board" not in message(screen)
        await pilot.press("tab")
        assert replay.focused is screen.query_one(MoveLog)


@pytest.mark.parametrize("players", [2, 3])
def test_a_board_whose_inputs_are_unchanged_draws_the_same(players):
    """``MonoBoard.paint`` skips a board whose ``board_inputs`` did not change: over random games, from every
    seat's view and a spectator's, such a board's lines must be the lines a fresh drawing gives."""
    from termgames.widgets.mono_board import Look, board_inputs, board_lines

    rng = random.Random(players)
    names = ["ann", "bob", "cid"][:players]
    for game in range(4):
        match = Match("mono", {"size": 5}, [Seat(name=name) for name in names], seed=game)
        viewers: list[int | None] = [*range(players), None]
        board = MonoBoard()
        before = {viewer: match.view(viewer) for viewer in viewers}
        while not match.over:
            seat = match.state.to_move()[0]
            match.play(seat, match.state.random_move(seat, rng))
            for viewer in viewers:
                view = match.view(viewer)
                for shown in range(players):
                    if before[viewer].grid is None or board_inputs(before[viewer], shown) != board_inputs(view, shown):
                        continue
                    look = Look(recent=frozenset())
                    assert board_lines(board, before[viewer], shown, look) == board_lines(board, view, shown, look)
                before[viewer] = view


async def test_the_captions_kept_over_scrolled_boards_follow_the_score(tmp_path, monkeypatch):
    """At 80x24 the boards of 35 regions scroll and their captions are kept at the window's top: they say the
    score and the cells still hidden after each turn, not what they said when the board first scrolled (issue 25,
    1)."""
    monkeypatch.setattr(Mono, "ai_move_seconds", 0.0)
    layout = snake_layout(35)
    app, match = mono_app(tmp_path, seats=("me", "bot"), options={"size": 35}, moves=[(0, layout), (1, layout)])
    async with app.run_test(size=(80, 24)) as pilot:
        terminal = Terminal(app)
        for _ in range(3):
            await pilot.pause()
        screen = app.screen
        for _ in range(9):  # the bottom row: the board scrolls past its caption, which is kept in sight
            await pilot.press("down")
        await pilot.pause()
        slot = board_slot(screen, 1)
        assert slot.visible_window() is not None and slot.visible_window().y > 0
        await pilot.press("enter", "e")  # probe a cell, end the turn; the computer plays its own
        for _ in range(40):
            await pilot.pause(0.02)
            if len(match.moves) >= 4 and not screen.table.thinking:
                break
        await pilot.pause()
        view = screen.table.view(None)
        assert len(view.turns) == 2
        shown = terminal.text()
        assert shown.splitlines() == screen_text(app).splitlines()
        # The board in sight, its caption kept at the window's top (its right end, the cells hidden, is cut
        # off with the board's last columns): the score of the turn just played.
        assert re.search(rf"\bbot = {int(view.scores[1])}\b", shown.splitlines()[1]) and view.scores[1] > 0, shown
