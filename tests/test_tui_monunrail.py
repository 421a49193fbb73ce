"""MonUnrail's screen, driven by the keyboard: placing, live checks, the pie swap, Impossible, unrailing, the hint."""

from __future__ import annotations

from pathlib import Path

from tui import board_text, panel_text, settle

from termgames.app import TermgamesApp
from termgames.launch import Launch
from termgames.match import Match, Seat
from termgames.records import load
from termgames.screens.dialogs import ConfirmScreen
from termgames.screens.monunrail import MonUnrailScreen

#: Four placements that close the loop D2-E2 ... D6-E6 around the starting tiles; the last completes it.
LOOP = ["D2:T-se,D3:S-v", "E2:T-sw,E3:S-v", "D5:S-v,D6:T-ne", "E5:S-v,E6:T-nw"]


def new_app(tmp_path: Path, moves=(), options=None, ascii=False) -> tuple[TermgamesApp, Match, Path]:
    match = Match("monunrail", options or {}, [Seat("ann"), Seat("bob")], 5)
    for ply, move in enumerate(moves):
        match.play(ply % 2, move)
    path = tmp_path / "game.json"
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=path), ascii=ascii)
    return app, match, path


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def test_a_placement_by_keyboard_previewed_then_placed(tmp_path):
    app, match, path = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonUnrailScreen)
        board = screen.rail_board
        assert board.cursor_name() == "D3"
        await pilot.press("t")  # turns: the first that fits D3 (track comes up from D4)
        assert board.chosen == "T-se"
        await pilot.press("r")
        assert board.chosen == "T-sw"
        await pilot.press("space")  # D3:T-sw into the move
        await pilot.press("h", "t", "t")  # C3: past the crossroads to the straight that fits
        assert board.chosen == "S-h"
        await pilot.press("space")
        await pilot.pause()
        assert board.pending_text() == "C3:S-h,D3:T-sw"
        assert "═" in board_text(app)  # the move is drawn before it is placed
        assert "Enter places C3:S-h,D3:T-sw" in text_of(app, "#message")
        assert "C3:S-h,D3:T-sw" in panel_text(app.screen, "legend")
        assert match.moves == []
        await pilot.press("enter")
        await pilot.pause()
        assert [m.move for m in match.moves] == ["C3:S-h,D3:T-sw"]
        assert board.pending == {}
        assert "Pie" in panel_text(app.screen, "legend")  # bob is offered the swap
    assert [m.move for m in load(path).moves] == ["C3:S-h,D3:T-sw"]


async def test_space_again_takes_a_tile_back_and_escape_clears(tmp_path):
    app, match, _ = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        board = app.screen.rail_board
        await pilot.press("space", "k", "space")
        assert board.pending_text() == "D2:S-v,D3:S-v"
        await pilot.press("space")
        assert board.pending_text() == "D3:S-v"
        await pilot.press("escape")
        assert board.pending == {}
    assert match.moves == []


async def test_an_illegal_placement_is_explained_and_not_applied(tmp_path):
    app, match, path = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not path.exists()  # no record before the first move
        board = app.screen.rail_board
        await pilot.press("k", "k", "h", "h", "h")  # A1, far from every tile
        assert board.cursor_name() == "A1"
        await pilot.press("space")
        await pilot.pause()
        assert "Not yet: at least one tile must be placed next to a tile" in text_of(app, "#message")
        await pilot.press("enter")
        await pilot.pause()
        assert "at least one tile must be placed next to a tile on the board" in text_of(app, "#message")
        assert board.pending_text() == "A1:S-v"  # kept, to be mended
        # A tile whose track runs into the blank side of a starting tile: the rules' reason, word for word.
        await pilot.press("escape", "j", "j", "j", "l", "l")
        assert board.cursor_name() == "C4"
        board.chosen = "S-h"
        await pilot.press("space")
        await pilot.pause()
        assert "S-h on C4 points east into the blank west side of D4" in text_of(app, "#message")
        await pilot.press("enter")
        await pilot.pause()
    assert match.moves == []
    assert not path.exists()  # nothing was applied, so nothing saved


async def test_the_pie_swap(tmp_path):
    app, match, _ = new_app(tmp_path, moves=LOOP[:1])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "s takes ann's opening" in panel_text(app.screen, "legend")
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert match.moves[-1].move == "swap"
        assert match.state.to_move() == (0,)
        assert "opening is bob's" in panel_text(app.screen, "legend")
        await pilot.press("s")  # offered once only
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
    assert len(match.moves) == 2


async def test_completing_by_keyboard_then_a_removal(tmp_path):
    app, match, _ = new_app(tmp_path, moves=LOOP[:3])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        board = app.screen.rail_board
        await pilot.press("l", "j", "j", "space", "j", "t", "space")  # E5:S-v, then E6: the turn that fits
        await pilot.pause()
        assert "and completes the track" in text_of(app, "#message")
        await pilot.press("enter")
        await pilot.pause()
        assert match.state.phase == "unrailing"
        assert "Unrailing: ann to remove" in panel_text(app.screen, "status")
        # ann removes D2 and D3, picked with Space.
        await pilot.press("h", "k", "k", "k", "k")
        assert board.cursor_name() == "D2"
        await pilot.press("space", "j", "space")
        await pilot.pause()
        assert "Enter removes D2,D3" in text_of(app, "#message")
        await pilot.press("enter")
        await pilot.pause()
        assert match.moves[-1].move == "D2,D3"
        assert app.screen.board.text_lines()[4][20] == "·"  # D2's middle is empty now
        # A line with a gap is refused with the rules' reason.
        await pilot.press("l", "k", "space", "j", "j", "space", "enter")
        await pilot.pause()
        assert "leave a gap" in text_of(app, "#message")
        assert match.moves[-1].move == "D2,D3"


async def test_the_hint_shows_the_nimber_and_marks_winning_moves(tmp_path):
    app, _match, _ = new_app(tmp_path, moves=LOOP)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await settle(pilot, 30)
        legend = " ".join(panel_text(app.screen, "legend").split())
        # A forecast for the player to move, not a result ("ann wins." read as one: issue 25, 10); a 2 x 5 block.
        assert "Nimber 2: ann (to move) can win with best play" in legend and "wins" not in legend
        assert "D2,D3" in legend
        assert "!" in board_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert "Nimber" not in panel_text(app.screen, "legend")


async def test_the_hint_keeps_what_it_solved_for_the_next_game(tmp_path, monkeypatch):
    from termgames import solver_cache
    from termgames.rules.monunrail.solver import Solver

    cache = tmp_path / "nimbers.json.gz"
    monkeypatch.setenv("TERMGAMES_SOLVER_CACHE", str(cache))
    app, _match, _ = new_app(tmp_path, moves=LOOP)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await settle(pilot, 30)
        assert "Nimber 2" in panel_text(app.screen, "legend")
    later = Solver()
    assert solver_cache.load(later, cache) > 0


async def test_the_building_hint_lists_completing_moves(tmp_path):
    app, _match, _ = new_app(tmp_path, moves=LOOP[:3])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await settle(pilot, 30)
        legend = panel_text(app.screen, "legend")
        assert "E5:S-v,E6:T-nw 2" in legend


async def test_impossible_shows_the_completion_found(tmp_path):
    app, match, _ = new_app(tmp_path, moves=["D3:T-se,E3:T-sw", "D5:T-ne"])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot, 30)
        assert match.moves[-1].move == "impossible"
        assert match.state.winner == 1
        assert "Completion found: 1 tile" in panel_text(app.screen, "legend")
        lines = app.screen.board.text_lines()
        assert "══╝" in lines[13]  # E5:T-nw drawn on row 5's middle line


async def test_impossible_when_no_completion_exists(tmp_path):
    app, match, _ = new_app(tmp_path, moves=["D3:T-sw"], options={"straights": 0, "turns": 4, "crossroads": 0})
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("i", "y")
        await settle(pilot, 30)
        assert match.state.winner == 1
        assert "No completion exists" in panel_text(app.screen, "legend")
        assert "bob wins" in panel_text(app.screen, "status")


async def test_ascii_board_has_no_box_drawing(tmp_path):
    app, _, _ = new_app(tmp_path, moves=LOOP[:2], ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = board_text(app)
        assert text.isascii()
        assert "/----\\" in text  # D2:T-se and E2:T-sw


async def test_a_click_moves_the_cursor(tmp_path):
    app, _, _ = new_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        board = app.screen.rail_board
        # F6's middle: 3 columns of row numbers, 5 a cell; 3 lines a row; the board's padding is 1.
        await pilot.click("#board", offset=(1 + 3 + 5 * 5 + 2, 3 * 5 + 1))
        await pilot.pause()
        assert board.cursor_name() == "F6"


async def test_the_computer_player_answers_in_its_thread(tmp_path, monkeypatch):
    monkeypatch.setattr("termgames.rules.monunrail.MonUnrail.ai_move_seconds", 0.0)
    match = Match("monunrail", {}, [Seat("ann"), Seat("cpu", "ai", "easy")], 5)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=tmp_path / "g.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("space", "k", "t", "space", "enter")  # D2:T-se,D3:S-v
        for _ in range(100):
            await pilot.pause(0.05)
            if len(match.moves) == 2:
                break
        assert [m.seat for m in match.moves] == [0, 1]
        assert app.screen.view.to_move == (0,)


async def test_the_swap_is_not_offered_while_the_computer_thinks(tmp_path, monkeypatch):
    import threading

    gate = threading.Event()
    asked = threading.Event()

    class SlowSwapper:
        level = "normal"

        def choose(self, view):
            asked.set()
            assert gate.wait(5)
            return "swap"

    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: SlowSwapper())
    monkeypatch.setattr("termgames.rules.monunrail.MonUnrail.ai_move_seconds", 0.0)
    match = Match("monunrail", {}, [Seat("ann"), Seat("cpu", "ai", "normal")], 5)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=tmp_path / "g.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        screen.submit(LOOP[0])  # ann opens; the computer may swap and thinks about it
        for _ in range(100):
            if asked.is_set():
                break
            await pilot.pause(0.02)
        await pilot.pause()
        assert screen.table.thinking
        assert screen.check_action("swap", ()) is False  # the footer offers ann no swap: it is not hers
        footer = screen._compositor.render_strips()[-1].text
        assert "Swap" not in footer
        assert "Place" not in footer and "Tile" not in footer and "Impossible" not in footer  # none is hers now
        legend = " ".join(panel_text(app.screen, "legend").split())
        assert "Pie: cpu may take ann's opening" in legend and "s takes" not in legend  # told of, not offered
        await pilot.press("s")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        gate.set()
        await settle(pilot)
        assert match.moves[-1].move == "swap"


async def test_a_replay_shows_the_hint_of_the_position_on_screen(tmp_path):
    from termgames.screens.replay import ReplayScreen

    match = Match("monunrail", {}, [Seat("ann"), Seat("bob")], 5)
    for ply, move in enumerate(LOOP):
        match.play(ply % 2, move)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="game.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert "Hint" in str(screen._compositor.render_strips()[-1].text)  # the footer offers it
        await pilot.press("G", "n")  # the end: unrailing, ann to remove
        await settle(pilot, 30)
        legend = " ".join(panel_text(app.screen, "legend").split())
        assert "Nimber 2: ann (to move) can win" in legend and "D2,D3" in legend
        assert "!" in board_text(app)  # the winning moves marked, as in the game
        await pilot.press("h")  # one move back: building, the moves that complete the track
        await settle(pilot, 30)
        legend = " ".join(panel_text(app.screen, "legend").split())
        assert "Nimber" not in legend and "E5:S-v,E6:T-nw 2" in legend
        await pilot.press("n")
        await pilot.pause()
        assert "E5:S-v" not in panel_text(app.screen, "legend")  # off again


def shown_lines(app, selector: str) -> list[str]:
    """The lines a widget shows on the terminal, as the player reads them."""
    region = app.screen.query_one(selector).content_region
    strips = app.screen._compositor.render_strips()
    return [strips[y].text[region.x : region.right].rstrip() for y in range(region.y, region.bottom)]


async def test_the_hint_wraps_at_words_in_a_narrow_panel(tmp_path):
    app, _match, _ = new_app(tmp_path, moves=LOOP[:3])
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        app.screen.query_one("#side-panel").styles.width = 24  # 21 columns of text
        await pilot.press("n")
        await settle(pilot, 30)
        lines = shown_lines(app, "#panel-info")
        text = " ".join(" ".join(lines).split())
        assert "Completing moves, and the value they leave (0 wins):" in text
        start = next(i for i, line in enumerate(lines) if line.startswith("Completing"))
        # Filled at words: each line took every word that fitted (no line broken where the text was written for
        # a wider panel), and no word is cut.
        assert lines[start : start + 3] == ["Completing moves, and", "the value they leave", "(0 wins):"]


async def test_the_line_under_the_board_is_cleared_when_the_computer_answers(tmp_path, monkeypatch):
    """The check of the move being built ("Enter places D2:...") said nothing once the move was placed and
    answered: it stayed on screen, describing a move already played, until a key said something else."""

    class Answer:
        level = "normal"

        def choose(self, view):
            return "swap"

    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: Answer())
    monkeypatch.setattr("termgames.rules.monunrail.MonUnrail.ai_move_seconds", 0.0)
    match = Match("monunrail", {}, [Seat("ann"), Seat("cpu", "ai", "normal")], 5)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=tmp_path / "g.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        board = screen.rail_board
        await pilot.press("t", "space")
        assert text_of(app, "#message").startswith("Enter places")
        await pilot.press("enter")
        await settle(pilot)
        assert [m.move for m in match.moves] == ["D3:T-se", "swap"] and not board.pending
        assert text_of(app, "#message") == ""  # nothing pending: nothing to say


async def test_a_refusal_is_cleared_by_the_next_cursor_move_in_every_game(tmp_path):
    from termgames.screens.mono import MonoScreen

    EXAMPLE = "666699777664999787344999787342955888312555888"
    OTHER = "666991444699999954677779552688777532888888533"
    games = [("copolymer", {"size": 5}, []), ("mono", {}, [(0, EXAMPLE), (1, OTHER)]), ("monunrail", {}, [])]
    for name, options, moves in games:
        match = Match(name, options, [Seat("ann"), Seat("bob")], 5)
        for seat, move in moves:
            match.play(seat, move)
        app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            if not isinstance(app.screen, MonUnrailScreen | MonoScreen) and name == "mono":
                await pilot.press("enter")  # past the privacy screen
                await pilot.pause()
            screen = app.screen
            screen.say("It is a refusal about the last key")
            await pilot.pause()
            assert "refusal" in text_of(app, "#message"), name
            await pilot.press("right")
            await pilot.pause()
            assert "refusal" not in text_of(app, "#message"), name


async def test_a_replay_offers_the_hint_only_where_the_position_has_one(tmp_path):
    """At the end of a finished game there is nothing to hint: the footer does not offer n there, and n does nothing."""
    from termgames.cli_base import load_record
    from termgames.screens.replay import ReplayScreen

    match = load_record(Path(__file__).parent.parent / "saves" / "monunrail-ada-vs-hal.json")  # a finished game
    assert match.over
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="game.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        footer = lambda: str(screen._compositor.render_strips()[-1].text)  # noqa: E731
        assert "Hint" in footer()
        await pilot.press("G")
        await pilot.pause()
        assert "Hint" not in footer()
        await pilot.press("n")
        assert not screen.analysing
        await pilot.press("h")
        await pilot.pause()
        assert "Hint" in footer()


async def test_turning_the_hint_off_gives_its_lines_back(tmp_path):
    """The hint's lines stayed as blank lines once n turned it off: the last action and the log stayed pushed down
    for the rest of the game (issue 25, 4)."""
    app, _match, _ = new_app(tmp_path, moves=LOOP)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        log = app.screen.query_one("#move-log")
        before = log.region.y
        await pilot.press("n")
        await settle(pilot, 30)
        assert "Nimber" in panel_text(app.screen, "legend") and log.region.y > before
        await pilot.press("n")
        await settle(pilot, 3)
        assert log.region.y == before
        assert "E5:S-v,E6:T-nw" in "\n".join(shown_lines(app, "#panel-info"))  # the last action in sight again


async def test_the_hint_breaks_a_move_between_its_tiles_never_inside_one(tmp_path):
    """A move longer than the panel is wide broke mid-tile ("F6:S-" then "h"): it breaks after a comma."""
    import re

    app, _match, _ = new_app(tmp_path, moves=LOOP[:3])
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        app.screen.query_one("#side-panel").styles.width = 15  # 12 columns of text: no whole move fits
        await pilot.press("n")
        await settle(pilot, 30)
        lines = shown_lines(app, "#panel-info")
        assert any("E6:T-nw" in line for line in lines)
        for line in lines:
            for tile in re.findall(r"\b[A-H][1-7]:\S*", line):
                assert re.fullmatch(r"[A-H][1-7]:(S-[hv]|T-(ne|nw|se|sw)|X),?", tile), lines


async def test_after_undo_and_another_line_as_long_the_hint_is_the_new_positions(tmp_path):
    """Issue 33, 1: the hint was cached by (moves played, phase); after `u` `u` and another line of two moves it
    still said the track could not be completed, where F4:S-v,F5:T-nw completes it (and `i` then lost)."""
    record = Path(__file__).parent / "data" / "monunrail-stale-hint.json"
    path = tmp_path / "game.json"
    path.write_bytes(record.read_bytes())
    match = load(path)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=path))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert "cannot be completed" in panel_text(app.screen, "legend")  # the line played: true there
        await pilot.press("u")
        await settle(pilot)
        await pilot.press("u")
        await app.workers.wait_for_complete()
        await settle(pilot)
        table = app.screen.table
        table.play(0, "E6:T-nw")
        await app.workers.wait_for_complete()
        await settle(pilot)
        table.play(1, "F1:T-sw,F2:S-v,F3:S-v")
        await app.workers.wait_for_complete()
        await settle(pilot)
        legend = " ".join(panel_text(app.screen, "legend").split())
        assert "cannot be completed" not in legend
        assert "F4:S-v,F5:T-nw" in legend
