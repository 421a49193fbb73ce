"""The Copolymer AI: legal, deterministic, greedy where it should be, better than random."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from termgames.ai import make_bot
from termgames.match import Match, Seat
from termgames.rules.copolymer import Copolymer, CopolymerState

LEVELS = ["easy", "normal", "hard"]


def position(owners: dict[str, int], size: int = 5, turn: int = 0) -> CopolymerState:
    """A position with the given cells claimed and ``turn`` to claim (no obligation)."""
    state = Copolymer().new({"size": size}, ["x", "o"], 1)
    cells = list(state.owners)
    for name, seat in owners.items():
        cells[state.board.index[name]] = seat
    return replace(state, owners=tuple(cells), turn=turn)


def quick(level: str, seed: int, playouts: int = 200):
    """A bot of ``level`` with a small search, so that tests stay fast."""
    bot = make_bot("copolymer", level, seed=seed)
    if bot.settings.playouts:
        bot.settings = replace(bot.settings, playouts=playouts)
    return bot


def random_positions(size: int, count: int, seed: int):
    """Positions met in random games: a mix of plain turns and obligations."""
    chooser = random.Random(seed)
    found = []
    while len(found) < count:
        match = Match("copolymer", {"size": size}, [Seat("x"), Seat("o")], chooser.randrange(1000))
        stop = chooser.randrange(1, match.state.board.cell_count - 1)
        for _ in range(stop):
            seat = match.state.to_move()[0]
            match.play(seat, match.state.board.names[chooser.choice(sorted(match.view(seat).legal_cells()))])
        found.append(match)
    return found


def is_legal(match: Match, seat: int, move: str) -> bool:
    view = match.view(seat)
    return move in {view.board.names[cell] for cell in view.legal_cells()}


@pytest.mark.parametrize("level", LEVELS)
def test_answers_a_legal_cell_in_random_positions(level):
    matches = random_positions(7, 12, seed=1)
    assert any(match.view(0).must_continue for match in matches)  # obligations are among them
    for match in matches:
        seat = match.state.to_move()[0]
        view = match.view(seat)
        move = quick(level, seed=3).choose(view)
        assert is_legal(match, seat, move), (view.board_text(), move)
        match.play(seat, move)


def test_a_must_continue_position_is_answered_by_the_obliged_seat():
    match = Match("copolymer", {"size": 5}, [Seat("x"), Seat("o")], 2)
    for seat, cell in [(0, "C2"), (1, "C3"), (0, "C4"), (1, "A1"), (0, "D3"), (1, "D2")]:
        match.play(seat, cell)
    view = match.view(1)
    assert view.must_continue and view.to_move == (1,)
    for level in LEVELS:
        move = quick(level, seed=4).choose(view)
        assert is_legal(match, 1, move)


@pytest.mark.parametrize("level", LEVELS)
def test_the_last_empty_cell(level):
    names = Copolymer().new({"size": 3}, ["x", "o"], 1).board.names
    owners = {name: i % 2 for i, name in enumerate(names) if name != "B2"}
    view = position(owners, size=3).view(0)
    assert make_bot("copolymer", level, seed=3).choose(view) == "B2"


@pytest.mark.parametrize("level", LEVELS)
def test_deterministic_for_a_seed(level):
    view = position({"C3": 1, "C2": 0, "B2": 1, "E5": 0}).view(0)
    first = quick(level, seed=11).choose(view)
    assert all(quick(level, seed=11).choose(view) == first for _ in range(3))


@pytest.mark.parametrize("level", LEVELS)
def test_takes_a_cell_that_is_free_for_both_sides(level):
    # C3 touches o at C2, C4 and x at B2, D4: whoever claims it claims again,
    # so x must take it before o does.
    view = position({"C2": 1, "C4": 1, "B2": 0, "D4": 0}).view(0)
    assert view.obliging == {view.board.index["C3"]}
    assert quick(level, seed=5).choose(view) == "C3"


@pytest.mark.parametrize("level", LEVELS)
def test_takes_a_free_cell_that_gifts_nothing(level):
    # A1 touches o at A2 and B2 and no empty cell next to an x cell: a
    # claim for nothing, and the turn goes on.
    view = position({"A2": 1, "B2": 1, "E5": 0}).view(0)
    assert quick(level, seed=6).choose(view) == "A1"


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_ends_a_turn_without_gifts_when_it_can(level):
    # x holds D4 in the middle: a claim within two cells of it would leave
    # an empty cell touching two x cells for o to take; the rim is further.
    state = position({"D4": 0, "A1": 1, "G7": 1}, size=7)
    move = quick(level, seed=7).choose(state.view(0))
    after = state.apply(0, move)
    assert not after.obliging_cells(1), after.view(None).board_text()


def test_not_its_turn_and_unknown_levels_are_refused():
    view = position({"C3": 1}, turn=1).view(0)
    with pytest.raises(ValueError, match="turn"):
        make_bot("copolymer", "normal", seed=1).choose(view)
    with pytest.raises(ValueError, match="levels"):
        make_bot("copolymer", "godlike")


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_beats_random_on_a_small_board(level):
    wins = 0
    for game in range(6):
        ai_seat = game % 2
        match = Match("copolymer", {"size": 7}, [Seat("a"), Seat("b")], game)
        bot = quick(level, seed=game, playouts=300)
        chooser = random.Random(game)
        while not match.over:
            seat = match.state.to_move()[0]
            view = match.view(seat)
            move = bot.choose(view) if seat == ai_seat else view.board.names[chooser.choice(sorted(view.legal_cells()))]
            match.play(seat, move)
        wins += ai_seat in match.state.winners()
    assert wins >= 5
