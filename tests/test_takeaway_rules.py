"""The template game's own tests (examples/takeaway): what a new game's tests/test_NAME_rules.py starts from.

The shared contract (tests/test_game_contract.py) already runs over it; these check its rules and its bots.
"""

from __future__ import annotations

import pytest
from games import registered

from termgames.ai import make_bot
from termgames.match import Match, SeatInfo
from termgames.rules import RuleError, get_game


@pytest.fixture(autouse=True)
def takeaway_registered():
    with registered("takeaway"):
        yield


def new_state(**options):
    return get_game("takeaway").new(options, ["ann", "bob"], 1)


def test_a_move_takes_from_one_heap_and_passes_the_turn():
    state = new_state(heaps=(5, 5)).apply(0, "2-3")
    assert state.heaps == (5, 2) and state.to_move() == (1,)
    assert state.view(1).status == "It is bob's turn: take 1 to 3 from one heap"
    assert state.view(0).last_action == "ann took 3 from heap 2"


@pytest.mark.parametrize(
    ("move", "refusal"),
    [("4-1", "there is no heap 4"), ("1-4", "take 1 to 3 counters, not 4"), ("1-0", "take 1 to 3"),
     ("one", "a move is HEAP-COUNT"), ("1 - 2", "a move is HEAP-COUNT")],
)
def test_a_bad_move_is_refused_in_one_line(move, refusal):
    with pytest.raises(RuleError, match=refusal) as refused:
        new_state().apply(0, move)
    assert "\n" not in str(refused.value)


def test_a_heap_gives_no_more_than_it_has_and_the_last_taker_wins():
    state = new_state(heaps=(2,))
    with pytest.raises(RuleError, match="heap 1 has 2 counters, not 3"):
        state.apply(0, "1-3")
    over = state.apply(0, "1-2")
    assert over.is_over() and over.winners() == (0,) and over.scores() == (1.0, 0.0)
    assert over.view(None).status == "Game over: ann took the last counter and wins"


def test_a_player_named_me_reads_my_turn():
    state = get_game("takeaway").new({}, ["me", "you"], 1)
    assert state.view(0).status.startswith("It is my turn")


@pytest.mark.parametrize("seed", range(5))
def test_the_perfect_bot_wins_from_a_winning_start_against_random_play(seed):
    # Three heaps of 7, at most 3 a move: each heap is worth 7 mod 4 = 3, nim-sum 3: the first player wins.
    match = Match("takeaway", {}, [SeatInfo("perfect"), SeatInfo("random")], seed)
    bots = [make_bot("takeaway", "perfect", seed=seed), make_bot("takeaway", "random", seed=seed)]
    while not match.over:
        seat = match.state.to_move()[0]
        match.play(seat, bots[seat].choose(match.view(seat)))
    assert match.state.winners() == (0,)
