"""The game's analysis in Monad's own replay (a, m/M, graph, marks) and the better move on Mono's, Mosaic's and
Monad's boards (Board.suggest), issue 36."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_analysis import Flat
from textual.widgets import Sparkline, Static
from tui import footer_descriptions, settle

from termgames import records
from termgames.ai.judgement import Judgement
from termgames.ai.monad.strategies import STRATEGIES
from termgames.analysis import analysis_json
from termgames.analysis_run import analyse_match
from termgames.app import TermgamesApp
from termgames.launch import Launch
from termgames.match import Match, Seat
from termgames.rules.base import ALL
from termgames.rules.monad.notation import format_commands
from termgames.screens.monad import MonadReplayScreen, MonadTurnLog
from termgames.screens.replay import ReplayScreen

SAVES = Path(__file__).resolve().parent.parent / "saves"
#: The better commands the test analyst names: ann's start cell (1,1), and a cell next to it.
BETTER = "1,1 3 MOVE E; 2,2 1 MINE"


def finished_monad(turns: int = 6) -> Match:
    """A short 10x10 Monad match played out by the built-in bots: ann at 1,1, bob at 8,8, a move a seat a turn."""
    match = Match("monad", {"turns": turns, "width": 10, "height": 10}, [Seat("ann"), Seat("bob")], 3)
    bots = [STRATEGIES["greedy"](1), STRATEGIES["swarm"](2)]
    while not match.over:
        board = match.state.board
        for seat in match.state.to_move():
            match.play(seat, format_commands(bots[seat].decide(board, seat)))
    return match


class NamedMonad(Flat):
    """Flat's losses (by ply), with Monad commands as the better move."""

    unit = "units"

    def judge(self, before, move, deadline):
        loss = self.losses.get(len(before.moves) + 1, 0.0)
        return Judgement(played=-loss, best_value=0.0, best=BETTER if loss else None)


def message(screen) -> str:
    return str(screen.query_one("#message", Static).render())


def log_text(screen) -> str:
    return "\n".join(screen.query_one(MonadTurnLog).text_lines())


def replay_app(tmp_path, match: Match, ascii: bool = False) -> TermgamesApp:
    return TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="x.json"), ascii=ascii)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_monad_replay_shows_a_kept_analysis_and_jumps_to_each_mistake(tmp_path, size):
    match = finished_monad()
    # Ply 3 (ann's commands for turn 2) a blunder, ply 6 (bob's for turn 3) a mistake.
    match.analysis = analysis_json(analyse_match(match, "greedy", analyst=NamedMonad({3: 30.0, 6: 9.0})))
    app = replay_app(tmp_path, match)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonadReplayScreen)
        graph = screen.query_one("#analysis-graph", Sparkline)
        assert graph.display and list(graph.data)[2] == 30.0
        assert "BUILD??" in log_text(screen) and "BUILD?\n" in log_text(screen) + "\n"
        await pilot.press("m")
        assert (screen.index, screen.review_ply()) == (2, 3)  # turn 2's frame, ann's commands
        assert "turn 2, ann" in message(screen) and "blunder" in message(screen)
        assert f"better {BETTER} (marked)" in message(screen)
        # The better commands on the map, where a queue would be: ann's cell 1,1 (row 1, the second map line).
        board = screen.board
        assert board.suggested and "→3" in board.text_lines()[2 if board.label_lines else 1]
        assert "better commands" in "".join(text for text, _ in board.legend())
        await pilot.press("m")
        assert (screen.index, screen.review_ply()) == (3, 6) and "mistake" in message(screen)
        assert "turn 3, bob" in message(screen)
        await pilot.press("m")
        assert screen.review_ply() == 6  # none after it
        await pilot.press("M")
        assert (screen.index, screen.review_ply()) == (2, 3)
        await pilot.press("a")  # off
        assert not graph.display and not board.suggested
        assert "?" not in log_text(screen)
        assert not any("→" in line for line in board.text_lines())


async def test_monad_replay_works_the_analysis_out_in_a_thread(tmp_path):
    match = finished_monad(turns=3)
    app = replay_app(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonadReplayScreen)
        assert screen.review is None and not screen.query_one("#analysis-graph").display
        assert "Review" in footer_descriptions(app) and "Mistake" not in footer_descriptions(app)
        await pilot.press("a")
        for _ in range(400):
            if screen.review is not None:
                break
            await pilot.pause(0.05)
        await settle(pilot)
        assert screen.review is not None and len(screen.review.moves) == len(match.moves)
        assert screen.query_one("#analysis-graph").display
        assert "Analysis at level" in message(screen)  # at the start: no move in question yet
        assert "Mistake" in footer_descriptions(app)  # m/M in the footer while the analysis is on
        await pilot.press("a")
        await settle(pilot)
        assert "Mistake" not in footer_descriptions(app)


async def test_an_unfinished_monad_record_is_not_analysed_in_its_replay(tmp_path):
    match = Match("monad", {"turns": 5, "width": 10, "height": 10}, [Seat("ann"), Seat("bob")], 3)
    match.play(0, "pass")
    match.play(1, "pass")
    app = replay_app(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("a")
        assert app.screen.review is None and "analysed once it ends" in message(app.screen)


# -- Board.suggest on each board ----------------------------------------------------------------


async def replay_at(app: TermgamesApp, pilot, ply: int, viewer_index: int = 0) -> ReplayScreen:
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ReplayScreen)
    screen.ply, screen.viewer_index = ply, viewer_index
    screen.show()
    await pilot.pause()
    return screen


def changed(before: list[str], after: list[str]) -> list[tuple[int, str]]:
    return [(y, line) for y, (old, line) in enumerate(zip(before, after)) if old != line]


@pytest.mark.parametrize("viewer_index", [0, 3])  # every board, a spectator (the game is over: both allowed)
async def test_mono_board_brackets_the_better_probe_on_the_movers_opponents_board_only(tmp_path, viewer_index):
    match = records.load(SAVES / "mono-fred-vs-ned.json")
    app = replay_app(tmp_path, match)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await replay_at(app, pilot, 10, viewer_index)  # ned (seat 1) played move 10
        assert screen.viewer == (ALL if viewer_index == 0 else None)
        board = screen.board
        before = board.text_lines()
        assert board.suggest("c3,hold")
        await pilot.pause()
        after = board.text_lines()
        # One line changed: row 3 of fred's board (the first; ned's own board, the mover's, has no mark).
        lines = changed(before, after)
        assert len(lines) == 1 and lines[0][1].lstrip().startswith("3")
        row = lines[0][1]
        column = before[1].index("c")  # the column letters' line
        assert row[column - 1] == "[" and row[column + 1] == "]"
        assert row[column] == before[lines[0][0]][column]  # the cell shows what it showed: never a hidden value
        assert "better: c3,hold" in "".join(text for text, _ in board.legend())
        assert board.suggest(None)
        await pilot.pause()
        assert board.text_lines() == before
        assert not board.suggest("end") and not board.suggest("z99,hold")  # no position; not one of this grid
        assert board.text_lines() == before


@pytest.mark.parametrize("ascii", [False, True])
async def test_mosaic_board_draws_the_better_placement_and_edge_and_takes_them_off(tmp_path, ascii):
    match = records.load(SAVES / "mosaic-ada-vs-brian-building.json")
    app = replay_app(tmp_path, match, ascii=ascii)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await replay_at(app, pilot, 5)
        board = screen.board
        before = board.text_lines()
        corner = "#" if ascii else "╔"
        assert not any(corner in line for line in before)
        assert board.suggest("1121@1,0")  # a legal placement there, on an empty position beside the tiles
        await pilot.pause()
        marked = board.text_lines()
        # Its double corners (ASCII: # at all four): on one tile's top and bottom lines only.
        corners = [(y, line.index(corner)) for y, line in enumerate(marked) if corner in line]
        y, x = corners[0]
        assert [line for line, _ in corners] == ([y, y + 2] if ascii else [y])
        assert marked[y][x + 2] == "1" and marked[y + 1][x + 2] == "*" and marked[y + 2][x + 2] == "2"
        assert "better: 1121@1,0" in "".join(text for text, _ in board.legend())
        assert board.suggest("edge 0,0 0,1")
        await pilot.pause()
        assert sum(line.count("*") for line in board.text_lines()) == 2  # the middle of both tiles
        assert board.suggest(None)
        await pilot.pause()
        assert board.text_lines() == before
        assert not board.suggest("pass") and not board.suggest("9999@x")
        assert board.text_lines() == before


async def test_monad_board_draws_the_better_commands_in_reverse_and_takes_them_off(tmp_path):
    match = finished_monad()
    app = replay_app(tmp_path, match, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        screen.index = 2
        screen.show()
        board = screen.board
        before = board.text_lines()
        top = 1 if board.label_lines else 0
        assert board.suggest("1,1 3 MOVE E; 2,2 1 MINE")
        await pilot.pause()
        after = board.text_lines()
        assert [y for y, _ in changed(before, after)] == [top + 1, top + 2]
        assert ">3" in after[top + 1] and "$1" in after[top + 2]  # ASCII arrows
        looks = {look for text, look in board._lines[top + 1] if text.strip().startswith(">3")}
        assert looks and all(look.reverse for look in looks)  # reverse video, not colour alone
        assert board.suggest(None)
        await pilot.pause()
        assert board.text_lines() == before
        assert not board.suggest("pass") and not board.suggest("no such commands") and not board.suggest("50,50 1 MINE")
        assert board.text_lines() == before


async def test_a_big_monad_map_scrolls_to_the_better_commands(tmp_path):
    """The 20x20 map does not fit at 80x24 with the graph and the line under it: the replay scrolls to the better
    commands of bob, whose corner (18,18) lies below the area's end."""
    match = Match("monad", {"turns": 2}, [Seat("ann"), Seat("bob")], 3)
    for _ in range(2):
        match.play(0, "pass")
        match.play(1, "pass")

    class Corner(NamedMonad):
        def judge(self, before, move, deadline):
            judged = super().judge(before, move, deadline)
            return judged if judged.best is None else Judgement(judged.played, 0.0, "18,19 1 MINE")

    match.analysis = analysis_json(analyse_match(match, "greedy", analyst=Corner({4: 20.0})))
    app = replay_app(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        area = screen.query_one("#board-area")
        assert area.scroll_y == 0 and area.max_scroll_y > 0
        await pilot.press("m")
        await settle(pilot, 5)
        assert screen.review_ply() == 4 and screen.board.suggested
        region = screen.board.suggestion_region()
        assert region is not None and area.scroll_y > 0
        assert area.scroll_y <= region.y < area.scroll_y + area.scrollable_content_region.height


async def test_a_record_of_a_game_still_hiding_its_boards_shows_no_analysis_it_holds(tmp_path):
    """No front end writes the analysis of an unfinished Mono game (it would tell what a seat holds while it is in
    play); a record that holds one anyway (written by hand) replays without it."""
    from termgames.analysis import Analysis, MoveAnalysis
    from termgames.analysis_run import record_moves, stored_analysis

    match = records.load(SAVES / "mono-ann-bob-cat-unfinished.json")
    assert not match.over
    lines = tuple(
        MoveAnalysis(ply, player, move, 12.0 if ply == 8 else 0.0, "blunder" if ply == 8 else "good",
                     "a1,hold" if ply == 8 else None)
        for ply, (player, move) in enumerate(record_moves(match), start=1)
    )
    match.analysis = analysis_json(Analysis("mono", "normal", "expected points", lines))
    assert stored_analysis(match)[0] is not None  # it fits the record
    app = replay_app(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.review is None and not screen.query_one("#analysis-graph").display
        await pilot.press("m")
        assert screen.ply == 0
        await pilot.press("a")
        assert screen.review is None and "analysed once it ends" in message(screen)


@pytest.mark.parametrize("game", ["monad", "mosaic"])
async def test_the_graph_is_drawn_in_ascii_where_the_screen_draws_ascii(tmp_path, game):
    from tui import Terminal

    if game == "monad":
        match = finished_monad()
        match.analysis = analysis_json(analyse_match(match, "greedy", analyst=NamedMonad({3: 30.0, 6: 9.0})))
    else:
        match = records.load(SAVES / "mosaic-ada-vs-brian-building.json")
        match.analysis = analysis_json(analyse_match(match, "normal", analyst=Flat({3: 30.0, 6: 9.0})))
    for ascii in (True, False):
        app = replay_app(tmp_path, match, ascii=ascii)
        async with app.run_test(size=(80, 24)) as pilot:
            terminal = Terminal(app)
            await settle(pilot, 5)
            graph = app.screen.query_one("#analysis-graph")
            assert graph.display
            line = terminal.lines()[graph.region.y]
            assert line.strip() and ("#" in line if ascii else "▇" in line or "█" in line)
            assert line.isascii() == ascii
