"""Mosaic's computer players: legal moves at every step, determinism, and better than chance."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from termgames.ai import make_bot
from termgames.ai.mosaic import EASY_SAMPLE, LEVELS, Replayer
from termgames.match import Match, SeatInfo


def random_game(seed: int, players: int = 2, moves: int = 60) -> Match:
    match = Match("mosaic", {}, [SeatInfo(f"s{i}") for i in range(players)], seed)
    rng = random.Random(seed)
    while not match.over and len(match.moves) < moves:
        match.play(match.state.to_move()[0], rng.choice(match.state.legal_moves()))
    return match


@pytest.mark.parametrize("level", list(LEVELS))
def test_every_level_plays_legal_moves_at_every_kind_of_step(level):
    bot = make_bot("mosaic", level, seed=1)
    bot.settings = replace(bot.settings, seconds=0.15)  # the search is cut short: only legality is tested
    kinds = set()
    for seed in (1, 2):
        match = random_game(seed, moves=0)
        while not match.over and len(match.moves) < 40:
            seat = match.state.to_move()[0]
            view = match.view(seat)
            kinds.add(view.step.kind)
            move = bot.choose(view)
            assert move in view.legal_moves()
            match.play(seat, move)
    assert {"SH/P", "SE", "R"} <= kinds


def test_the_same_seed_and_position_give_the_same_move():
    match = random_game(5, moves=20)
    seat = match.state.to_move()[0]
    view = match.view(seat)
    first = make_bot("mosaic", "normal", seed=9).choose(view)
    second = make_bot("mosaic", "normal", seed=9).choose(view)
    assert first == second
    assert make_bot("mosaic", "random", seed=4).choose(view) == make_bot("mosaic", "random", seed=4).choose(view)


def test_the_replayer_rebuilds_the_rules_state_from_the_view_in_three_player_games():
    match = random_game(7, players=3, moves=70)
    seat = match.state.to_move()[0]
    state = Replayer().state_for(match.view(seat))
    assert state.board == match.state.board
    assert state.legal_moves() == match.state.legal_moves()
    assert state.hands == match.state.hands


def test_a_bot_refuses_to_move_out_of_turn():
    match = random_game(3, moves=0)
    with pytest.raises(ValueError):
        make_bot("mosaic", "normal", seed=1).choose(match.view(1))


def test_unknown_level_is_refused():
    with pytest.raises(ValueError):
        make_bot("mosaic", "grandmaster", seed=1)


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_easy_and_normal_beat_random(level):
    wins = 0
    for game in range(3):
        seat = game % 2
        match = Match("mosaic", {"max_routines": 30}, [SeatInfo("a"), SeatInfo("b")], game)
        bots = {seat: make_bot("mosaic", level, seed=game), 1 - seat: make_bot("mosaic", "random", seed=game)}
        while not match.over:
            mover = match.state.to_move()[0]
            match.play(mover, bots[mover].choose(match.view(mover)))
        wins += match.state.winners() == (seat,)
    assert wins == 3


def test_easy_judges_a_few_moves_drawn_at_random_normal_all_of_them():
    match = random_game(5, moves=30)
    seat = match.state.to_move()[0]
    view = match.view(seat)
    legal = len(view.legal_moves())
    assert legal > EASY_SAMPLE
    easy, normal = make_bot("mosaic", "easy", seed=3), make_bot("mosaic", "normal", seed=3)
    ranked = []
    for bot in (easy, normal):
        original = bot.rank
        bot.rank = lambda state, me, moves=None, complete=False, original=original: ranked.append(
            len(state.legal_moves() if moves is None else moves)
        ) or original(state, me, moves, complete)
        bot.choose(view)
    # The first rank call is the decision's own (later ones are the search's, hard only).
    assert ranked == [EASY_SAMPLE, legal]


def test_a_view_without_its_position_is_rebuilt_from_the_move_log():
    match = random_game(4, moves=30)
    seat = match.state.to_move()[0]
    view = match.view(seat)
    bare = replace(view, position=None)
    assert make_bot("mosaic", "normal", seed=2).choose(bare) == make_bot("mosaic", "normal", seed=2).choose(view)


#: Fake seconds one judged state costs: an opponent's ranking of a few dozen moves then outlasts the cap's slack.
STATE_COST = 0.04


def test_hard_stops_within_the_cap_at_a_four_player_table():
    """Each state judged costs STATE_COST of a fake clock: hard's search at a four-player table stops within the 2 s cap
    (judging every reply of an opponent past the deadline once took a decision beyond it)."""
    from termgames.ai.budget import TIME_CAP, Deadline

    match = random_game(6, players=4, moves=110)
    assert match.state.phase != "building"
    checked = 0
    while not match.over and checked < 3:
        seat = match.state.to_move()[0]
        view = match.view(seat)
        if len(view.legal_moves()) > 1:
            now = [0.0]
            bot = make_bot("mosaic", "hard", seed=checked)
            original = bot.after

            def judged(state, move, original=original, now=now):
                now[0] += STATE_COST
                return original(state, move)

            bot.after = judged
            assert bot.choose(view, Deadline(TIME_CAP, clock=lambda now=now: now[0])) in view.legal_moves()
            assert now[0] <= TIME_CAP
            checked += 1
        match.play(seat, random.Random(checked).choice(match.state.legal_moves()))
    assert checked == 3
