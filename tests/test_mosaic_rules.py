"""Mosaic's rules: tiles, constraints, scoring, every alteration case, random games, records and the CLI."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from termgames.match import Match, SeatInfo
from termgames.records import from_dict, to_dict
from termgames.rules import RuleError, get_game
from termgames.rules.mosaic import Mosaic, MosaicState, scores, tile_set
from termgames.rules.mosaic.board import (
    board_mismatches,
    holes,
    mismatch_count,
    regions,
)
from termgames.rules.mosaic.positions import (
    alteration_state,
    building_state,
    grid_board,
    parse_tile,
)
from termgames.rules.mosaic.tiles import deal

GAME = Mosaic()


def play(state: MosaicState, *moves: str) -> MosaicState:
    for move in moves:
        state = state.apply(state.turn, move)
    return state


def refusal(state: MosaicState, move: str) -> str:
    with pytest.raises(RuleError) as caught:
        state.apply(state.turn, move)
    return str(caught.value)


# --------------------------------------------------------------------------
# Tiles and hands (ruling 1)
# --------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "count"), [(2, 16), (3, 45), (4, 88)])
def test_tile_set_has_every_one_or_two_colour_tile_once(players: int, count: int) -> None:
    tiles = tile_set(players)
    assert len(tiles) == len(set(tiles)) == count
    assert all(len(set(tile)) <= 2 for tile in tiles)
    hands = deal(players, 7)
    assert [len(hand) for hand in hands] == [count // players] * players
    assert sorted(tile for hand in hands for tile in hand) == sorted(tiles)
    assert deal(players, 7) == hands and deal(players, 8) != hands


def test_new_game_deals_from_the_seed_and_asks_for_the_first_tile_at_the_origin() -> None:
    state = GAME.new({}, ["a", "b"], 5)
    assert isinstance(state, MosaicState)
    assert state.hands == deal(2, 5)
    assert state.legal_moves() == sorted(f"{''.join(str(c + 1) for c in tile)}@0,0" for tile in state.hands[0])
    with pytest.raises(RuleError, match="2 to 4 players"):
        GAME.new({}, ["a"], 1)


def test_notation_is_normalised_and_nonsense_refused() -> None:
    state = GAME.new({}, ["a", "b"], 5)
    assert state.normalise_move(0, " EDGE 0,1   0,0 ") == "edge 0,0 0,1"
    assert state.normalise_move(0, "1121 @ 0 , 1") == "1121@0,1"
    assert "not a Mosaic move" in refusal(state, "hello")
    assert "not a tile" in refusal(state, "1131@0,0")
    assert "not side by side" in refusal(state, "edge 0,0 1,1")


# --------------------------------------------------------------------------
# Building phase constraints
# --------------------------------------------------------------------------

BUILDING_BOARD = """
0,0: 1111 1211
1,0: 1121
2,0: 2111
"""


def building() -> MosaicState:
    return building_state(["a", "b"], BUILDING_BOARD, [["1112", "2211", "2222", "1122"], ["1222"]], last_placed=(2, 0))


def test_first_tile_goes_at_the_origin_and_the_second_needs_one_neighbour() -> None:
    state = building_state(["a", "b"], {}, [["1111", "2222"], ["1122"]])
    assert state.legal_moves() == ["1111@0,0", "2222@0,0"]
    assert refusal(state, "1111@0,1") == "the first tile goes at 0,0"
    state = play(state, "1111@0,0")
    # One neighbour is enough for the second tile; the orthogonal positions that match come first (BPC).
    assert state.legal_moves() == ["1122@0,-1", "1122@1,0"]


def test_shape_constraint_1() -> None:
    assert refusal(building(), "1122@-2,0") == "Shape Constraint 1: a tile needs at least 2 neighbours and -2,0 has 0"


def test_colour_constraint() -> None:
    message = refusal(building(), "2222@-1,0")
    assert message.startswith("Colour Constraint: 2222's S side (b) does not match the tile at 0,0 (a)")


def test_shape_constraint_2() -> None:
    assert refusal(building(), "2211@2,1") == "Shape Constraint 2: that would leave a hole at 1,1"


def test_building_phase_constraint() -> None:
    state = building()
    message = refusal(state, "1112@-1,0")
    assert message.startswith("Building Phase Constraint: 1112 can go next to the last tile placed (2,0)")
    assert "1112@2,-1" in state.legal_moves()
    assert not [move for move in state.legal_moves() if move.startswith("1112@") and move != "1112@2,-1"]


def test_tile_not_in_hand_and_occupied_position() -> None:
    state = building()
    assert refusal(state, "1222@-1,0") == "1222 is not in a's hand"
    assert refusal(state, "1112@0,0") == "0,0 already holds a tile"


def test_a_player_with_no_placeable_tile_passes_and_building_ends_when_no_one_can_place() -> None:
    # a's 2222 fits nowhere (every free side with two neighbours is seat 1's); b can still place 1121.
    state = building_state(["a", "b"], "0,0: 1111 1211", [["2222"], ["1121"]], turn=0, last_placed=(0, 0))
    assert state.legal_moves() == ["pass"]
    assert state.step().must_pass
    assert "must pass" in refusal(state, "2222@1,0")
    state = play(state, "pass")
    assert state.turn == 1 and state.phase == "building"
    assert state.legal_moves() == ["1121@1,0"]  # 1,1 fits too, but 1,0 is next to the last tile
    state = play(state, "1121@1,0")
    # No one can place any more: 2222 stays out of play and the alteration phase starts with seat 1.
    assert state.phase == "alteration" and state.turn == 0 and state.kind == "SE"
    assert state.out_of_play == (parse_tile("2222"),)
    assert state.hands == ((), ())


def test_building_ends_when_the_hands_are_empty_and_alteration_starts_with_the_first_player() -> None:
    state = GAME.new({}, ["a", "b"], 3)
    rng = random.Random(3)
    while state.phase == "building":
        state = play(state, rng.choice(state.legal_moves()))
    assert state.kind == "SE" and state.turn == 0 and len(state.board) + len(state.out_of_play) == 16


# --------------------------------------------------------------------------
# Scores (ruling 4)
# --------------------------------------------------------------------------


def test_a_square_of_a_solid_and_three_chevrons_facing_out_scores_16() -> None:
    # a's solid at the top left; each chevron's odd (b) quarter faces out of the square:
    # 2111 up, 1112 left, 1121 down.
    board = grid_board("""
0,0: 1111 2111
1,0: 1112 1121
""")
    assert scores(board, 2) == (16, 3)
    a_regions = [region for region in regions(board) if region.colour == 0]
    assert len(a_regions) == 1 and a_regions[0].size == 4 and a_regions[0].points == 16


def test_opposite_quarters_do_not_touch_and_regions_do_not_cross_mismatches() -> None:
    # 1212: N and S are a, E and W are b; no two quarters of one colour touch.
    assert sorted(region.size for region in regions(grid_board("0,0: 1212"))) == [1, 1, 1, 1]
    assert scores(grid_board("0,0: 1111 2111"), 2) == (4, 1)
    board = grid_board("0,0: 1121 2222")  # 1121's E is a, 2222's W is b: a mismatch, no crossing
    assert board_mismatches(board) == [((0, 0), 1), ((0, 1), 3)]
    assert scores(board, 2) == (1, 1 + 1)


# --------------------------------------------------------------------------
# Alteration cases (positions built directly)
# --------------------------------------------------------------------------

EXACT = """
-3,-1: 1111 .... .... .... ....
-2,-1: 1222 2122 2111 1121 ....
-1,-1: .... 2121 1211 2112 ....
0,-1: .... 2211 1212 1112 1221
1,-1: .... .... .... 1122 2221
2,-1: .... .... .... 2212 2222
"""


def test_exact_replacement_routine_without_mismatch() -> None:
    state = alteration_state(["a", "b"], EXACT, turn=0)
    assert board_mismatches(state.board) == []
    state = play(state, "edge -2,0 -1,0")
    assert state.hands[0] == (parse_tile("2122"), parse_tile("2121"))
    step = state.step()
    assert (step.kind, step.replacing, step.target) == ("R", (-2, 0), parse_tile("2112"))
    assert state.legal_moves() == ["take -1,2"]  # 2122 with its S side turned a's colour: 2112
    assert "does not match 2112" in refusal(state, "take 0,2")
    state = play(state, "take -1,2")
    assert state.legal_moves() == ["take -2,2"]  # 2121 with N turned a: 1121
    state = play(state, "take -2,2")
    assert state.kind == "SH/P" and not holes(state.board)
    legal = state.legal_moves()
    assert "2122@0,-1" in legal and all(mismatch_count(state.board, p, t) == 0 for t, p in state.placing_options())
    # Both tiles can go back with no mismatch and no hole, so only such placements are legal.
    assert refusal(state, "2122@-3,0") == "Colour Constraint: 2122's W side (b) does not match the tile at -3,-1 (a)"
    state = play(state, "2122@0,-1")
    assert state.kind == "P" and state.legal_moves() == ["2121@-1,-1"]  # the hole 2122 left must be filled
    assert refusal(state, "2121@-4,-1").startswith("Shape Constraint 1")
    state = play(state, "2121@-1,-1")
    assert (state.kind, state.turn, state.routines) == ("SE", 1, 1)
    assert board_mismatches(state.board) == []


THREE_COLOURS = """
-1,0: .... .... 3322
0,0: 1122 1111
1,0: 2322 1113
2,0: .... 1333
"""


def test_three_colour_replacement_takes_the_closest_tiles_then_one_hole_gets_the_better_tile() -> None:
    state = alteration_state(["a", "b", "c"], THREE_COLOURS, turn=2)
    state = play(state, "edge 0,0 0,1")
    # 1122 with E turned c would be 1322 (three colours): the tiles with E = c and one other quarter off.
    assert state.step().target == parse_tile("1322")
    assert state.legal_moves() == ["take -1,2", "take 1,0"]
    message = refusal(state, "take 2,1")  # 1333 differs in two quarters
    assert "Replacement Step Constraint" in message and "candidates: -1,2, 1,0" in message
    state = play(state, "take -1,2", "take 1,1")
    # 1,1 is now a hole needing N=a, W=c, S=a: 1111 mismatches one side, 1122 two: 1111 must go there.
    assert state.step().holes == ((1, 1),)
    assert state.legal_moves() == ["1111@1,1"]
    assert refusal(state, "1122@-1,0").startswith("Shape Constraint 2: the hole at 1,1 must be filled first")
    state = play(state, "1111@1,1")
    assert state.kind == "P"
    # 1122 matches nowhere: it goes where it has the fewest (one) mismatched sides.
    assert len(state.legal_moves()) == 7
    assert all(mismatch_count(state.board, p, t) == 1 for t, p in state.placing_options())
    assert "fewest mismatched sides" in refusal(state, "1122@2,0")  # two mismatched sides there


TWO_HOLES = """
-3,0: .... 1121 .... ....
-2,0: 2122 2111 1111 ....
-1,0: 2121 1211 1222 2112
0,0: 2222 1122 2211 1212
1,0: .... 2212 1112 1221
2,0: .... .... .... 2221
"""


def test_two_holes_take_the_pairs_with_fewest_mismatches_and_ruling_10_ends_the_routine() -> None:
    state = alteration_state(["a", "b"], TWO_HOLES, turn=1)
    assert board_mismatches(state.board) == []
    state = play(state, "edge -2,1 -1,1", "take -1,0", "take 0,2")
    assert state.step().holes == ((-1, 0), (0, 2))
    # 2111 mismatches one side in either hole, 1211 one side at 0,2 and three at -1,0.
    assert state.legal_moves() == ["1211@0,2", "2111@-1,0", "2111@0,2"]
    state = play(state, "1211@0,2")
    assert state.legal_moves() == ["2111@-1,0"]
    state = play(state, "2111@-1,0")
    # Both mismatched tiles' targets (2121, 2211) were moved into place in this routine: no candidate,
    # so the routine ends with the mismatches on the board (ruling 10) and a starts the next one.
    assert (state.kind, state.turn, state.routines) == ("SE", 0, 1)
    assert board_mismatches(state.board) == [((-1, 0), 2), ((-1, 2), 2), ((0, 0), 0), ((0, 2), 0)]
    assert "no replacement" in state.last_action


PASSED_ON = """
-2,-1: 1212 .... .... ....
-1,-1: 1222 2222 1122 1221
0,-1: 2211 2112 2111 2221
1,-1: .... 1112 1111 2121
2,-1: .... 1121 1211 2122
3,-1: .... 2212 .... ....
"""


def test_mismatches_pass_to_the_next_player_and_on_round_the_table() -> None:
    state = alteration_state(["a", "b"], PASSED_ON, turn=0)
    assert board_mismatches(state.board) == []
    state = play(state, "edge -1,1 0,1", "take 1,0", "take 1,1")
    assert state.legal_moves() == ["1122@1,1", "2111@1,1"]
    state = play(state, "2111@1,1", "1122@1,0")
    # a's placements left mismatches: b resolves them (Step R then Step P), in reading order.
    step = state.step()
    assert (step.kind, step.player, step.subroutine, step.replacing) == ("R", 1, "mismatch", (0, 1))
    assert step.mismatched == ((0, 1), (1, 0), (1, 1))
    assert state.legal_moves() == ["take 2,0"]
    state = play(state, "take 2,0")
    assert state.kind == "P" and state.hands[1] == (parse_tile("1111"),)
    state = play(state, "1111@2,0")
    # b's placement mismatches in turn: back to a, the next player after b.
    assert (state.kind, state.turn, state.subroutine) == ("R", 0, "mismatch")
    state = play(state, "take 1,2", "1111@1,2")
    assert (state.kind, state.turn, state.initiator, state.routines) == ("SE", 1, 1, 1)


MISMATCH_RESOLVED = """
-3,0: .... .... 2111 2121 2211 ....
-2,0: .... .... 1212 2112 1111 1121
-1,0: 1122 1211 1112 1221 1222 2122
0,0: 2221 .... .... .... 2212 2222
"""


def test_mismatch_resolved_by_the_next_player_ends_the_routine() -> None:
    state = alteration_state(["a", "b"], MISMATCH_RESOLVED, turn=1)
    assert board_mismatches(state.board) == []
    state = play(state, "edge -1,2 -1,3", "take -2,2", "take -1,4")
    assert state.legal_moves() == ["1112@-2,2", "1221@-1,4", "1221@-2,2"]
    state = play(state, "1221@-1,4", "1112@-2,2")
    assert (state.kind, state.turn, state.step().replacing) == ("R", 0, (-1, 3))
    state = play(state, "take -1,0")
    assert state.kind == "P" and state.hands[0] == (parse_tile("1222"),)
    state = play(state, "1222@0,6")
    assert (state.kind, state.turn, state.routines) == ("SE", 0, 1)


def test_step_se_refusals() -> None:
    state = alteration_state(["a", "b"], EXACT, turn=0)
    assert refusal(state, "edge 5,5 5,6") == "Step SE: there is no tile at 5,5"
    assert "already partly your colour" in refusal(state, "edge -3,-1 -2,-1")
    assert "it is Step SE" in refusal(state, "take 0,0")


def test_ruling_10_caps_the_step_rs_of_a_routine() -> None:
    state = alteration_state(["a", "b"], PASSED_ON, turn=0)
    state = play(state, "edge -1,1 0,1", "take 1,0", "take 1,1", "2111@1,1")
    capped = replace(state, r_steps=4 * state.tiles_in_play())
    capped = play(capped, "1122@1,0")
    assert (capped.kind, capped.turn, capped.routines) == ("SE", 1, 1)


# --------------------------------------------------------------------------
# Passing, winning, game end
# --------------------------------------------------------------------------


def test_a_player_with_no_edge_passes_and_everyone_passing_ends_the_game() -> None:
    # Every edge is already partly a's colour and b has nothing to take: both pass.
    state = alteration_state(["a", "b"], "0,0: 1111 1111", turn=0)
    assert state.legal_moves() == ["pass"]
    state = play(state, "pass")
    assert state.turn == 1 and not state.is_over()
    assert state.legal_moves() == ["pass"]
    state = play(state, "pass")
    assert state.is_over() and "every player passed" in state.finish
    assert state.winners() == (0,)  # a has 4 points, b none


def test_two_checks_in_a_row_at_the_winning_score_win() -> None:
    # a 10x10 block of a's solid colour is one region of 100 tiles: 10000 points.
    board = {(r, c): (0, 0, 0, 0) for r in range(10) for c in range(10)}
    state = alteration_state(["a", "b"], board, turn=0)
    state = play(state, "pass")  # first check at or above 100
    assert state.streaks == (1, 0) and not state.is_over()
    state = play(state, "pass")  # b's check (0 points)
    assert state.is_over()  # everyone passed in one round ends the game too
    state = alteration_state(["a", "b", "c"], board, turn=0)
    state = play(state, "pass", "pass", "pass")
    assert state.winners() == (0,)
    # With b able to move, a's second check wins.
    board[(10, 0)] = (1, 1, 1, 1)
    state = alteration_state(["a", "b"], board, turn=0)
    state = replace(state, streaks=(1, 0))
    state = play(state, "pass")
    assert state.is_over() and state.won_by == 0 and state.winners() == (0,)


def test_max_routines_ends_the_game_with_the_highest_score() -> None:
    state = alteration_state(["a", "b"], EXACT, turn=0, options={"max_routines": 1})
    state = play(state, "edge -2,0 -1,0", "take -1,2", "take -2,2", "2122@0,-1", "2121@-1,-1")
    assert state.is_over() and state.routines == 1
    assert state.winners() == tuple(s for s, v in enumerate(state.scores()) if v == max(state.scores()))
    assert state.legal_moves() == []


# --------------------------------------------------------------------------
# Random games (hypothesis)
# --------------------------------------------------------------------------


def check_invariants(state: MosaicState, players: int) -> None:
    in_play = Counter(state.board.values()) + Counter(t for hand in state.hands for t in hand)
    in_play += Counter(state.out_of_play)
    assert in_play == Counter(tile_set(players)), "tiles lost or duplicated"
    assert state.scores() == tuple(float(s) for s in scores(state.board, players))
    recount = [0] * players
    for region in regions(state.board):
        recount[region.colour] += len(region.tiles) ** 2
    assert list(state.scores()) == recount
    legal = state.legal_moves()
    assert bool(legal) == (not state.is_over())
    assert legal == sorted(legal)


@pytest.mark.parametrize(("players", "routines"), [(2, 12), (3, 6), (4, 3)])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_random_games_keep_the_tiles_and_scores_and_end(players: int, routines: int, seed: int) -> None:
    names = ["a", "b", "c", "d"][:players]
    state = GAME.new({"max_routines": routines}, names, seed)
    rng = random.Random(seed)
    for _ply in range(5000):
        assert isinstance(state, MosaicState)
        check_invariants(state, players)
        if state.is_over():
            break
        move = rng.choice(state.legal_moves())
        state = state.apply(state.turn, move)
    assert state.is_over()
    assert state.routines <= routines


# --------------------------------------------------------------------------
# Records, views and the CLI
# --------------------------------------------------------------------------


def random_match(players: int, plies: int, seed: int = 11) -> Match:
    match = Match("mosaic", {"max_routines": 4}, [SeatInfo(n) for n in ["a", "b", "c", "d"][:players]], seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if match.over:
            break
        state = match.state
        assert isinstance(state, MosaicState)
        match.play(state.turn, rng.choice(state.legal_moves()))
    return match


def test_records_round_trip() -> None:
    match = random_match(2, 40)
    copy = from_dict(json.loads(json.dumps(to_dict(match))))
    assert [m.move for m in copy.moves] == [m.move for m in match.moves]
    assert copy.state == match.state
    assert copy.view(0).board_json() == match.view(0).board_json()


def test_board_json_shape() -> None:
    match = random_match(3, 60)
    board = match.view(None).board_json()
    assert set(board) == {"tiles", "hands", "step", "legal", "routines"}
    assert all(isinstance(v, list) and len(v) == 4 and set(v) <= {"a", "b", "c"} for v in board["tiles"].values())
    assert all("," in key for key in board["tiles"])
    assert set(board["hands"]) == {"a", "b", "c"}
    assert board["step"]["kind"] in ("SH/P", "SE", "R", "P") and board["step"]["player"] in ("a", "b", "c")
    state = match.state
    assert isinstance(state, MosaicState)
    assert board["legal"] == state.legal_moves()


def test_cli_new_move_show(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from termgames.cli import app

    runner = CliRunner()
    path = tmp_path / "g.json"
    result = runner.invoke(app, ["new", "mosaic", "-p", "a", "-p", "b", "--out", str(path), "--seed", "5"])
    assert result.exit_code == 0, result.output
    shown = json.loads(runner.invoke(app, ["show", str(path), "--json"]).output)
    first = shown["board"]["legal"][0]
    assert first.endswith("@0,0")
    result = runner.invoke(app, ["move", str(path), first, "--as", "a"])
    assert result.exit_code == 0, result.output
    shown = json.loads(runner.invoke(app, ["show", str(path), "--json"]).output)
    board = shown["board"]
    assert list(board["tiles"]) == ["0,0"]
    assert board["tiles"]["0,0"] == ["a" if d == "1" else "b" for d in first[:4]]
    assert board["step"]["kind"] == "SH/P" and board["step"]["player"] == "b"
    assert board["routines"] == 0 and len(board["hands"]["a"]) == 7
    result = runner.invoke(app, ["move", str(path), "1111@5,5", "--as", "b"])
    assert result.exit_code == 2
    text = runner.invoke(app, ["show", str(path)]).output
    assert "hand" in text and "Step SH/P" in text
    assert "Notation" in runner.invoke(app, ["rules", "mosaic"]).output


def test_registered() -> None:
    assert isinstance(get_game("mosaic"), Mosaic)
    assert "Shape Constraint 2" in GAME.rules_text()


def test_the_view_carries_the_position_for_bots() -> None:
    match = random_match(2, 30)
    view = match.view(1)
    state = view.state()  # type: ignore[attr-defined]  # MosaicView
    assert state == match.state and state.legal_moves() == list(view.board_json()["legal"])


def test_board_text_draws_quarters_holes_and_the_position_being_replaced() -> None:
    state = alteration_state(["a", "b", "c"], THREE_COLOURS, turn=2)
    state = play(state, "edge 0,0 0,1", "take -1,2")
    text = state.view(None).board_text(ascii=True)
    assert "[R]" in text  # 0,1 waits for its replacement
    assert "|  3  |" in text and "+-----+" in text  # 3322's N quarter, ASCII grid
    assert "c to play Step R: choose a replacement for the tile that was at 0,1" in text
    state = play(state, "take 1,1")
    assert "hole" in state.view(None).board_text()


def test_replaying_checks_each_edge_alone_with_the_same_verdicts() -> None:
    match = random_match(3, 400, seed=5)
    replayed = Match.replay("mosaic", match.options, match.seats, match.seed, match.moves)
    assert replayed.state == match.state
    # A fresh state (nothing listed yet) refuses an edge the list would not hold, and takes one it holds.
    checked = 0
    for state in match.states:
        if isinstance(state, MosaicState) and state.phase == "alteration" and state.kind == "SE":
            checked += 1
            listed = set(state.legal_moves())
            for move in ("edge 0,0 0,1", "edge 0,0 1,0", "edge -1,0 0,0", "edge 0,-1 0,0"):
                fresh = replace(state)
                try:
                    fresh.apply(state.turn, move)
                    accepted = True
                except RuleError:
                    accepted = False
                assert accepted == (move in listed), move
    assert checked >= 3
