"""The Copolymer AI: legal, deterministic, greedy where it should be, better than random."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from termgames.ai import make_bot
from termgames.match import Match, SeatInfo
from termgames.rules.copolymer import Copolymer


def position(owners: dict[str, int], size: int = 5, turn: int = 0):
    state = Copolymer().new({"size": size}, ["x", "o"], 1)
    cells = list(state.owners)
    for name, seat in owners.items():
        cells[state.board.index[name]] = seat
    return replace(state, owners=tuple(cells), turn=turn)


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_answers_a_legal_empty_cell(level):
    state = position({"C3": 1, "C2": 0})
    bot = make_bot("copolymer", level, seed=1)
    bot.settings = replace(bot.settings, seconds=min(bot.settings.seconds, 0.3))
    view = state.view(0)
    move = bot.choose(view)
    assert move in {view.board.names[c] for c in view.legal_cells()}


def test_the_last_empty_cell():
    names = Copolymer().new({"size": 3}, ["x", "o"], 1).board.names
    owners = {name: i % 2 for i, name in enumerate(names) if name != "B2"}
    view = position(owners, size=3).view(0)
    assert make_bot("copolymer", "normal", seed=3).choose(view) == "B2"


def test_must_continue_positions_are_answered_by_the_same_seat():
    match = Match("copolymer", {"size": 5}, [SeatInfo("x"), SeatInfo("o")], 2)
    for seat, cell in [(0, "C2"), (1, "C3"), (0, "C4"), (1, "A1"), (0, "D3"), (1, "D2")]:
        match.play(seat, cell)
    view = match.view(1)
    assert view.must_continue and view.to_move == (1,)
    move = make_bot("copolymer", "normal", seed=4).choose(view)
    match.play(1, move)  # legal for the obliged seat


def test_deterministic_for_a_seed():
    view = position({"C3": 1, "C2": 0, "B2": 1}).view(0)
    first = make_bot("copolymer", "normal", seed=11).choose(view)
    assert all(make_bot("copolymer", "normal", seed=11).choose(view) == first for _ in range(2))


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_takes_a_cell_that_is_free_for_both_sides(level):
    # C3 touches o at C2, C4 and x at B2, D4: whoever claims it claims again,
    # so x must take it before o does.
    view = position({"C2": 1, "C4": 1, "B2": 0, "D4": 0}).view(0)
    assert view.obliging == {view.board.index["C3"]}
    assert make_bot("copolymer", level, seed=5).choose(view) == "C3"


def test_unknown_level_is_refused():
    with pytest.raises(ValueError, match="levels"):
        make_bot("copolymer", "godlike")


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_beats_random_on_a_small_board(level):
    wins = 0
    for game in range(6):
        ai_seat = game % 2
        match = Match("copolymer", {"size": 7}, [SeatInfo("a"), SeatInfo("b")], game)
        bot = make_bot("copolymer", level, seed=game)
        if level == "normal":
            bot.settings = replace(bot.settings, playouts=300)
        chooser = random.Random(game)
        while not match.over:
            seat = match.state.to_move()[0]
            view = match.view(seat)
            if seat == ai_seat:
                move = bot.choose(view)
            else:
                move = view.board.names[chooser.choice(sorted(view.legal_cells()))]
            match.play(seat, move)
        wins += ai_seat in match.state.winners()
    assert wins >= 5
