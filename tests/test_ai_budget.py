"""The time cap every bot honours (issue 16, section 3): asserted on the Deadline with a fake clock, not wall time."""

from __future__ import annotations

import random

import pytest

from termgames.ai import make_bot
from termgames.ai.budget import TIME_CAP, Deadline, deadline_for
from termgames.games import GAMES
from termgames.match import Match, Seat
from termgames.rules.base import State


class FakeClock:
    """A clock that moves ``step`` seconds each time it is read: a deliberately slow search."""

    def __init__(self, step: float = 0.0) -> None:
        self.now = 100.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


def test_deadline_expires_with_its_clock_and_on_stop() -> None:
    clock = FakeClock()
    deadline = Deadline(2.0, clock=clock)
    assert not deadline.expired() and deadline.remaining() == pytest.approx(2.0)
    clock.now += 1.5
    assert not deadline.expired() and deadline.remaining() == pytest.approx(0.5)
    clock.now += 0.5
    assert deadline.expired() and deadline.remaining() == 0.0
    other = Deadline(10.0, clock=clock)
    other.stop()
    assert other.expired() and other.stopped and other.remaining() == 0.0


def test_within_never_outlasts_the_outer_deadline_and_shares_its_stop() -> None:
    clock = FakeClock()
    outer = Deadline(1.0, clock=clock)
    assert outer.within(5.0).end == outer.end
    inner = outer.within(0.25)
    assert inner.end == pytest.approx(outer.start + 0.25)
    assert outer.share(0.5).end == pytest.approx(outer.start + 0.5)
    outer.stop()
    assert inner.expired()


def test_no_deadline_means_the_cap() -> None:
    assert deadline_for(None).seconds == TIME_CAP <= 2.0
    given = Deadline(0.5)
    assert deadline_for(given) is given


def test_a_slow_copolymer_search_stops_at_the_deadline() -> None:
    """Hard's 8000 playouts, on a clock that makes every look cost 0.05 s: it stops after the cap's worth of looks."""
    match = Match("copolymer", {"size": 7}, [Seat("a"), Seat("b")], 5)
    rng = random.Random(3)
    bot = make_bot("copolymer", "hard", seed=1)
    searched = []
    while not match.over and len(searched) < 3:
        seat = match.state.to_move()[0]
        clock = FakeClock(step=0.05)
        bot.choose(match.view(seat), Deadline(TIME_CAP, clock=clock))
        if bot.last_playouts:
            searched.append(bot.last_playouts)
        match.play(seat, match.state.random_move(seat, rng))
    assert searched and all(playouts < 50 for playouts in searched)  # 2 s of 0.05 s looks, not 8000 playouts


@pytest.mark.parametrize("game", sorted(name for name, descriptor in GAMES.items() if descriptor.ai_levels))
def test_every_level_answers_a_legal_move_when_told_to_move_now(game: str) -> None:
    """A deadline stopped before the decision starts ("move now"): every level still answers a legal move."""
    descriptor = GAMES[game]
    match = Match(game, None, [Seat("a"), Seat("b")], 11)
    rng = random.Random(7)
    for ply in range(12):
        if match.over:
            break
        seat = match.state.to_move()[0]
        level = descriptor.ai_levels[ply % len(descriptor.ai_levels)]
        deadline = Deadline(60.0)
        deadline.stop()
        if ply % 3 == 2 and type(match.state).random_move is not State.random_move:  # Monad's rules draw none
            move = match.state.random_move(seat, rng)
        else:
            move = make_bot(game, level, seed=ply).choose(match.view(seat), deadline)
        match.play(seat, move)


def test_choose_within_passes_the_deadline_to_bots_that_take_one() -> None:
    from termgames.ai import choose_within

    seen: list[object] = []

    class OneArgument:
        level = "x"

        def choose(self, view: object) -> str:
            seen.append(view)
            return "old"

    class WithDeadline:
        level = "x"

        def choose(self, view: object, deadline: Deadline | None = None) -> str:
            seen.append(deadline)
            return "new"

    deadline = Deadline(1.0)
    assert choose_within(OneArgument(), "view", deadline) == "old"  # type: ignore[arg-type]  # a stand-in view
    assert choose_within(WithDeadline(), "view", deadline) == "new"  # type: ignore[arg-type]  # a stand-in view
    assert seen == ["view", deadline]
