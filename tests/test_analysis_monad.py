"""Monad's analyst: units thrown at a hive that holds are a blunder, BUILDing is good, the others' commands for
the turn (hidden from the mover) change nothing, a short deadline holds."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from termgames.ai.budget import Deadline
from termgames.ai.monad_analysis import MonadAnalyst
from termgames.analysis import Thresholds
from termgames.games import GAMES, load
from termgames.match import Match, Seat
from termgames.rules.monad import MonadState
from termgames.rules.monad.board import empty_board


def facing_hives(ours: int = 40, theirs: int = 30) -> MonadState:
    """An empty 10x10 map: our hive at 3,3 with ``ours`` units, theirs next to it at 4,3 with ``theirs``."""
    state = Match("monad", {"width": 10, "height": 10}, [Seat("a"), Seat("b")], 1).state
    assert isinstance(state, MonadState)
    board = empty_board(10, 10, 2)
    owner, units, hive = list(board.owner), list(board.units), list(board.hive)
    for seat, cell, count in ((0, board.index(3, 3), ours), (1, board.index(4, 3), theirs)):
        owner[cell], units[cell], hive[cell] = seat, count, seat
    board = replace(board, owner=tuple(owner), units=tuple(units), hive=tuple(hive), had_hive=(True, True))
    return replace(state, board=board.with_derived())


def thresholds() -> Thresholds:
    return Thresholds(*GAMES["monad"].analysis_thresholds)


def test_the_descriptor_names_the_analyst_and_its_thresholds() -> None:
    descriptor = GAMES["monad"]
    assert descriptor.analyst is not None
    analyst = load(descriptor.analyst)(descriptor.default_level, 1)
    assert isinstance(analyst, MonadAnalyst) and analyst.unit == "units"
    thresholds()


@pytest.mark.parametrize("level", ["random", "greedy", "swarm"])
def test_units_thrown_at_a_hive_that_holds_are_a_blunder(level: str) -> None:
    """20 attackers against 30 defenders and the hive's defence of 10: the attack dies, the hive holds, and the
    20 did not BUILD either."""
    judgement = MonadAnalyst(level, 1).judge(facing_hives().view(0), "3,3 20 MOVE E", Deadline(30))
    assert thresholds().classify(judgement.loss) == "blunder"
    assert judgement.best is not None and "MOVE E" not in judgement.best
    assert not judgement.hindsight


def test_building_with_every_unit_on_the_hive_is_good_and_idling_is_not() -> None:
    analyst = MonadAnalyst("greedy", 1)
    view = facing_hives().view(0)
    assert thresholds().classify(analyst.judge(view, "3,3 40 BUILD", Deadline(30)).loss) == "good"
    assert thresholds().classify(analyst.judge(view, "pass", Deadline(30)).loss) in ("mistake", "blunder")


def test_the_others_commands_for_the_turn_change_nothing() -> None:
    """The other seat sent its commands first (an attack in one game, a pass in the other): the mover could not
    see them, and the judgement is the same."""
    attacked = facing_hives().apply(1, "4,3 30 MOVE W")
    quiet = facing_hives().apply(1, "pass")
    assert attacked.view(0) == quiet.view(0)
    for move in ("3,3 20 MOVE E", "3,3 40 BUILD", "pass"):
        assert MonadAnalyst("swarm", 3).judge(attacked.view(0), move, Deadline(30)) == MonadAnalyst(
            "swarm", 3
        ).judge(quiet.view(0), move, Deadline(30))


def test_a_judgement_keeps_to_a_short_deadline() -> None:
    ticks = itertools.count()
    deadline = Deadline(0.05, clock=lambda: next(ticks) / 1000)
    judgement = MonadAnalyst("swarm", 1).judge(facing_hives().view(0), "3,3 20 MOVE E", deadline)
    assert judgement.loss >= 0
    assert deadline.elapsed() < 0.1


def test_a_fault_is_judged_as_sending_nothing() -> None:
    analyst = MonadAnalyst("greedy", 1)
    view = facing_hives().view(0)
    assert analyst.judge(view, "fault the bot crashed", Deadline(30)) == analyst.judge(view, "pass", Deadline(30))


def test_only_a_seat_still_to_send_is_judged() -> None:
    state = facing_hives().apply(0, "pass")
    with pytest.raises(ValueError):
        MonadAnalyst("greedy", 1).judge(state.view(0), "3,3 40 BUILD", Deadline(30))
