"""Mono's rules: the page's worked examples, layouts, turns, multiplayer, hidden boards."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termgames.match import Match, Seat
from termgames.rules import RuleError
from termgames.rules.base import ALL
from termgames.rules.mono import (
    Mono,
    check_layout,
    grid_for,
    parse_layout,
    random_layout,
    score_values,
)

EXAMPLE = "666699777664999787344999787342955888312555888"


def seats(*names):
    return [Seat(name) for name in names]


def laid_out(names=("fred", "ned"), layouts=None, options=None, seed=1) -> Match:
    match = Match(Mono(), options or {}, seats(*names), seed)
    for seat, layout in enumerate(layouts or [EXAMPLE] * len(names)):
        match.play(seat, layout)
    return match


def test_score_of_the_pages_turn():
    assert score_values([2, 3, 5, 5, 5, 5, 7, 7, 8]) == 23
    assert score_values([]) == 0
    assert score_values([4]) == 1
    assert score_values([1, 1, 1]) == 9


@pytest.mark.parametrize(
    "regions, cells, height, width",
    [(2, 3, 1, 3), (9, 45, 5, 9), (10, 55, 5, 11), (16, 136, 8, 17), (35, 630, 18, 35)],
)
def test_board_sizes(regions, cells, height, width):
    grid = grid_for(regions)
    assert (grid.cells, grid.height, grid.width) == (cells, height, width)


def test_coordinates_rows_count_from_the_bottom():
    grid = grid_for(9)
    assert grid.names[0] == "a5" and grid.names[8] == "i5" and grid.names[-1] == "i1"
    assert grid.index["a1"] == 36


def test_example_layout_is_the_pages_board():
    values = parse_layout(EXAMPLE, 9)
    grid = grid_for(9)
    assert values[grid.index["b1"]] == 1
    assert sorted(grid.names[i] for i, v in enumerate(values) if v == 2) == ["c1", "c2"]
    assert values[grid.index["i5"]] == 7


def test_hexadecimal_labels():
    # A 10-region board: the region of ten cells is labelled 'a'.
    layout = random_layout(10, random.Random(3))
    text = "".join("123456789a"[v - 1] for v in layout)
    assert text.count("a") == 10
    assert parse_layout(text.upper(), 10) == layout


@pytest.mark.parametrize(
    "layout, words",
    [
        (EXAMPLE[:-1], "44 values"),
        (EXAMPLE[:-1] + "9", "region 8 has 7 cells"),
        ("x" + EXAMPLE[1:], "'x' is not a region label"),
        # swap the 1 with a 2 far away: region 2 then splits
        (EXAMPLE.replace("312555888", "321555888"), "region 2 is not connected"),
    ],
)
def test_layout_errors_name_the_region(layout, words):
    with pytest.raises(RuleError, match=words):
        parse_layout(layout, 9)


def test_manual_layout_refused_with_reason_through_a_move():
    match = Match(Mono(), {}, seats("a", "b"), 1)
    with pytest.raises(RuleError, match="region"):
        match.play(0, EXAMPLE[:-1] + "9")
    with pytest.raises(RuleError, match="must first lay out"):
        match.play(0, "a3")
    assert match.moves == []


@pytest.mark.parametrize("regions", range(2, 21))
def test_random_layouts_are_valid_and_reproducible(regions):
    for seed in range(3):
        layout = random_layout(regions, random.Random(seed))
        check_layout(layout, regions)
        assert layout == random_layout(regions, random.Random(seed))


def test_turn_ends_at_first_decrease_and_later_positions_unprobed():
    match = laid_out()
    # ned's board is the example: a1=3, b1=1, c1=2, d1=5
    match.play(0, "a1,b1,c1,d1")
    state = match.state
    record = state.turns[-1]
    assert [p.value for p in record.probes] == [3, 1]
    assert record.scoring == (3,) and record.score == 1
    grid = grid_for(9)
    assert grid.index["c1"] not in state.probed[0]
    assert state.totals == (1, 0)
    assert state.turn == 1


def test_the_23_point_turn_played():
    # values 2 3 5 5 5 5 7 7 8 then 3 on the example board
    grid = grid_for(9)
    layout = parse_layout(EXAMPLE, 9)
    wanted = [2, 3, 5, 5, 5, 5, 7, 7, 8, 3]
    cells, used = [], set()
    for value in wanted:
        cell = next(i for i, v in enumerate(layout) if v == value and i not in used)
        used.add(cell)
        cells.append(grid.names[cell])
    match = laid_out()
    match.play(0, ",".join(cells))
    assert match.state.totals[0] == 23
    assert match.state.turns[-1].ended_by_decrease


def test_auto_random_end_and_no_auto():
    match = laid_out()
    match.play(0, "a1,end")  # 3, no random probes
    assert len(match.state.turns[-1].probes) == 1
    match.play(1, "a1")  # then random probes until a decrease
    probes = match.state.turns[-1].probes
    assert probes[0].random is False and all(p.random for p in probes[1:])
    assert len(probes) >= 2
    assert match.state.turns[-1].ended_by_decrease or len(match.state.probed[1]) == 45
    quiet = laid_out(options={"no_auto": True})
    quiet.play(0, "i5")
    assert len(quiet.state.turns[-1].probes) == 1
    quiet.play(1, "i5,random")  # explicit random still continues
    assert len(quiet.state.turns[-1].probes) >= 2


def test_move_log_lists_each_probe_with_its_value_and_marks_random_ones():
    match = laid_out()
    match.play(0, "b1,hold")  # 1, the turn stays open
    match.play(0, "c1,end")  # 2
    match.play(1, "a1")  # 3, then random probes until a decrease
    view = match.view(0)
    assert [view.log_text(text, ply) for ply, (_seat, text) in enumerate(view.moves)][:2] == ["layout", "layout"]
    assert view.log_text(view.moves[2][1], 2) == "b1=1"
    assert view.log_text(view.moves[3][1], 3) == "c1=2"
    auto = view.log_text(view.moves[4][1], 4).split()
    assert auto[0] == "a1=3" and len(auto) >= 2
    assert all("*=" in probe for probe in auto[1:])
    assert view.log_text("a1,hold") == "a1"  # without its ply, the command as typed


def test_reprobing_is_refused():
    match = laid_out()
    match.play(0, "a1,end")
    match.play(1, "a1,end")
    with pytest.raises(RuleError, match="probed a1 already"):
        match.play(0, "a1,end")
    with pytest.raises(RuleError, match="listed twice"):
        match.play(0, "b2,b2")
    with pytest.raises(RuleError, match="not a position"):
        match.play(0, "z9")


def test_hold_keeps_the_turn_open():
    match = laid_out()
    match.play(0, "b1,hold")  # 1
    assert match.state.to_move() == (0,)
    assert "goes on" in match.view(0).status
    match.play(0, "c1,hold")  # 2
    match.play(0, "end")
    assert match.state.turns[-1].scoring == (1, 2)
    assert match.state.totals[0] == 2
    assert match.state.to_move() == (1,)
    with pytest.raises(RuleError, match="at least one position"):
        match.play(1, "end")


def three_player_match(options=None) -> Match:
    # Three boards with known values at a1 (bottom-left) and b1.
    base = parse_layout(EXAMPLE, 9)  # a1=3, b1=1
    grid = grid_for(9)
    mirrored = tuple(base[r * 9 + (8 - c)] for r in range(5) for c in range(9))  # a1=8, b1=8
    layouts = ["".join(map(str, base)), "".join(map(str, mirrored)), "".join(map(str, base))]
    assert mirrored[grid.index["a1"]] == 8
    return laid_out(("ann", "bob", "cid"), layouts, options)


def test_multiplayer_best_value_and_uncovering_every_board():
    match = three_player_match()
    match.play(0, "b1,a1,end")  # bob: b1=8, a1=8; cid: b1=1, a1=3
    record = match.state.turns[-1]
    # first value: the lowest (1); then the lowest not lower than 1: 3 (cid), not 8
    assert [p.value for p in record.probes] == [1, 3]
    grid = grid_for(9)
    for board in (1, 2):
        assert {grid.index["a1"], grid.index["b1"]} <= match.state.uncovered[board]
    assert not match.state.uncovered[0]


def test_take_min_and_take_max():
    low = three_player_match({"take_min": True})
    low.play(0, "a1,b1,end")  # min(8, 3) = 3, then min(8, 1) = 1 ends
    assert [p.value for p in low.state.turns[-1].probes] == [3, 1]
    high = three_player_match({"take_max": True})
    high.play(0, "b1,a1,end")  # max(8, 1) = 8, then max(8, 3) = 8
    assert [p.value for p in high.state.turns[-1].probes] == [8, 8]
    assert high.state.totals[0] == 4


def test_take_options_need_three_players():
    with pytest.raises(RuleError, match="three or four players"):
        Match(Mono(), {"take_min": True}, seats("a", "b"), 1)
    with pytest.raises(RuleError, match="exclude each other"):
        Mono().parse_cli_options(["--take-min", "--take-max"])


def test_game_ends_at_the_end_of_the_round_and_ties():
    match = laid_out(layouts=["122", "122"], options={"size": 2})
    match.play(0, "a1,b1,c1,end")  # 1 2 2 -> 1 + 4
    assert not match.over and match.state.to_move() == (1,)  # ned still plays this round
    match.play(1, "a1,b1,c1,end")
    assert match.over
    assert match.state.winners() == (0, 1)
    assert match.view(0).status.startswith("Game over: a tie")


def test_hidden_boards_and_redacted_layouts():
    match = laid_out(layouts=[EXAMPLE, "random"])
    fred, ned, spectator = match.view(0), match.view(1), match.view(None)
    assert all(v is not None for v in fred.boards[0])
    assert all(v is None for v in fred.boards[1])
    assert all(v is None for board in spectator.boards for v in board)
    assert ned.moves[0] == (0, "layout") and fred.moves[0] == (0, EXAMPLE)
    assert ned.moves[1] == (1, "random")
    with pytest.raises(RuleError):
        match.view(ALL)
    assert "666699777" not in str(ned) and "666699777" not in str(spectator)


def test_board_json_shape():
    match = laid_out()
    match.play(0, "a1,b1")
    data = match.view(0).board_json()
    assert data["height"] == 5 and data["width"] == 9
    assert data["boards"]["fred"][4][:3] == [3, 1, 2]
    assert data["boards"]["ned"][4][:2] == [3, 1] and data["boards"]["ned"][0][0] is None
    assert data["turn"] == [3, 1]


def random_command(view, rng: random.Random) -> str:
    if view.phase == "layout":
        return "random"
    if view.open_turn is not None and rng.random() < 0.3:
        return rng.choice(["end", "random"])
    left = [c for c in range(view.grid.cells) if c not in view.probed]
    picks = rng.sample(left, min(len(left), rng.randint(1, 3)))
    return ",".join(view.grid.names[c] for c in picks) + rng.choice(["", ",end", ",hold", ",random"])


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 4),
    size=st.integers(2, 9),
    flags=st.sampled_from([{}, {"no_auto": True}, {"take_min": True}, {"take_max": True}]),
    seed=st.integers(0, 10**6),
)
def test_random_games_keep_every_invariant(players, size, flags, seed):
    if players == 2 and ("take_min" in flags or "take_max" in flags):
        flags = {}
    names = [f"s{i}" for i in range(players)]
    match = Match(Mono(), {"size": size, **flags}, seats(*names), seed)
    rng = random.Random(seed)
    for _ in range(2000):
        if match.over:
            break
        seat = match.state.to_move()[0]
        match.play(seat, random_command(match.view(seat), rng))
        state = match.state
        for viewer in [*range(players), None]:
            view = match.view(viewer)
            for board in range(players):
                if board == viewer or not view.boards[board]:
                    continue
                for cell, value in enumerate(view.boards[board]):
                    assert value is None or cell in state.uncovered[board]
            first_moves = {}
            for index, record in enumerate(match.moves):
                first_moves.setdefault(record.seat, index)
            for index, ((mover, text), record) in enumerate(zip(view.moves, match.moves)):
                is_layout = first_moves[mover] == index
                if mover != viewer and is_layout and record.move != "random":
                    assert text == "layout"
                elif not is_layout:
                    assert text == record.move
    assert match.over
    totals = [0] * players
    for record in match.state.turns:
        totals[record.seat] += score_values(record.scoring)
        values = [p.value for p in record.probes]
        assert list(record.scoring) == (values[:-1] if record.ended_by_decrease else values)
    assert tuple(totals) == match.state.totals
    assert any(match.state.board_uncovered(b) for b in range(players))
    again = Match.replay(Mono(), match.options, match.seats, seed, match.moves)
    assert again.state == match.state
