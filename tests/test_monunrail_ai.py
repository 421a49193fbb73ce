"""The MonUnrail computer player: legal moves only, perfect removals, completing only into a 0, Impossible when
proven."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from termgames.ai import make_bot
from termgames.rules.monunrail import (
    TILE_MASKS,
    MonUnrail,
    ParsedMove,
    cell_name,
    index_of,
    parse_cell,
    parse_move,
    trace_circuit,
)
from termgames.rules.monunrail.completion import (
    random_placement,
)
from termgames.rules.monunrail.solver import Solver, parse_shape

GAME = MonUnrail()


def position(tiles: dict[str, str], supply=(8, 8, 8), phase="building", turn=0):
    grid = [0] * 56
    for name, code in tiles.items():
        grid[index_of(parse_cell(name))] = TILE_MASKS[code]
    state = GAME.new({}, ["bot", "you"], 1)
    return replace(state, grid=tuple(grid), supply=supply, phase=phase, turn=turn, opener=0, ply=4)


def unrailing(cells) -> object:
    """A removal position on these solver cells (tile types do not matter any more)."""
    return position({cell_name(c): "S-h" for c in cells}, phase="unrailing")


def test_removal_takes_a_winning_move_when_there_is_one():
    # the death-match position dm1 (the author's README vectors): value 2, five moves to 0
    dm1 = {parse_cell(n) for n in "D3 E3 F3 G3 F2 G2 D4 E4 D5 E5".split()}
    expected = {"D3,E3", "F3,G3", "F2,F3", "F2,G2", "G2,G3"}
    for seed in range(4):
        move = make_bot("monunrail", "normal", seed).choose(unrailing(dm1).view(0))
        assert parse_move(move).text() in expected


def test_removal_in_a_lost_position_keeps_the_most_play():
    square = parse_shape("##\n##")  # value 0
    cells = {(c + 2, r + 2) for c, r in square}
    move = make_bot("monunrail", "hard", 0).choose(unrailing(cells).view(0))
    solver = Solver()
    assert parse_move(move).cells == solver.best_losing_move(cells)


def test_impossible_is_called_when_no_completion_exists():
    tiles = {"D4": "S-v", "E4": "S-v", "F4": "S-v", "D3": "T-se", "E3": "T-sw", "D5": "T-ne", "E5": "T-nw"}
    assert make_bot("monunrail", "easy", 0).choose(position(tiles).view(0)) == "impossible"


def test_completes_when_the_finished_track_is_worth_zero():
    # D2:T-se,E2:T-sw closes a 2x4 block of track: value 0, so the other player (to remove first) loses
    tiles = {"D4": "S-v", "E4": "S-v", "D3": "S-v", "E3": "S-v", "D5": "T-ne", "E5": "T-nw"}
    move = make_bot("monunrail", "normal", 0).choose(position(tiles, supply=(4, 4, 0)).view(0))
    assert move == "D2:T-se,E2:T-sw"


def test_keeps_the_track_open_when_completing_would_lose():
    # D5:T-ne,E5:T-nw would close a 2x3 block: value 2, a win for the other player
    tiles = {"D4": "S-v", "E4": "S-v", "D3": "T-se", "E3": "T-sw"}
    for seed in range(3):
        state = position(tiles)
        move = make_bot("monunrail", "normal", seed).choose(state.view(0))
        after = state.apply(0, move)
        assert after.phase == "building", move


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_the_bot_plays_only_legal_moves_to_the_end(level):
    rng = random.Random(level)
    solver = Solver()
    for game_number in range(2):
        state = GAME.new({}, ["bot", "rnd"] if game_number == 0 else ["rnd", "bot"], game_number)
        bot_seat = 0 if game_number == 0 else 1
        bot = make_bot("monunrail", level, game_number)
        while not state.is_over():
            view = state.view(state.turn)
            if state.turn == bot_seat:
                move = bot.choose(view)
                assert view.move_problem(move) is None, (move, view.move_problem(move))
            elif view.phase == "building":
                items = random_placement(state.grid, state.supply, rng)
                move = "impossible" if items is None else ParsedMove("place", items).text()
            else:
                move = ",".join(cell_name(c) for c in rng.choice(solver.moves(view.unrail_cells())))
            state = state.apply(state.turn, move)


def test_bot_against_bot_games_end():
    state = GAME.new({}, ["a", "b"], 5)
    bots = [make_bot("monunrail", "normal", 1), make_bot("monunrail", "hard", 2)]
    moves = 0
    while not state.is_over():
        move = bots[state.turn].choose(state.view(state.turn))
        state = state.apply(state.turn, move)
        moves += 1
        assert moves < 120
    assert state.winner in (0, 1)
    if state.ended_by == "unrailed":
        assert trace_circuit(state.grid) is None


def test_unknown_level_is_refused():
    with pytest.raises(ValueError):
        make_bot("monunrail", "expert")


def test_a_hint_has_a_budget_and_asking_again_goes_on(monkeypatch):
    """The game screen's hint stops at its time budget (2 s) with a message instead of running on; what it
    solved stays, so the next request goes further (here: with the budget back, it finishes)."""
    from termgames import solver_run
    from termgames.ai.monunrail import HintGiver, HintUnfinished

    view = unrailing([(c, r) for c in range(5) for r in range(4)]).view(0)  # a 4 x 5 block: 7
    giver = HintGiver()
    monkeypatch.setattr(solver_run, "HINT_SECONDS", 0.0)
    with pytest.raises(HintUnfinished, match=r"not worked out within the time limit \(0\.0 s\)"):
        giver.hint(view)
    solved = giver._solver.cache_size
    assert solved > 0 and giver._solver.memory_limit is None
    monkeypatch.setattr(solver_run, "HINT_SECONDS", 60.0)  # not 2 s: a loaded test machine must not fail it
    hint = giver.hint(view)
    assert hint.lines[0][0] == "Nimber 7: "
    assert giver._solver.cache_size > solved
