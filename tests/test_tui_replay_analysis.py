"""The replay screen's move-by-move analysis (issue 36): graph, marks in the log, next mistake, the better move."""

from __future__ import annotations

import pytest
from test_analysis import Flat, monunrail_with_blunder
from textual.widgets import Sparkline, Static
from tui import settle

from termgames.analysis import analysis_json
from termgames.analysis_run import analyse_match
from termgames.app import TermgamesApp
from termgames.launch import Launch
from termgames.match import Match, Seat
from termgames.rules.monunrail import cell_name
from termgames.screens.replay import ReplayScreen
from termgames.widgets.move_log import MoveLog


def finished(size: int = 5) -> Match:
    match = Match("copolymer", {"size": size}, [Seat("ann"), Seat("bob")], 9)
    while not match.over:
        view = match.view(match.state.to_move()[0])
        match.play(view.to_move[0], view.board.names[max(view.legal_cells())])
    return match


def with_analysis(match: Match) -> tuple[Match, str]:
    """``match`` with a kept analysis: move 3 a blunder (better: a cell still empty then), move 6 a mistake."""
    better = match.view(0, 2).board.names[min(match.view(0, 2).legal_cells())]

    class Named(Flat):
        def judge(self, before, move, deadline):
            judged = super().judge(before, move, deadline)
            return judged if judged.best is None else type(judged)(judged.played, judged.best_value, better)

    match.analysis = analysis_json(analyse_match(match, "normal", analyst=Named({3: 9.0, 6: 3.5})))
    return match, better


def message(screen: ReplayScreen) -> str:
    return str(screen.query_one("#message", Static).render())


@pytest.mark.parametrize("size", [(80, 24), (50, 20)])
async def test_a_kept_analysis_shows_its_graph_marks_and_jumps_to_each_mistake(tmp_path, size):
    match, better = with_analysis(finished())
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="x.json"))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        graph = screen.query_one("#analysis-graph", Sparkline)
        assert graph.display and list(graph.data)[2] == 9.0
        log = "\n".join(screen.query_one(MoveLog).text_lines())
        assert "??" in log and "?" in log.replace("??", "")
        await pilot.press("m")
        assert screen.ply == 3
        assert "blunder" in message(screen) and f"better {better}" in message(screen)
        assert screen.board.suggested == better and "better" in "".join(t for t, _ in screen.board.legend())
        await pilot.press("m")
        assert screen.ply == 6 and "mistake" in message(screen)
        await pilot.press("m")
        assert screen.ply == 6  # none after it
        await pilot.press("M")
        assert screen.ply == 3
        await pilot.press("a")  # off
        assert not graph.display and screen.board.suggested is None
        assert "??" not in "\n".join(screen.query_one(MoveLog).text_lines())


async def test_a_replay_without_analysis_works_it_out_in_a_thread(tmp_path):
    match, ply, winning = monunrail_with_blunder()
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="x.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.review is None and not screen.query_one("#analysis-graph").display
        await pilot.press("a")
        for _ in range(200):
            if screen.review is not None:
                break
            await pilot.pause(0.05)
        await settle(pilot)
        assert screen.review is not None and screen.query_one("#analysis-graph").display
        while screen.ply != ply:
            before = screen.ply
            await pilot.press("m")
            assert screen.ply > before
        assert "blunder" in message(screen) and "(marked)" in message(screen)
        # The engine's winning removal, marked as the hint marks one.
        named = next(w for w in winning if f"better {w}" in message(screen))
        assert {cell_name(cell) for cell in screen.board.hint_cells} == set(named.split(","))
