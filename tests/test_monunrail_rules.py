"""MonUnrail's back end: board, notation, every placement rule, the circuit, Impossible, the pie rule, unrailing.

The specification is the MonUnrail rules and their rulings: 8x7
board A1 top left, vertical straights at D4 and E4, a shared visible supply
(default 8 of each), placements of 1-3 tiles in a line touching the track
with agreeing sides, a complete track is one circuit through every tile
(crossroads on both bars), Impossible decided by exhaustive search, the pie
rule after the first move, removals of 1-3 tiles in a line, last remover wins.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termgames.match import Match, Seat
from termgames.rules import RuleError, get_game
from termgames.rules.monunrail import (
    KIND_OF_MASK,
    MASK_TYPES,
    TILE_MASKS,
    MonUnrail,
    MonUnrailState,
    cell_of,
    index_of,
    parse_cell,
    parse_move,
    start_grid,
    trace_circuit,
    track_problem,
)
from termgames.rules.monunrail.completion import (
    find_completion,
    finishing_placements,
    placements,
    random_placement,
)
from termgames.rules.monunrail.solver import Solver

GAME = MonUnrail()

#: The finished track of the author's start_of_unrail.png (18 tiles).
EXAMPLE_TRACK = {
    "C3": "X", "D3": "X",
    "C1": "T-se", "D1": "T-sw", "B3": "T-se", "E3": "T-sw",
    "D5": "T-ne", "E5": "T-nw", "B6": "T-ne", "C6": "T-nw",
    "C2": "S-v", "D2": "S-v", "B4": "S-v", "C4": "S-v", "D4": "S-v", "E4": "S-v", "B5": "S-v", "C5": "S-v",
}  # fmt: skip
EXAMPLE_LOOP = "D4 D3 D2 D1 C1 C2 C3 C4 C5 C6 B6 B5 B4 B3 C3 D3 E3 E4 E5 D5".split()

#: Legal moves (ann, bob alternately) that build the example track; the last one completes it.
EXAMPLE_MOVES = [
    "D1:T-sw,D2:S-v,D3:X",
    "C1:T-se,C2:S-v,C3:X",
    "C4:S-v,C5:S-v,C6:T-nw",
    "B3:T-se,B4:S-v,B5:S-v",
    "B6:T-ne",
    "E3:T-sw",
    "D5:T-ne,E5:T-nw",
]


def grid_of(tiles: dict[str, str]) -> tuple[int, ...]:
    grid = [0] * 56
    for name, code in tiles.items():
        grid[index_of(parse_cell(name))] = TILE_MASKS[code]
    return tuple(grid)


def new_state(**options) -> MonUnrailState:
    return GAME.new(options, ["ann", "bob"], 1)


def at(grid_tiles: dict[str, str], supply=(8, 8, 8), turn=0) -> MonUnrailState:
    """A building position with these tiles (starting tiles included by the caller)."""
    return replace(new_state(), grid=grid_of(grid_tiles), supply=supply, turn=turn, opener=0, ply=2)


def played(moves, **options) -> MonUnrailState:
    state = new_state(**options)
    for number, move in enumerate(moves):
        state = state.apply(number % 2, move)
    return state


def refused(state: MonUnrailState, seat: int, move: str) -> str:
    with pytest.raises(RuleError) as error:
        state.apply(seat, move)
    message = str(error.value)
    assert "\n" not in message
    # the view's preview check says the same without applying anything
    assert state.view(seat).move_problem(move) == message or seat not in state.to_move()
    return message


# --------------------------------------------------------------------------
# Board, options, notation
# --------------------------------------------------------------------------


def test_new_game_has_the_starting_straights_and_the_default_supply():
    state = new_state()
    view = state.view(None)
    assert view.tiles() == {(3, 3): "S-v", (4, 3): "S-v"}
    assert view.start_cells == ((3, 3), (4, 3))
    assert view.supply == (8, 8, 8)
    assert view.phase == "building" and view.to_move == (0,)
    assert not view.pie_offer and view.opener is None
    assert view.board_json()["tiles"] == {"D4": "S-v", "E4": "S-v"}
    assert parse_cell("a1") == (0, 0) and parse_cell("H7") == (7, 6)


def test_registered_with_its_options():
    game = get_game("monunrail")
    assert game.ai_levels == ("easy", "normal", "hard")
    options = game.parse_cli_options(["--supply", "6,9,3"])
    assert (options["straights"], options["turns"], options["crossroads"]) == (6, 9, 3)
    assert game.new(options, ["a", "b"], 5).supply == (6, 9, 3)
    assert game.option_flags(options) == ["--supply", "6,9,3"]
    # a supply too small for any circuit makes no game (Impossible would win at once): refused at creation
    with pytest.raises(RuleError, match="--supply's turns must be at least 4, not 3"):
        game.parse_cli_options(["--supply", "8,3,8"])
    with pytest.raises(RuleError, match="--supply's turns must be at least 4, not 0"):
        game.parse_cli_options(["--supply", "0,0,0"])
    with pytest.raises(RuleError, match="--turns must be at least 4"):
        game.parse_cli_options(["--turns", "2"])
    with pytest.raises(RuleError, match="at least 4"):
        game.check_options({"turns": 0})
    assert game.parse_cli_options(["--supply", "0,4,0"])["turns"] == 4
    with pytest.raises(RuleError, match="at most 99"):
        game.parse_cli_options(["--supply", "8,100,8"])
    with pytest.raises(RuleError, match="three values"):
        game.parse_cli_options(["--supply", "8,8"])
    with pytest.raises(RuleError, match="do not combine"):
        game.parse_cli_options(["--random-supply", "--supply", "8,8,8"])


def test_random_supply_comes_from_the_seed_and_has_at_least_16_tiles():
    options = GAME.parse_cli_options(["--random-supply"])
    drawn = {GAME.new(options, ["a", "b"], seed).supply for seed in range(40)}
    assert len(drawn) > 5
    assert all(sum(counts) >= 16 and counts[1] >= 4 for counts in drawn)
    assert GAME.new(options, ["a", "b"], 7).supply == GAME.new(options, ["x", "y"], 7).supply


def test_notation_is_case_insensitive_with_a_canonical_form():
    assert parse_move("d3:s-h , c3:t-EN").text() == "C3:T-ne,D3:S-h"
    assert parse_move("C3:tne+D3:sh").text() == "C3:T-ne,D3:S-h"
    assert parse_move("e3 d3").text() == "D3,E3"
    assert parse_move("D3+D2").text() == "D2,D3"
    assert parse_move(" SWAP ").kind == "swap"
    assert parse_move("Impossible").text() == "impossible"
    assert {code: TILE_MASKS[code] for code in MASK_TYPES.values()} == TILE_MASKS
    state = new_state()
    assert state.normalise_move(0, "d3:s-v") == "D3:S-v"


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ("D3:Q", "not a tile type"),
        ("D3:T-ns", "neighbouring sides"),
        ("D3,E3:S-h", "say which tile goes on D3"),
        ("J3:S-h", "not a cell of the board"),
        ("D8:S-h", "not a cell of the board"),
        ("D3:S-v,D3:S-v", "D3 is named twice"),
    ],
)
def test_notation_errors_are_one_line(move, message):
    assert message in refused(new_state(), 0, move)


# --------------------------------------------------------------------------
# Placement rules: each broken once
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ("D3:S-v,D2:S-v,D1:S-v,C1:S-h", "place 1 to 3 tiles, not 4"),
        ("D4:S-v", "D4 already holds a starting tile"),
        ("D3:S-v,E2:S-v", "not in one row or column"),
        ("D3:S-v,D1:S-v", "leave a gap"),
        ("A1:T-se", "next to a tile on the board"),
        ("D3:S-h", "the track of D4 points north into the blank south side of S-h on D3"),
        ("C4:S-h", "S-h on C4 points east into the blank west side of D4"),
        ("D3:S-v,D2:S-h", "the track of D3 points north into the blank south side of S-h on D2"),
    ],
)
def test_each_placement_rule_is_explained(move, message):
    assert message in refused(new_state(), 0, move)


def test_track_may_not_point_off_the_board():
    state = at({"D4": "S-v", "E4": "S-v", "D3": "S-v", "D2": "S-v"})
    assert refused(state, 0, "D1:S-v") == "S-v on D1 points north, off the board"


def test_the_supply_must_hold_the_tiles():
    state = replace(new_state(), supply=(1, 8, 0))
    assert refused(state, 0, "D3:X") == "the supply has no crossroads left"
    assert refused(state, 0, "D3:S-v,D2:S-v") == "the supply has only 1 straight left, the move needs 2"


def test_an_occupied_cell_names_the_tile_there():
    state = played(["D3:S-v"])
    assert refused(state, 1, "D3:X") == "D3 already holds a tile (S-v)"


def test_placing_takes_tiles_from_the_shared_supply_and_passes_the_turn():
    state = played(["C3:T-se,D3:X"])
    view = state.view(1)
    assert view.tile_at((2, 2)) == "T-se" and view.tile_at((3, 2)) == "X"
    assert view.supply == (8, 7, 7)
    assert view.to_move == (1,) and view.last_cells == ((2, 2), (3, 2))
    assert view.last_move == "C3:T-se,D3:X"
    # fragments may stay unconnected: C3's track south ends in the open
    assert ((2, 2), "south") in view.open_ends()


def test_move_problem_never_applies_and_tile_options_fit_the_neighbours():
    state = new_state()
    view = state.view(0)
    assert view.placement_problem("D3:S-v") is None
    assert view.placement_problem("D3:S-h") is not None
    assert state.view(0).tiles() == view.tiles()
    assert view.tile_options((3, 2)) == ["S-v", "T-se", "T-sw", "X"]
    # with a tentative neighbour the options follow it
    assert view.tile_options((2, 2), "D3:X") == ["S-h", "T-ne", "T-se", "X"]
    assert view.tile_options((3, 3)) == []
    assert view.preview("D3:S-v")[index_of((3, 2))] == TILE_MASKS["S-v"]


# --------------------------------------------------------------------------
# The circuit
# --------------------------------------------------------------------------


def test_the_authors_finished_track_is_one_circuit():
    grid = grid_of(EXAMPLE_TRACK)
    assert sum(1 for m in grid if m) == 18
    loop = trace_circuit(grid)
    assert loop is not None
    assert [cell_of(i) for i in loop] == [parse_cell(name) for name in EXAMPLE_LOOP]
    # each crossroads is passed twice, once on each bar
    assert [name for name in EXAMPLE_LOOP].count("C3") == 2 and EXAMPLE_LOOP.count("D3") == 2
    assert track_problem(grid) is None


def test_building_the_example_track_starts_unrailing_with_the_other_player():
    state = played(EXAMPLE_MOVES)
    view = state.view(None)
    assert view.phase == "unrailing"
    assert view.to_move == (1,)  # ann completed it, bob removes first
    assert len(view.unrail_cells()) == 18
    assert [f"{'ABCDEFGH'[c]}{r + 1}" for c, r in view.circuit] == EXAMPLE_LOOP
    assert "completed the track" in state.last_action
    assert view.board_json()["complete"] is True
    assert Solver().nimber(view.unrail_cells()) == 9  # the author's README vectors
    value, winning = view.unrail_hint(Solver())
    assert value == 9 and sorted(winning) == ["B3,C3", "C3,C4", "D3,D4"]


def test_finishing_moves_and_their_values_before_the_last_move():
    state = played(EXAMPLE_MOVES[:-1])
    view = state.view(0)
    assert view.finishing_moves() == ["D5:T-ne,E5:T-nw"]
    assert view.finishing_nimbers(Solver()) == [("D5:T-ne,E5:T-nw", 9)]
    assert view.completes("D5:T-ne,E5:T-nw") and not view.completes("D5:T-ne")


# A second loop through the other bars of two crossroads (D3 and E3 on their west-east bars).
TWO_LOOPS = {
    "D4": "S-v", "E4": "S-v", "D3": "X", "E3": "X", "D2": "T-se", "E2": "T-sw", "D5": "T-ne", "E5": "T-nw",
    "C3": "T-se", "C4": "S-v", "C5": "S-v", "C6": "T-ne", "D6": "S-h", "E6": "S-h",
    "F6": "T-nw", "F5": "S-v", "F4": "S-v", "F3": "T-sw",
}  # fmt: skip


def test_a_crossroads_used_on_one_bar_only_is_not_complete():
    grid = grid_of(TWO_LOOPS)
    assert trace_circuit(grid) is None
    assert track_problem(grid) == "the crossroads on D3 is used on one bar only"
    # the same with the second bar left open
    open_bar = {
        **{k: v for k, v in TWO_LOOPS.items() if k in ("D4", "E4", "D2", "E2", "D5", "E5")},
        "D3": "X",
        "E3": "X",
    }
    grid = grid_of(open_bar)
    assert trace_circuit(grid) is None
    assert "open" in track_problem(grid)
    # and no completion exists for the two loops: Impossible wins
    assert find_completion(grid_of(TWO_LOOPS), (8, 8, 8)) is None


def test_placing_onto_a_crossroads_loop_that_misses_a_bar_does_not_complete():
    tiles = {k: v for k, v in TWO_LOOPS.items() if k != "F3"}
    state = at(tiles)
    after = state.apply(0, "F3:T-sw")
    assert after.phase == "building"
    assert after.view(1).status.startswith("bob to place")


# --------------------------------------------------------------------------
# Impossible
# --------------------------------------------------------------------------


def check_completion(grid, supply, found):
    after = list(grid)
    used = [0, 0, 0]
    for index, mask in found:
        assert not grid[index]
        after[index] = mask
        used[KIND_OF_MASK[mask]] += 1
    assert all(u <= s for u, s in zip(used, supply))
    assert trace_circuit(after) is not None


def test_impossible_when_a_completion_exists_loses_and_shows_it():
    state = played(["D3:S-v"]).apply(1, "impossible")
    view = state.view(None)
    assert view.over and view.phase == "over" and view.winners == (0,)
    outcome = view.impossible
    assert outcome is not None and outcome.caller == 1 and outcome.winner == 0
    assert outcome.completion
    found = tuple((index_of(cell), TILE_MASKS[code]) for cell, code in outcome.completion)
    check_completion(played(["D3:S-v"]).grid, (7, 8, 8), found)
    data = view.board_json()["impossible"]
    assert data["caller"] == "bob" and data["winner"] == "ann" and data["completion"]
    assert "Completion found" in view.board_text()


def test_impossible_when_no_completion_exists_wins():
    # a closed loop around the starting tiles leaves F4 out for ever
    tiles = {"D4": "S-v", "E4": "S-v", "F4": "S-v", "D3": "T-se", "E3": "T-sw", "D5": "T-ne", "E5": "T-nw"}
    state = at(tiles, turn=1).apply(1, "impossible")
    assert state.winner == 1
    assert state.impossible is not None and state.impossible.completion is None
    assert state.view(0).board_json()["impossible"]["completion"] is None
    assert "no completion exists" in state.status_text()


@pytest.mark.parametrize(
    ("tiles", "supply", "possible"),
    [
        ({"D4": "S-v", "E4": "S-v"}, (0, 4, 0), True),
        ({"D4": "S-v", "E4": "S-v"}, (8, 3, 8), False),  # a circuit needs four turns
        ({"D4": "S-v", "E4": "S-v", "D3": "S-v", "E3": "S-v", "D5": "S-v", "E5": "S-v"}, (0, 4, 0), True),
        ({"D4": "S-v", "E4": "S-v", "D3": "S-v", "E3": "S-v", "D5": "S-v", "E5": "S-v"}, (8, 3, 8), False),
        # D3 and E3 turn away from each other: each side needs its own way round
        ({"D4": "S-v", "E4": "S-v", "D3": "T-sw", "E3": "T-se"}, (30, 5, 8), False),
        ({"D4": "S-v", "E4": "S-v", "D3": "T-sw", "E3": "T-se"}, (30, 6, 8), True),
        # D3's turn heads west: over the top into E3 takes 3 more turns (C3, C2, E2), the bottom 2
        ({"D4": "S-v", "E4": "S-v", "D3": "T-sw"}, (20, 4, 8), False),
        ({"D4": "S-v", "E4": "S-v", "D3": "T-sw"}, (20, 5, 8), True),
        # a long way round from A1 down column A, along row 6 and up column F
        (
            {"D4": "S-v", "E4": "S-v", "D3": "S-v", "D2": "S-v", "D1": "T-sw", "C1": "S-h", "B1": "S-h", "A1": "T-se"},
            (20, 6, 0),
            True,
        ),
        (
            {"D4": "S-v", "E4": "S-v", "D3": "S-v", "D2": "S-v", "D1": "T-sw", "C1": "S-h", "B1": "S-h", "A1": "T-se"},
            (20, 5, 0),
            False,
        ),
    ],
)
def test_the_completion_search_decides(tiles, supply, possible):
    grid = grid_of(tiles)
    found = find_completion(grid, supply)
    assert (found is not None) == possible
    if found is not None:
        check_completion(grid, supply, found)


# --------------------------------------------------------------------------
# The pie rule
# --------------------------------------------------------------------------


def test_the_second_player_may_swap_after_the_first_move():
    state = played(["D3:S-v"])
    view = state.view(1)
    assert view.pie_offer and "swap" in view.status
    swapped = state.apply(1, "swap")
    view = swapped.view(None)
    assert view.swapped and view.opener == 1 and view.to_move == (0,)
    assert not view.pie_offer
    assert "ann moves again" in swapped.last_action
    assert view.tiles() == state.view(None).tiles()  # nothing on the board changes
    assert view.board_json()["opener"] == "bob"
    # only once
    assert "pie rule" in refused(swapped.apply(0, "D2:S-v"), 1, "swap")


def test_swap_is_refused_at_other_times():
    assert "pie rule" in refused(new_state(), 0, "swap")
    later = played(["D3:S-v", "D2:S-v"])
    assert "pie rule" in refused(later, 0, "swap")
    assert "bob's turn" in refused(played(["D3:S-v"]), 0, "swap")


# --------------------------------------------------------------------------
# Unrailing
# --------------------------------------------------------------------------


def test_removal_rules():
    state = played(EXAMPLE_MOVES)
    assert refused(state, 1, "A1") == "A1 holds no tile"
    assert "not in one row or column" in refused(state, 1, "C2,D3")
    assert "leave a gap" in refused(state, 1, "B4,D4")
    assert "1 to 3 tiles, not 4" in refused(state, 1, "C1,C2,C3,C4")
    assert "no tile types" in refused(state, 1, "F3:S-h")
    assert "Impossible" in refused(state, 1, "impossible")
    assert "still being built" in refused(new_state(), 0, "D4")
    after = state.apply(1, "c3,b3")
    assert after.view(0).last_cells == ((1, 2), (2, 2)) and after.turn == 0
    assert len(after.view(0).unrail_cells()) == 16


def test_whoever_removes_the_last_tile_wins():
    state = played(EXAMPLE_MOVES)
    solver = Solver()
    seat = 1
    while not state.is_over():
        cells = state.view(seat).unrail_cells()
        moves = solver.winning_moves(cells) or [solver.best_losing_move(cells)]
        text = ",".join(f"{'ABCDEFGH'[c]}{r + 1}" for c, r in moves[0])
        last = seat
        state = state.apply(seat, text)
        seat = 1 - seat
    assert state.winner == last == 1  # bob removes first from a position worth 9
    assert state.ended_by == "unrailed" and state.scores() == (0.0, 1.0)
    assert "removed the last tile" in state.status_text()


# --------------------------------------------------------------------------
# Legal move generation and random games
# --------------------------------------------------------------------------


def test_generated_placements_are_legal_and_include_the_finishing_one():
    state = played(EXAMPLE_MOVES[:-1])
    view = state.view(0)
    generated = [
        ",".join(f"{'ABCDEFGH'[i % 8]}{i // 8 + 1}:{MASK_TYPES[m]}" for i, m in items)
        for items in placements(state.grid, state.supply)
    ]
    assert len(generated) == len(set(generated)) > 10
    assert all(view.placement_problem(text) is None for text in generated)
    assert "D5:T-ne,E5:T-nw" in generated
    assert finishing_placements(state.grid, state.supply) == [((35, 3), (36, 9))]


def play_random_game(seed: int, supply=(8, 8, 8)) -> tuple[MonUnrailState, list[tuple[int, str]]]:
    rng = random.Random(seed)
    state = replace(new_state(), supply=supply)
    history = []
    solver_free_steps = 0
    while not state.is_over():
        seat = state.turn
        view = state.view(seat)
        if view.phase == "building":
            roll = rng.random()
            if view.pie_offer and roll < 0.3:
                move = "swap"
            elif roll < 0.04:
                move = "impossible"
            else:
                items = random_placement(state.grid, state.supply, rng)
                move = "impossible" if items is None else ",".join(
                    f"{'ABCDEFGH'[i % 8]}{i // 8 + 1}:{MASK_TYPES[m]}" for i, m in items
                )
        else:
            cells = sorted(view.unrail_cells())
            options = Solver().moves(cells) if len(cells) < 4 else None
            if options is None:
                start = rng.choice(cells)
                run = [start]
                dc, dr = rng.choice(((1, 0), (0, 1)))
                for _ in range(rng.randrange(3)):
                    nxt = (run[-1][0] + dc, run[-1][1] + dr)
                    if nxt in cells:
                        run.append(nxt)
                move = ",".join(f"{'ABCDEFGH'[c]}{r + 1}" for c, r in run)
            else:
                move = ",".join(f"{'ABCDEFGH'[c]}{r + 1}" for c, r in rng.choice(options))
        assert view.move_problem(move) is None, (move, view.move_problem(move))
        state = state.apply(seat, move)
        history.append((seat, move))
        solver_free_steps += 1
        assert solver_free_steps < 200
    return state, history


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([(8, 8, 8), (4, 12, 2), (12, 6, 4)]))
def test_random_legal_games_end_and_the_last_remover_wins(seed, supply):
    state, history = play_random_game(seed, supply)
    assert state.is_over() and state.winner in (0, 1)
    last_seat, last_move = history[-1]
    if state.ended_by == "unrailed":
        assert state.winner == last_seat
        assert not any(state.grid)
        assert parse_move(last_move).kind == "remove"
    else:
        assert last_move == "impossible"
        outcome = state.impossible
        assert outcome is not None and outcome.caller == last_seat
        assert state.winner == (last_seat if outcome.completion is None else 1 - last_seat)


def test_random_games_replay_through_a_match():
    state, history = play_random_game(3)
    match = Match("monunrail", {}, [Seat("ann"), Seat("bob")], 1)
    for seat, move in history:
        match.play(seat, move.lower())
    assert match.over and match.state.winners() == state.winners()
    assert all(record.move == parse_move(record.move).text() for record in match.moves)


def test_start_grid_is_the_two_starting_straights():
    grid = start_grid()
    assert [(cell_of(i), MASK_TYPES[m]) for i, m in enumerate(grid) if m] == [((3, 3), "S-v"), ((4, 3), "S-v")]


# --------------------------------------------------------------------------
# The CLI contracts
# --------------------------------------------------------------------------


def test_cli_round_trip_new_move_show(tmp_path):
    import json

    from typer.testing import CliRunner

    from termgames.cli import app

    runner = CliRunner()
    record = tmp_path / "game.json"

    def run(*args):
        return runner.invoke(app, list(args), catch_exceptions=False)

    def show():
        result = run("show", str(record), "--json")
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    made = run("new", "monunrail", "--supply", "8,8,8", "-p", "ann", "-p", "bob", "--seed", "3", "--out", str(record))
    assert made.exit_code == 0
    data = show()
    assert data["game"] == "monunrail" and data["to_move"] == ["ann"]
    assert data["board"]["tiles"] == {"D4": "S-v", "E4": "S-v"}
    assert data["board"]["supply"] == {"straights": 8, "turns": 8, "crossroads": 8}
    assert data["board"]["phase"] == "building"
    before = record.read_bytes()
    bad = run("move", str(record), "D3:S-h")
    assert bad.exit_code == 2 and "blank south side" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert record.read_bytes() == before
    for move in [m.lower() for m in EXAMPLE_MOVES]:
        result = run("move", str(record), move)
        assert result.exit_code == 0, result.output
    data = show()
    assert data["moves"] == EXAMPLE_MOVES
    assert data["board"]["phase"] == "unrailing" and data["board"]["complete"] is True
    assert data["to_move"] == ["bob"] and len(data["board"]["tiles"]) == 18
    assert data["board"]["tiles"]["C3"] == "X" and data["board"]["last_cells"] == ["D5", "E5"]
    text = run("show", str(record)).stdout
    assert "┼" in text and "Supply: 2 straights, 0 turns, 6 crossroads" in text
    plain = run("show", str(record), "--ascii").stdout
    assert "-+-" in plain and plain.isascii()
    assert run("move", str(record), "B3,C3").exit_code == 0
    data = show()
    assert "B3" not in data["board"]["tiles"] and data["moves"][-1] == "B3,C3"
    assert "impossible" in run("rules", "monunrail").stdout.lower()
    assert run("list").stdout.count("monunrail") == 1


def test_view_lists_the_few_completions_left():
    tiles = {"D4": "S-v", "E4": "S-v", "D3": "S-v", "E3": "S-v", "D5": "T-ne", "E5": "T-nw"}
    assert at(tiles, supply=(0, 2, 0)).view(0).completions() == ["D2:T-se,E2:T-sw"]
    longer = at(tiles, supply=(2, 2, 0)).view(0).completions()
    assert sorted(longer) == ["D1:T-se,E1:T-sw,D2:S-v,E2:S-v", "D2:T-se,E2:T-sw"]
    assert at({"D4": "S-v", "E4": "S-v"}).view(0).completions(limit=3) is None
