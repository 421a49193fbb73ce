"""Mono's analyst: a known blunder, a good probe, the mover's view alone, a short deadline."""

from __future__ import annotations

import itertools

import pytest

from termgames.ai.budget import Deadline
from termgames.ai.mono_analysis import MonoAnalyst
from termgames.analysis import Thresholds
from termgames.games import GAMES, load
from termgames.match import Match, Seat

#: Region 5 across the top left, 4 beside it, 3 at the bottom right: row 3 first, as layouts are typed.
BOARD = "55544" "55443" "12233"
#: The same board as far as the first player has seen it in the position below, but for where 4 and 5 lie.
OTHER_BOARD = "55555" "44443" "12233"


def position(hidden: str = BOARD) -> Match:
    """Five regions; p1 has uncovered p2's bottom row and e2, and opened a turn on a3 (a 5): the run of 5s goes
    on from a3 into its region, and d3 (a 4 on most boards this view allows) ends the turn."""
    match = Match("mono", {"size": 5}, [Seat("p1"), Seat("p2")], 7)
    match.play(0, BOARD)
    match.play(1, hidden)
    match.play(0, "a1,b1,c1,end")
    match.play(1, "a1,end")
    match.play(0, "d1,e1,e2,end")
    match.play(1, "b1,end")
    match.play(0, "a3,hold")
    return match


def thresholds() -> Thresholds:
    return Thresholds(*GAMES["mono"].analysis_thresholds)


def test_the_descriptor_names_the_analyst_and_its_thresholds() -> None:
    descriptor = GAMES["mono"]
    assert descriptor.analyst is not None
    analyst = load(descriptor.analyst)("normal", 1)
    assert isinstance(analyst, MonoAnalyst)
    assert analyst.unit == "expected points"
    thresholds()  # they grow


def test_leaving_the_run_for_a_lower_region_is_a_blunder() -> None:
    judgement = MonoAnalyst("normal", 1).judge(position().view(0), "d3,hold", Deadline(30))
    assert thresholds().classify(judgement.loss) == "blunder"
    assert judgement.best is not None and judgement.best.split(",")[0] in ("b3", "a2", "b2")
    assert not judgement.hindsight


def test_following_the_run_is_good() -> None:
    judgement = MonoAnalyst("normal", 1).judge(position().view(0), "b3,hold", Deadline(30))
    assert thresholds().classify(judgement.loss) == "good"


def test_ending_with_the_run_open_costs_more_than_an_inaccuracy() -> None:
    judgement = MonoAnalyst("normal", 1).judge(position().view(0), "end", Deadline(30))
    assert thresholds().classify(judgement.loss) in ("mistake", "blunder")


def test_a_whole_command_is_played_out() -> None:
    """Random probes after a3's region spend it at random: worse than following the run."""
    view = position().view(0)
    analyst = MonoAnalyst("normal", 1)
    followed = analyst.judge(view, "b3,hold", Deadline(30))
    at_random = analyst.judge(view, "random", Deadline(30))
    assert at_random.played < followed.played
    assert at_random.loss > followed.loss


def test_the_judgement_depends_on_the_movers_view_alone() -> None:
    """Two games that differ only in cells of p2's board p1 had not seen: the same judgement, though d3 is
    a 5 on the other board (hindsight would call it good there)."""
    first, second = position(BOARD).view(0), position(OTHER_BOARD).view(0)
    assert first == second
    for move in ("d3,hold", "b3,hold", "end"):
        assert MonoAnalyst("normal", 5).judge(first, move, Deadline(30)) == MonoAnalyst("normal", 5).judge(
            second, move, Deadline(30)
        )


def test_a_layout_is_not_valued() -> None:
    match = Match("mono", {"size": 5}, [Seat("p1"), Seat("p2")], 7)
    judgement = MonoAnalyst("normal", 1).judge(match.view(0), BOARD, Deadline(30))
    assert judgement.loss == 0 and judgement.best is None and "layout" in judgement.note


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_a_judgement_keeps_to_a_short_deadline(level: str) -> None:
    """A clock that moves a millisecond each time it is read: the judgement stops soon after its deadline."""
    ticks = itertools.count()
    deadline = Deadline(0.05, clock=lambda: next(ticks) / 1000)
    judgement = MonoAnalyst(level, 1).judge(position().view(0), "d3,hold", deadline)
    assert judgement.loss >= 0
    assert deadline.elapsed() < 0.1


def test_only_the_movers_turn_is_judged() -> None:
    with pytest.raises(ValueError):
        MonoAnalyst("normal", 1).judge(position().view(1), "a1,end", Deadline(30))


def three_players(third: str, options: dict[str, object] | None = None) -> Match:
    """The position of :func:`position` at a table of three (the third board ``third``), p1 to go on."""
    match = Match("mono", {"size": 5, **(options or {})}, [Seat("p1"), Seat("p2"), Seat("p3")], 7)
    for seat in range(3):
        match.play(seat, third if seat == 2 else BOARD)
    # p2 probes only where the two third boards agree; p3's probes uncover nothing of its own board.
    for first, second, third_probe in (("a1,b1,c1,end", "a1,end", "a2,end"), ("d1,e1,e2,end", "b1,end", "b2,end")):
        match.play(0, first)
        match.play(1, second)
        match.play(2, third_probe)
    match.play(0, "a3,hold")
    return match


def test_at_a_table_of_three_the_hidden_cells_of_either_board_change_nothing() -> None:
    first, second = three_players(BOARD).view(0), three_players(OTHER_BOARD).view(0)
    assert first == second
    for move in ("d3,hold", "b3,hold", "b3,c3,end"):
        one = MonoAnalyst("normal", 2).judge(first, move, Deadline(30))
        assert one == MonoAnalyst("normal", 2).judge(second, move, Deadline(30))
        assert one.loss >= 0 and not one.hindsight


def test_a_command_without_a_keyword_goes_on_at_random_unless_the_game_has_no_auto() -> None:
    analyst = MonoAnalyst("normal", 1)
    quiet = three_players(BOARD, {"no_auto": True}).view(0)
    assert quiet.no_auto
    assert analyst.judge(quiet, "b3,c3", Deadline(30)) == analyst.judge(quiet, "b3,c3,end", Deadline(30))
    auto = three_players(BOARD).view(0)
    assert analyst.judge(auto, "b3,c3", Deadline(30)) == analyst.judge(auto, "b3,c3,random", Deadline(30))
    assert analyst.judge(auto, "b3,c3", Deadline(30)).played != analyst.judge(auto, "b3,c3,end", Deadline(30)).played
