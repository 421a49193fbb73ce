"""bench/ladder.py plays every game (issue 16: the ladder runs for every game), Monad on its match runner."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from termgames.games import GAMES

LADDER = Path(__file__).resolve().parent.parent / "bench" / "ladder.py"


@pytest.fixture(scope="module")
def ladder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ladder_under_test", LADDER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", [name for name, descriptor in GAMES.items() if descriptor.ai_levels])
def test_the_ladder_plays_every_game_and_times_each_decision(ladder: ModuleType, game: str) -> None:
    weakest = ladder.participants(game)[1]
    options = ladder.with_match_limits(game, {})
    outcome = ladder.play(ladder.Job(game, options, (weakest, ladder.RANDOM), 3, plies=6))
    assert len(outcome.scores) == 2
    assert outcome.times[weakest] and all(seconds >= 0 for seconds in outcome.times[weakest])
    assert len(outcome.cpu_times[weakest]) == len(outcome.times[weakest])
    assert outcome.slowest is not None
    assert outcome.slowest[0] == max(seconds for times in outcome.times.values() for seconds in times)


def test_monad_is_played_to_its_end_on_the_match_runner(ladder: ModuleType) -> None:
    options = ladder.with_match_limits("monad", {"width": 8, "height": 8, "turns": 40})
    outcome = ladder.play(ladder.Job("monad", options, ("swarm", "random"), 5))
    assert outcome.winners  # the match ended: at its turn limit at the latest
    # One decision per seat per turn: both seats answered every turn the match lasted.
    assert len(outcome.times["swarm"]) == len(outcome.times["random"]) <= 40


def test_mosaic_games_are_capped_unless_the_command_line_says_otherwise(ladder: ModuleType) -> None:
    assert ladder.with_match_limits("mosaic", {})["max_routines"] == 60
    assert ladder.with_match_limits("mosaic", {"max_routines": 10})["max_routines"] == 10
    assert ladder.largest_options("mosaic")["max_routines"] == 60  # a match limit, not a board size
    assert ladder.largest_options("monad")["turns"] == ladder.with_match_limits("monad", {})["turns"]


def test_pairings_are_interleaved_and_seats_alternate(ladder: ModuleType) -> None:
    jobs = ladder.jobs_for("monad", {}, 2, 1, seats=4)
    pairings = [frozenset(job.seats) for job in jobs]
    assert pairings[:3] == pairings[3:] and len(set(pairings[:3])) == 3
    first, second = jobs[0].seats, jobs[3].seats
    assert first == (first[0], first[1]) * 2 and second == (first[1], first[0]) * 2


def test_a_participant_on_several_seats_shares_the_win(ladder: ModuleType) -> None:
    job = ladder.Job("mosaic", {}, ("hard", "easy", "hard", "easy"), 1)
    outcome = ladder.Outcome(job, (10.0, 5.0, 7.0, 3.0), (0, 1))
    assert ladder.score_of(outcome, "hard") == 0.5 and ladder.score_of(outcome, "easy") == 0.5
    assert ladder.points_of(outcome, "hard") == 17.0


def test_ratings_follow_the_score_whatever_the_order_of_the_games(ladder: ModuleType) -> None:
    """65 wins of 100: one pass in one order could leave the two ratings level; the mean of 20 orders cannot."""
    outcomes = []
    for game in range(100):
        seats = ("hard", "normal") if game % 2 == 0 else ("normal", "hard")
        winner = "hard" if game < 65 else "normal"
        outcomes.append(ladder.Outcome(ladder.Job("copolymer", {}, seats, game), (1.0, 0.0), (seats.index(winner),)))
    for seed in range(4):
        rated = ladder.ratings(outcomes, ["normal", "hard"], seed)
        assert rated["hard"][0] - rated["normal"][0] > 3.0
