"""Every terminal size (issue 15, section 1), for every game screen, its replay and the shared table.

At 80x24 and at each screen's stated minimum, on the largest board: the cursor stays in sight at the
board's far corners, clear of the labels kept at the board area's edges, and the line naming its cell
stays on screen; the footer fits 80 columns.  Below the minimum the screen says "terminal too small:
needs W x H, is w x h" instead, and comes back whole when the terminal grows.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from games import PerGame, SmallBoard
from textual.geometry import Region
from textual.widgets import Static
from tui import QUICK, finished_match, settle, snake_layout

from termgames.app import TermgamesApp
from termgames.launch import Launch
from termgames.match import Match, SeatInfo
from termgames.screens.base import SizedScreen
from termgames.screens.game import GameScreen
from termgames.widgets.board import BoardArea, BoardWidget
from termgames.widgets.footer import Footer, FooterItem

#: Each game with a screen on its largest board (tests/games/NAME.py says what the tuple holds).
LARGEST = PerGame("LARGEST", screens_only=True)


@pytest.fixture(autouse=True)
def quick_ai(monkeypatch):
    monkeypatch.setattr("termgames.rules.mono.Mono.ai_move_seconds", 0.0)


def game_app(tmp_path: Path, game: str, ascii: bool = False) -> TermgamesApp:
    options, names, _keys, _labels, _far = LARGEST[game]
    seats = [SeatInfo(name.split(":")[0], "ai", "easy") if name.endswith(":ai") else SeatInfo(name) for name in names]
    match = Match(game, options, seats, 4)
    if game == "mono":
        # Both layouts made already (a random one of 35 regions takes seconds): probing, my turn.
        layout = snake_layout(options["size"])
        match.play(0, layout)
        match.play(1, layout)
    return TermgamesApp(saves_dir=tmp_path, ascii=ascii, launch=Launch("play", match=match, save_path=None))


def screen_lines(app) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def notice(app) -> str:
    """The too-small notice, its lines joined (it breaks between its phrases where the terminal is narrow)."""
    return " ".join(str(app.screen.query_one("#too-small", Static).render()).split())


async def start(pilot, game: str) -> GameScreen:
    await settle(pilot, 5)
    for key in LARGEST[game][2]:
        await pilot.press(key)
        await settle(pilot, 10)
    screen = pilot.app.screen
    assert isinstance(screen, GameScreen)
    return screen


def board_widgets(screen: GameScreen) -> list[BoardWidget]:
    board = screen.board
    return [board] if isinstance(board, BoardWidget) else [w for w in board.query(BoardWidget) if w.display]


def check_cursor_in_sight(app, game: str) -> None:
    """The cursor is inside the board area's window, under no label kept there; its line is on screen."""
    screen = app.screen
    board = screen.board
    region = board.cursor_region()
    if region is None and isinstance(board, BoardWidget):
        # Mosaic's board keeps its cursor in sight itself (it says None): where it drew it.
        region = BoardWidget.cursor_region(board)
    assert region is not None
    on_screen = region.translate(board.content_region.offset)
    lines = screen_lines(app)
    width, height = app.size
    areas = list(screen.query(BoardArea).filter("#board-area"))
    if areas:
        window = areas[0].scrollable_content_region
        assert window.contains_region(on_screen), (on_screen, window)
        for widget in board_widgets(screen):
            labels = widget.pinned_labels()
            shown = widget.region.intersection(window)
            if shown.height <= labels.top + 1:
                continue  # (almost) out of the window: nothing of it kept in sight
            if widget.region.y < window.y and labels.top:
                band = Region(window.x, window.y, window.width, labels.top)
                assert not band.overlaps(on_screen)
                # The column labels are drawn there, on the window's first lines.
                pattern = LARGEST[game][3]
                if pattern:
                    top_lines = [lines[window.y + i][window.x : window.right] for i in range(labels.top)]
                    assert any(re.search(pattern, line) for line in top_lines), top_lines
            if widget.region.x < window.x and labels.left and widget.region.contains_region(on_screen):
                band = Region(window.x, window.y, labels.left, window.height)
                assert not band.overlaps(on_screen)
                if widget.label_columns:
                    # The cursor's row number is drawn at the window's left.
                    # (Monad's marks the cursor's row with a ">" after its number: colour is not the only signal.)
                    assert lines[on_screen.y][window.x : window.x + labels.left].strip(" >").isdigit()
        if game == "copolymer":
            # The cursor's row letter, in its place or kept at the window's left edge.
            row_letter = board.cursor_name()[0]
            assert row_letter in lines[on_screen.y][window.x : on_screen.x], lines[on_screen.y]
    else:
        assert board.content_region.contains_region(on_screen)
        assert Region(0, 0, width, height).contains_region(on_screen)
    # The line naming the cursor's cell is on screen and names it.
    cursor_line = screen.query_one("#cursor-line", Static)
    assert 0 <= cursor_line.region.y < height and cursor_line.region.height == 1
    name = board.cursor_name()
    assert name and name in lines[cursor_line.region.y], (name, lines[cursor_line.region.y])


async def visit_corners(pilot, game: str, corners: int = 4) -> None:
    """The cursor to the board's top left corner, then round the corners clockwise, checked at each."""
    rows, columns = LARGEST[game][4]
    steps = [("up", rows, "left", columns), ("right", columns), ("down", rows), ("left", columns)][:corners]
    screen = pilot.app.screen
    for step in steps:
        for key, count in zip(step[::2], step[1::2]):
            # All but the last step straight through the key's action (no frame drawn between them: a
            # big board's frame costs a tenth of a second), the last by the key itself.
            for _ in range(count - 1):
                screen.action_cursor(key)
            await pilot.press(key)
        await settle(pilot, 3)
        check_cursor_in_sight(pilot.app, game)


def footer_keys(app) -> list[FooterItem]:
    """The keys the screen's footer draws, checked against the screen: each whole, on its line, within the width."""
    footer = app.screen.query_one(Footer)
    shown = footer.fitting(footer.size.width)
    assert shown and sum(item.width for item in shown) <= footer.size.width
    assert screen_lines(app)[footer.region.y].rstrip() == footer.text().rstrip()
    return shown


def minimum(game: str) -> tuple[int, int]:
    from termgames.games import GAMES

    return GAMES[game].screen_class().MINIMUM_SIZE


@pytest.mark.parametrize("game", list(LARGEST))
async def test_cursor_and_its_line_stay_in_sight_at_80x24_and_at_the_minimum(tmp_path, game):
    for size in ((80, 24), minimum(game)):
        app = game_app(tmp_path, game)
        async with app.run_test(size=size) as pilot:
            screen = await start(pilot, game)
            assert not screen.too_small()
            await visit_corners(pilot, game)


@pytest.mark.parametrize("game", list(LARGEST))
async def test_footer_fits_80_columns(tmp_path, game):
    app = game_app(tmp_path, game)  # the footer is the same on any board
    async with app.run_test(size=(80, 24)) as pilot:
        await start(pilot, game)
        assert max(len(line) for line in screen_lines(app)) <= 80
        assert footer_keys(app)


@pytest.mark.parametrize("game", list(LARGEST))
async def test_too_small_says_so_and_comes_back_whole(tmp_path, game):
    need_width, need_height = minimum(game)
    app = game_app(tmp_path, game, ascii=True)
    async with app.run_test(size=(30, 10)) as pilot:
        await start(pilot, game)
        screen = app.screen
        assert screen.too_small()
        assert notice(app) == f"terminal too small: needs {need_width} x {need_height}, is 30 x 10"
        assert notice(app).isascii()
        assert not screen.query_one("#game-body").display and not screen.query_one(Footer).display
        shown = "\n".join(screen_lines(app))
        assert "terminal too small" in shown and "Quit" not in shown
        # Keys make no move on a board nobody sees.
        name, moves = screen.board.cursor_name(), len(screen.table.view(None).moves)
        await pilot.press("up", "left", "enter", "space")
        await settle(pilot, 2)
        assert screen.board.cursor_name() == name and len(screen.table.view(None).moves) == moves
        # Larger: the whole screen, the cursor in sight.
        await pilot.resize_terminal(80, 24)
        await settle(pilot, 3)
        assert not screen.too_small() and screen.query_one("#game-body").display
        assert "terminal too small" not in "\n".join(screen_lines(app))
        await visit_corners(pilot, game, corners=3)  # the far corner: the bottom right
        # One column short of the minimum, then exactly the minimum.
        await pilot.resize_terminal(need_width - 1, need_height)
        await settle(pilot, 2)
        needs = f"needs {need_width} x {need_height}"
        assert notice(app) == f"terminal too small: {needs}, is {need_width - 1} x {need_height}"
        assert screen.too_small()
        await pilot.resize_terminal(need_width, need_height)
        await settle(pilot, 3)
        assert not screen.too_small()
        check_cursor_in_sight(app, game)


def test_every_game_screen_states_a_minimum():
    from termgames.games import GAMES

    for descriptor in GAMES.values():
        screen_class = descriptor.screen_class()
        assert issubclass(screen_class, SizedScreen)
        width, height = screen_class.MINIMUM_SIZE
        assert 30 < width <= 80 and 10 < height <= 24


def test_the_shared_table_needs_its_two_lines_more():
    from termgames.screens.mono import MonoScreen
    from termgames.server.ui.shared_game import shared_screen_class

    shared = shared_screen_class(MonoScreen)
    screen = shared.__new__(shared)  # minimum_size reads only the class: no table needed
    assert shared.minimum_size(screen) == (MonoScreen.MINIMUM_SIZE[0], MonoScreen.MINIMUM_SIZE[1] + 2)


async def test_monunrail_marks_never_cover_the_column_letters(tmp_path):
    app = game_app(tmp_path, "monunrail")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(pilot, "monunrail")
        for _ in range(8):
            await pilot.press("up")
        await pilot.press("space")  # a pending tile, with its marks, on row 1 too
        await pilot.press("right", "right")
        await settle(pilot, 2)
        assert screen.board.cursor_name().endswith("1")
        letters = screen.board.text_lines()[0]
        assert letters.split() == list("ABCDEFGH"), letters


async def test_replay_says_too_small_and_comes_back(tmp_path):
    match = Match("mono", {"size": 35}, [SeatInfo("me"), SeatInfo("you")], 4)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="m.json"))
    async with app.run_test(size=(40, 12)) as pilot:
        await settle(pilot, 3)
        assert notice(app) == "terminal too small: needs 50 x 19, is 40 x 12"
        await pilot.resize_terminal(80, 24)
        await settle(pilot, 3)
        assert not app.screen.too_small() and "Replay" in screen_lines(app)[0]
        assert footer_keys(app)
        await pilot.resize_terminal(40, 12)
        await settle(pilot, 2)
        assert app.screen.too_small()


async def test_monad_watch_says_too_small_and_comes_back(tmp_path):
    from termgames.screens.monad import replay_screen

    match = Match("monad", {}, [SeatInfo("me"), SeatInfo("you")], 4)
    app = TermgamesApp(saves_dir=tmp_path)
    async with app.run_test(size=(30, 10)) as pilot:
        await settle(pilot, 2)
        await app.push_screen(replay_screen(match))
        await settle(pilot, 3)
        assert notice(app) == "terminal too small: needs 50 x 18, is 30 x 10"
        await pilot.resize_terminal(80, 24)
        await settle(pilot, 3)
        assert not app.screen.too_small() and app.screen.board.region.height > 0
        assert footer_keys(app)


async def test_shared_table_says_too_small_and_keeps_its_lines(tmp_path):
    from termgames.server.hub import Hub
    from termgames.server.stores.sqlite import Store
    from termgames.server.ui.app import ServeApp
    from termgames.server.ui.lobby import CreateTableScreen
    from termgames.server.ui.shared_game import SharedGameMixin

    hub = Hub(Store(tmp_path / "termgames.db"), tmp_path / "records")
    app = ServeApp(hub=hub, player="alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await settle(pilot, 3)
        await pilot.press("enter")  # the first game: Copolymer
        await settle(pilot, 3)
        assert isinstance(app.screen, CreateTableScreen)
        await pilot.press("ctrl+s")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, SharedGameMixin)
        need_width, need_height = screen.minimum_size()
        assert (need_width, need_height) == (50, 22)
        assert footer_keys(app)
        await pilot.resize_terminal(need_width, need_height - 1)
        await settle(pilot, 3)
        assert notice(app) == f"terminal too small: needs 50 x 22, is 50 x {need_height - 1}"
        await pilot.resize_terminal(need_width, need_height)
        await settle(pilot, 3)
        assert not screen.too_small()
        lines = screen_lines(app)
        for selector in ("#presence", "#chat-log", "#cursor-line"):
            widget = screen.query_one(selector)
            assert widget.region.height and widget.region.bottom <= need_height
        assert "chat with the table" in "\n".join(lines)
        check_cursor_in_sight(app, "copolymer")


@pytest.mark.parametrize("game", list(QUICK))
async def test_footer_fits_80_columns_when_the_game_is_over(tmp_path, game):
    match = finished_match(game)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        assert max(len(line) for line in screen_lines(app)) <= 80
        assert footer_keys(app)


async def test_a_resize_under_a_dialog_is_seen_when_the_dialog_closes(tmp_path):
    from termgames.screens.dialogs import HelpScreen

    app = game_app(tmp_path, "copolymer")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(pilot, "copolymer")
        await pilot.press("question_mark")
        await settle(pilot, 3)
        assert isinstance(app.screen, HelpScreen)
        await pilot.resize_terminal(40, 12)
        await settle(pilot, 2)
        await pilot.press("escape")
        await settle(pilot, 3)
        assert app.screen is screen and screen.too_small()
        assert notice(app) == "terminal too small: needs 50 x 20, is 40 x 12"


async def test_a_click_on_the_labels_kept_in_sight_is_no_cells(tmp_path):
    app = game_app(tmp_path, "monunrail")
    # 80x20: the compact board (three lines a row) scrolls; at 50x20 the board is drawn a line a row and fits whole.
    async with app.run_test(size=(80, 20)) as pilot:
        screen = await start(pilot, "monunrail")
        await visit_corners(pilot, "monunrail", corners=3)  # the bottom right: the board scrolled down
        board = screen.board
        name = board.cursor_name()
        window = board.visible_window()
        assert window is not None and window.y > 0 and board.under_labels(10, window.y)
        # The column letters on the window's top line: a click there leaves the cursor alone ...
        await pilot.click(board, offset=(board.content_offset.x + 10, window.y))
        await settle(pilot, 2)
        assert board.cursor_name() == name
        # ... and a click on a cell below them moves it.
        await pilot.click(board, offset=(board.content_offset.x + 10, window.bottom - 2))
        await settle(pilot, 2)
        assert board.cursor_name() != name


async def test_copolymer_row_letters_stay_at_the_left_edge(tmp_path):
    app = game_app(tmp_path, "copolymer")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(pilot, "copolymer")
        # The middle row, the widest: at its right end its letter has scrolled off the left.
        for key, count in (("up", 25), ("down", 12), ("right", 25)):
            for _ in range(count - 1):
                screen.action_cursor(key)
            await pilot.press(key)
        await settle(pilot, 3)
        area = screen.query_one("#board-area", BoardArea)
        assert screen.board.cursor_name() == "N25" and area.scroll_x > 0
        check_cursor_in_sight(app, "copolymer")
        window = area.scrollable_content_region
        line = screen_lines(app)[screen.board.cursor_region().translate(screen.board.content_region.offset).y]
        assert line[window.x] == "N", line


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_mono_keeps_its_bottom_letters_in_sight_and_draws_no_scroll_bar(tmp_path, size):
    """Scrolled above a big board's last row, Mono shows its column letters at the window's bottom, as at its top;
    the board area shows no scroll bar (its thumb's end was a stray mark under the boards) and keeps no room for one."""
    app = game_app(tmp_path, "mono")
    async with app.run_test(size=size) as pilot:
        screen = await start(pilot, "mono")
        for _ in range(17):
            screen.action_cursor("up")
        await pilot.press("up")  # the top row of the opponent's board: its bottom rows are out of sight
        await settle(pilot, 3)
        area = screen.query_one("#board-area", BoardArea)
        slot = screen.board.active_slot()
        assert slot is not None and slot.label_lines_below == 1
        window = slot.visible_window()
        assert window is not None and window.bottom < slot.region.height  # the board's last lines are not in sight
        check_cursor_in_sight(app, "mono")
        lines = screen_lines(app)
        shown = area.scrollable_content_region
        assert shown == area.content_region  # no room kept for scroll bars
        bottom = slot.region.y + window.bottom - 1  # the window's last line, on screen
        assert re.search(LARGEST["mono"][3], lines[bottom][shown.x : shown.right]), lines[bottom]
        assert not any(mark in "".join(lines) for mark in "▁▂▃▄▅▆▇▎▍▌▋▊▉")  # no scroll bar's thumb anywhere


async def test_mono_cursor_in_sight_when_the_layout_is_confirmed(tmp_path, monkeypatch):
    """Confirming the layout puts the cursor on the opponent's board, below the player's: the view follows it."""
    from termgames.rules.mono import LABELS

    layout = snake_layout(35)

    class LayoutBot:  # lays out at once (a random layout of 35 regions takes seconds)
        level = "easy"

        def choose(self, view, deadline=None):
            return layout

    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: LayoutBot())
    seats = [SeatInfo("me"), SeatInfo("cpu", "ai", "easy")]
    match = Match("mono", {"size": 35}, seats, 4)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(pilot, "mono")
        screen.board.draft = [LABELS.index(char) + 1 for char in layout]
        await pilot.press("enter")
        await settle(pilot, 5)
        assert screen.board.draft is None and screen.board.board_seat == 1
        check_cursor_in_sight(app, "mono")


@pytest.mark.parametrize("game", list(LARGEST))
async def test_footer_keys_are_whole_at_the_minimum(tmp_path, game):
    """Narrower than its keys, the footer leaves the last ones out rather than cutting one mid-word ("r Rando");
    they come back when the terminal grows."""
    app = game_app(tmp_path, game)
    width, height = minimum(game)
    async with app.run_test(size=(width, height)) as pilot:
        await start(pilot, game)
        footer = app.screen.query_one(Footer)
        shown = footer_keys(app)
        assert {"quit_game", "help"} <= {key.action for key in shown}  # never left out: the way out, the help
        await pilot.resize_terminal(200, 40)
        await settle(pilot, 3)
        assert footer_keys(app) == list(footer.items)


async def test_a_narrow_replay_keeps_quit_in_its_footer(tmp_path):
    match = Match("mono", {"size": 35}, [SeatInfo("me"), SeatInfo("you")], 4)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="m.json"))
    async with app.run_test(size=(50, 20)) as pilot:
        await settle(pilot, 3)
        shown = footer_keys(app)
        assert "leave" in {key.action for key in shown}


def finished(game: str, options: dict) -> Match:
    """A game of ``game`` played to its end by random moves (the rules' own), both seats human."""
    import random

    match = Match(game, options, [SeatInfo("me"), SeatInfo("you")], 3)
    rng = random.Random(3)
    while not match.over:
        seat = match.view(None).to_move[0]
        match.play(seat, match.state.random_move(seat, rng))
    return match


def rows_in_sight(screen: GameScreen) -> dict[int, set[int]]:
    """For each board widget on the screen (by its index), its lines the board area shows now, in their place or
    kept at the window's edges (its labels); a line under a label kept in sight is not shown."""
    area = screen.query_one("#board-area", BoardArea)
    seen: dict[int, set[int]] = {}
    for index, widget in enumerate(board_widgets(screen)):
        top = widget.styles.padding.top
        window = widget.visible_window()
        if window is None:
            whole = widget.region.overlaps(area.scrollable_content_region)
            seen[index] = set(range(len(widget.text_lines()))) if whole else set()
            continue
        pin_lines, _columns, pin_below = widget._pins(window)
        count = len(widget.text_lines())
        rows = set(range(window.y + pin_lines - top, window.bottom - pin_below - top))
        seen[index] = (rows | set(range(pin_lines)) | set(range(count - pin_below, count))) & set(range(count))
    return seen


@pytest.mark.parametrize("size", [(80, 24), (50, 20)])  # 60x20: the lines of 50x20, the panel under the board
@pytest.mark.parametrize(("game", "options"), [("mono", {"size": 14}), ("copolymer", {"size": 9}),
                                               ("copolymer", {})])
async def test_the_final_position_is_in_sight_or_scrolls_into_it(tmp_path, game, options, size):
    """At a game's end the whole final position can be seen: every line of every board is on screen, or comes on
    screen as the arrows scroll the board (issue 25, 2)."""
    match = finished(game, options)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=tmp_path / "g.json"))
    async with app.run_test(size=size) as pilot:
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.view.over
        seen = rows_in_sight(screen)
        lines = {index: len(widget.text_lines()) for index, widget in enumerate(board_widgets(screen))}
        for key in ["up"] * 14 + ["down"] * 28:  # the far rows of each board (11 at most) and back
            await pilot.press(key)
            for index, rows in rows_in_sight(screen).items():
                seen[index] |= rows
            if all(len(seen[index]) >= count for index, count in lines.items()):
                break
        for index, count in lines.items():
            assert seen[index] >= set(range(count)), (index, count, sorted(seen[index]))


#: The smallest terminals the README promises, and a board of each game that does not fit them whole (the
#: keys that bring its cursor to a far row), with the row labels each game draws at its rows' left.
SMALL_BOARDS = PerGame("SMALL_BOARD", screens_only=True)


def row_labels_in_sight(app, screen: GameScreen, pattern: str) -> list[str]:
    area = screen.query_one("#board-area", BoardArea).scrollable_content_region
    # Mono: the opponent's board, the cursor's (the player's own is above it)
    board = screen.board if isinstance(screen.board, BoardWidget) else screen.board.active_slot()
    shown = area.intersection(board.content_region)
    lines = screen_lines(app)[shown.y : shown.bottom]
    return [m.group(1) for line in lines if (m := re.match(pattern, line[shown.x :]))]


@pytest.mark.parametrize("size", [(60, 20), (50, 20)])
@pytest.mark.parametrize("game", list(SMALL_BOARDS))
async def test_a_small_terminal_shows_the_cursors_row_and_two_either_side(tmp_path, game, size):
    """At 60x20 and 50x20 the panel under the board gives way: the cursor's row and two rows either side are on
    screen with the board's labels (issue 25, 3), wherever the cursor goes."""
    board = SMALL_BOARDS[game]
    if not isinstance(board, SmallBoard):
        pytest.skip(f"{game}: {board}")  # its reason, in tests/games/{game}.py
    options, keys, pattern = board.options, board.keys, board.label
    seats = [SeatInfo("me"), SeatInfo("cpu", "ai", "easy")] if game == "mono" else [SeatInfo("me"), SeatInfo("you")]
    match = Match(game, options, seats, 4)
    if game == "mono":
        layout = snake_layout(options["size"])
        match.play(0, layout)
        match.play(1, layout)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
    async with app.run_test(size=size) as pilot:
        await settle(pilot, 5)
        screen = app.screen
        assert not screen.too_small()
        for step in (*keys, "up", "up", "up", "up", "up", "up", "up"):
            await pilot.press(step)
            await settle(pilot, 2)
            name = screen.board.cursor_name()
            labels = row_labels_in_sight(app, screen, pattern)
            row = board.row_of(name)
            assert row in labels, (name, labels)
            index = labels.index(row)
            rows, edge = board.rows, board.edge
            # Two rows either side of the cursor's, unless the board ends there.
            assert index >= 2 or labels[0] == edge[0], (name, labels)
            assert len(labels) - index - 1 >= 2 or labels[-1] == edge[1], (name, labels)
            assert len(labels) >= min(rows, 5)
        if game == "monunrail":
            assert labels == [str(n) for n in range(1, 8)]  # the whole board, a line a row


@pytest.mark.parametrize("key", ["question_mark", "q"])
async def test_the_help_and_quit_dialogs_hide_the_game_around_them(tmp_path, key):
    """The game showed through around a dialog, its lines cut off at the dialog's edges (issue 25, 10)."""
    from tui import Terminal

    app = game_app(tmp_path, "copolymer")
    async with app.run_test(size=(50, 20)) as pilot:
        terminal = Terminal(app)
        await start(pilot, "copolymer")
        await pilot.press(key)
        await settle(pilot, 3)
        dialog = app.screen.query_one(".dialog").region
        lines = terminal.lines()
        for y, line in enumerate(lines):
            outside = "".join(char for x, char in enumerate(line) if not dialog.contains(x, y))
            assert not outside.strip(), (y, line)


@pytest.mark.parametrize("size", [(40, 15), (30, 10), (20, 8)])
async def test_the_too_small_notice_breaks_between_its_phrases(tmp_path, size):
    """At 40x15 the notice wrapped inside its numbers ("is 40" / "x 15"): it breaks between phrases (issue 25, 10)."""
    app = game_app(tmp_path, "copolymer", ascii=True)
    async with app.run_test(size=size) as pilot:
        await start(pilot, "copolymer")
        lines = [line.strip() for line in screen_lines(app) if line.strip()]
        assert " ".join(lines) == f"terminal too small: needs 50 x 20, is {size[0]} x {size[1]}"
        whole_phrases = r"(terminal too small:)?( ?needs \d+ x \d+,)?( ?is \d+ x \d+)?"
        assert all(re.fullmatch(whole_phrases, line) for line in lines), lines


async def test_monads_panel_keeps_its_ten_lines_under_the_map_at_50x20(tmp_path):
    """Monad's panel holds what a turn is made of (the units typed, the queue): under the map it keeps its lines
    while the map still shows the cursor's row and two either side."""
    app = game_app(tmp_path, "monad")
    async with app.run_test(size=(50, 20)) as pilot:
        screen = await start(pilot, "monad")
        await settle(pilot, 3)
        assert screen.query_one("#side-panel").region.height == 10
        area = screen.query_one("#board-area", BoardArea).scrollable_content_region
        assert area.height >= screen.board.least_lines()


@pytest.mark.parametrize("size", [(60, 20), (50, 20)])
async def test_the_panels_texts_keep_clear_of_the_logs_line(tmp_path, size):
    """Under the board a text that filled its half of the panel ran into the log's line beside it ("change▏")."""
    app = game_app(tmp_path, "monunrail")
    async with app.run_test(size=size) as pilot:
        screen = await start(pilot, "monunrail")
        await settle(pilot, 3)
        texts = screen.query_one("#panel-info").region
        log = screen.query_one("#move-log").region
        lines = screen_lines(app)
        assert any(lines[y][texts.x : log.x].strip() for y in range(texts.y, texts.bottom))
        for y in range(texts.y, texts.bottom):
            assert lines[y][log.x - 1] == " ", lines[y]
