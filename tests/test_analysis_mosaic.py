"""Mosaic's analyst: an edge that gives away points is a blunder, the best move is good, the view alone counts,
a short deadline holds."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

from termgames.ai.budget import Deadline
from termgames.ai.mosaic_analysis import MosaicAnalyst, margin
from termgames.analysis import Thresholds
from termgames.games import GAMES, load
from termgames.match import Match, SeatInfo


def thresholds() -> Thresholds:
    return Thresholds(*GAMES["mosaic"].analysis_thresholds)


def edge_choice(seed: int = 3, spread: float = 40) -> tuple[Match, str]:
    """A game of random moves, stopped at the first edge selection where one edge leaves the mover ``spread``
    points worse off at once than another; with that edge (the worst at once)."""
    match = Match("mosaic", {}, [SeatInfo("a"), SeatInfo("b")], seed)
    rng = random.Random(seed)
    while len(match.moves) < 200:
        seat = match.state.to_move()[0]
        state = match.state
        if state.step().kind == "SE":
            at_once = sorted((margin(state.apply(seat, move), seat), move) for move in state.legal_moves())
            if at_once[-1][0] - at_once[0][0] >= spread:
                return match, at_once[0][1]
        match.play(seat, rng.choice(state.legal_moves()))
    raise AssertionError("no such edge in 200 moves")


def test_the_descriptor_names_the_analyst_and_its_thresholds() -> None:
    descriptor = GAMES["mosaic"]
    assert descriptor.analyst is not None
    analyst = load(descriptor.analyst)("normal", 1)
    assert isinstance(analyst, MosaicAnalyst) and analyst.unit == "points"
    thresholds()


def test_an_edge_that_gives_away_points_is_a_blunder_and_the_best_is_good() -> None:
    match, worst = edge_choice()
    seat = match.state.to_move()[0]
    view = match.view(seat)
    judgement = MosaicAnalyst("normal", 1).judge(view, worst, Deadline(30))
    assert thresholds().classify(judgement.loss) == "blunder"
    assert judgement.best is not None and judgement.best in view.legal_moves() and not judgement.hindsight
    again = MosaicAnalyst("normal", 1).judge(view, judgement.best, Deadline(30))
    assert again.loss == 0 and again.best is None
    assert thresholds().classify(again.loss) == "good"


def test_the_public_move_log_gives_the_same_judgement() -> None:
    """A view without its position (rebuilt from the public log): the analyst needs nothing more."""
    match, worst = edge_choice()
    seat = match.state.to_move()[0]
    view = match.view(seat)
    assert MosaicAnalyst("normal", 1).judge(view, worst, Deadline(30)) == MosaicAnalyst("normal", 1).judge(
        replace(view, position=None), worst, Deadline(30)
    )


def test_a_judgement_keeps_to_a_short_deadline() -> None:
    match, worst = edge_choice()
    seat = match.state.to_move()[0]
    ticks = itertools.count()
    deadline = Deadline(0.05, clock=lambda: next(ticks) / 1000)
    judgement = MosaicAnalyst("hard", 1).judge(match.view(seat), worst, deadline)
    assert judgement.loss >= 0
    assert deadline.elapsed() < 0.1
