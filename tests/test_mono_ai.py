"""The Mono AI: sampled layouts are valid and agree with the view, beliefs, legal and deterministic play."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from termgames.ai import make_bot
from termgames.ai.budget import Deadline
from termgames.ai.mono import cell_beliefs, climb_border, layout_border
from termgames.ai.mono_inference import LayoutSampler, consistent
from termgames.match import Match, Seat
from termgames.rules.mono import END, HOLD, RANDOM, check_layout, grid_for, random_layout


def quick(level: str, seed: int, samples: int = 40):
    """A bot of ``level`` with few samples, so that tests stay fast."""
    bot = make_bot("mono", level, seed=seed)
    bot.settings = replace(bot.settings, samples=min(samples, bot.settings.samples))
    return bot


def play_out(options: dict, players: int, seed: int, bots: dict[int, object], stop: int | None = None) -> Match:
    """A game where ``bots`` play their seats and the other seats ``random``; the rules check every move."""
    match = Match("mono", options, [Seat(f"p{i + 1}") for i in range(players)], seed)
    while not match.over and (stop is None or len(match.moves) < stop):
        seat = match.state.to_move()[0]
        bot = bots.get(seat)
        move = bot.choose(match.view(seat)) if bot is not None else RANDOM
        match.play(seat, move)  # raises RuleError on an illegal move
    return match


@settings(max_examples=25, deadline=None)
@given(regions=st.integers(2, 9), seed=st.integers(0, 10_000), shown=st.floats(0, 1))
# Random growth found no layout for these views (the first failed CI at random); the complete search must.
@example(regions=8, seed=130, shown=0.5)
@example(regions=9, seed=96, shown=0.5)
@example(regions=5, seed=60, shown=0.5)
def test_sampled_layouts_are_valid_and_agree_with_every_shown_value(regions, seed, shown):
    grid = grid_for(regions)
    rng = random.Random(seed)
    truth = random_layout(regions, rng)
    known = {cell: truth[cell] for cell in rng.sample(range(grid.cells), int(shown * grid.cells))}
    layouts = LayoutSampler(grid).samples(known, 12, random.Random(seed + 1))
    assert layouts  # the truth is consistent, so some layout must be found
    for layout in layouts:
        check_layout(layout, regions)  # raises on a region of the wrong size or not connected
        assert consistent(layout, known)


@pytest.mark.parametrize("regions", range(2, 10))
def test_the_complete_search_finds_a_layout_for_every_view_that_has_one(regions):
    # Views with a third to a half of the board shown are the hard ones for random growth.
    grid = grid_for(regions)
    for seed in range(25):
        rng = random.Random(seed)
        truth = random_layout(regions, rng)
        known = {cell: truth[cell] for cell in rng.sample(range(grid.cells), int(rng.uniform(0.2, 0.6) * grid.cells))}
        layout = LayoutSampler(grid).complete_search(known, random.Random(seed))
        assert layout is not None, (regions, seed)
        check_layout(layout, regions)
        assert consistent(layout, known)


def test_the_complete_search_says_none_when_no_layout_exists():
    grid = grid_for(3)  # 2 x 3: regions 1, 2, 3
    # Two cells of region 1 cannot both hold its one cell.
    assert LayoutSampler(grid).complete_search({0: 1, 5: 1}, random.Random(0)) is None
    # A 3 between two 2s on the top row cuts the row: both 2s cannot be one region.
    assert LayoutSampler(grid).complete_search({0: 2, 1: 3, 2: 2}, random.Random(0)) is None


def test_the_true_value_gets_a_fair_share_of_belief():
    grid = grid_for(9)
    shares = []
    for seed in range(6):
        rng = random.Random(seed)
        truth = random_layout(9, rng)
        known = {cell: truth[cell] for cell in rng.sample(range(grid.cells), grid.cells // 2)}
        layouts = LayoutSampler(grid).samples(known, 60, random.Random(seed))
        for cell in range(grid.cells):
            if cell not in known:
                shares.append(sum(layout[cell] == truth[cell] for layout in layouts) / len(layouts))
    # A guess by region size alone gives the true value about 1/7; the sampler, seeing half the board, far more.
    assert sum(shares) / len(shares) > 0.45


def started(players: int = 2, seed: int = 3, rounds: int = 2) -> Match:
    """A game after every layout and ``rounds`` rounds of random turns."""
    match = Match("mono", {}, [Seat(f"p{i + 1}") for i in range(players)], seed)
    for _ in range(players * (rounds + 1)):
        match.play(match.state.to_move()[0], RANDOM)
    return match


def test_the_layouts_followed_along_a_game_agree_with_every_board_shown():
    # Three players: each opponent board is uncovered by two players' turns and by the bot's open turn.
    bot = quick("normal", seed=6, samples=60)
    match = Match("mono", {}, [Seat("a"), Seat("b"), Seat("c")], 12)
    checked = 0
    while checked < 12 and not match.over:
        seat = match.state.to_move()[0]
        view = match.view(seat)
        if seat != 0 or view.phase != "probe":
            match.play(seat, RANDOM)
            continue
        for board_seat in (1, 2):
            shown = {cell: value for cell, value in enumerate(view.boards[board_seat]) if value is not None}
            layouts = bot.layouts(view, board_seat)
            assert layouts
            for layout in layouts[:10]:
                check_layout(layout, 9)
            assert all(consistent(layout, shown) for layout in layouts)
        checked += 1
        match.play(0, bot.choose(view))


def test_cell_beliefs_cover_the_hidden_cells_of_one_board():
    match = started()
    view = match.view(0)
    board = view.boards[1]
    beliefs = cell_beliefs(view, 1, samples=50, seed=1)
    assert len(beliefs) == len(board) == view.grid.cells
    for shown, belief in zip(board, beliefs):
        if shown is not None:
            assert belief is None
        else:
            value, probability = belief
            assert 1 <= value <= 9 and 0 < probability <= 1
    assert any(b is not None for b in beliefs)
    assert cell_beliefs(view, 1, samples=50, seed=1) == beliefs
    with pytest.raises(ValueError):
        cell_beliefs(view, 0)


def test_a_region_completely_shown_leaves_no_doubt_next_to_it():
    # Layout 666699777664999787344999787342955888312555888: region 1 is a1 (cell 37).
    # With 9s and 7s all shown, cells next to them are decided by the rest.
    layout = "666699777664999787344999787342955888312555888"
    values = [int(c) for c in layout]
    board = tuple(v if v in (9, 7, 8, 5) else None for v in values)
    match = started()
    state = match.state
    view = replace(state.view(0), boards=(state.view(0).boards[0], board))
    beliefs = cell_beliefs(view, 1, samples=60)
    for belief in beliefs:
        if belief is not None:
            assert belief[0] in (1, 2, 3, 4, 6)


@pytest.mark.parametrize(
    "players, options",
    [
        (2, {}),
        (2, {"no_auto": True}),
        (2, {"size": 2}),
        (3, {}),
        (3, {"take_min": True, "no_auto": True}),
        (4, {"take_max": True}),
    ],
)
def test_the_bot_plays_only_legal_moves(players, options):
    seats = {seat: quick(level, seed=seat) for seat, level in zip(range(players), ["normal", "easy", "hard", "normal"])}
    match = play_out(options, players, seed=players * 7 + len(options), bots=seats)
    assert match.over
    moves = [record.move for record in match.moves]
    assert any(move.endswith("," + HOLD) for move in moves)


def test_the_bot_plays_a_large_board_legally():
    bots = {0: quick("normal", seed=1, samples=16)}
    match = play_out({"size": 15}, 2, seed=5, bots=bots, stop=40)
    assert any(record.seat == 0 and record.move.endswith(HOLD) for record in match.moves)


def test_layout_is_random_and_an_open_turn_can_be_ended():
    match = Match("mono", {}, [Seat("a"), Seat("b")], 1)
    bot = quick("normal", seed=2)
    assert bot.choose(match.view(0)) == RANDOM
    match.play(0, RANDOM)
    match.play(1, RANDOM)
    moves = []
    while match.state.to_move() == (0,):
        move = bot.choose(match.view(0))
        moves.append(move)
        match.play(0, move)
    assert moves[0].endswith("," + HOLD)
    assert all(move.endswith("," + HOLD) or move == END for move in moves)


def test_the_answer_depends_on_the_view_alone():
    # Two games whose hidden boards differ but show the same: the bot cannot tell them apart.
    match = started(seed=8)
    state = match.state
    view = state.view(0)
    shown = {cell: value for cell, value in enumerate(view.boards[1]) if value is not None}
    other = next(
        layout
        for layout in LayoutSampler(view.grid).samples(shown, 30, random.Random(1))
        if layout != state.layouts[1]
    )
    twin = replace(state, layouts=(state.layouts[0], other))
    assert twin.view(0) == view
    assert quick("normal", seed=4).choose(twin.view(0)) == quick("normal", seed=4).choose(view)


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_deterministic_for_a_seed_and_a_view(level):
    # A bot that followed the game and a fresh one answer the same view the same way.
    follower = quick(level, seed=11)
    match = Match("mono", {}, [Seat("a"), Seat("b")], 4)
    answers = []
    while len(answers) < 8 and not match.over:
        seat = match.state.to_move()[0]
        if seat == 1:
            match.play(1, RANDOM)
            continue
        view = match.view(0)
        move = follower.choose(view)
        assert quick(level, seed=11).choose(view) == move
        answers.append(move)
        match.play(0, move)


def test_not_its_turn_and_unknown_levels_are_refused():
    match = started()
    with pytest.raises(ValueError, match="turn"):
        make_bot("mono", "normal", seed=1).choose(match.view(1))
    with pytest.raises(ValueError, match="levels"):
        make_bot("mono", "godlike")


def test_beats_random_players():
    bot_total = random_total = 0.0
    for game in range(4):
        seat = game % 2
        match = play_out({}, 2, seed=100 + game, bots={seat: quick("normal", seed=game, samples=60)})
        scores = match.state.scores()
        bot_total += scores[seat]
        random_total += scores[1 - seat]
    # The benchmark measures about five times the random player's score; this bound only catches a broken bot.
    assert bot_total > 1.5 * random_total


def test_hard_lays_out_a_legal_board_with_a_long_border():
    """Hard's own layout: a legal layout string, its border (weighted by value) above any of 40 generator layouts."""
    grid = grid_for(9)
    match = Match("mono", {}, [Seat("a"), Seat("b")], 1)
    move = make_bot("mono", "hard", seed=3).choose(match.view(0))
    assert move != RANDOM
    match.play(0, move)  # the rules accept it
    layout = match.state.layouts[0]
    check_layout(layout, 9)
    rng = random.Random(5)
    typical = [layout_border(grid, random_layout(9, rng), weighted=1) for _ in range(40)]
    assert layout_border(grid, layout, weighted=1) > max(typical)


@pytest.mark.parametrize("weighted", [0, 1])
def test_climbing_keeps_every_region_and_lengthens_a_compact_border(weighted):
    """Swaps keep each region's size and connection and never shorten the border; a layout of rows gains."""
    grid = grid_for(5)  # 3 rows of 5: regions 5 and 4 in blocks (cells next to their own region on two sides)
    compact = (5, 5, 4, 4, 3, 5, 5, 4, 4, 3, 5, 1, 2, 2, 3)
    check_layout(compact, 5)
    climbed = climb_border(grid, compact, weighted, random.Random(1), 2000, Deadline(60))
    check_layout(climbed, 5)
    assert layout_border(grid, climbed, weighted) > layout_border(grid, compact, weighted)
    rng = random.Random(2)
    for _ in range(5):
        drawn = random_layout(9, rng)
        climbed = climb_border(grid_for(9), drawn, weighted, rng, 300, Deadline(60))
        check_layout(climbed, 9)
        assert layout_border(grid_for(9), climbed, weighted) >= layout_border(grid_for(9), drawn, weighted)


def test_follow_regions_goes_on_next_to_the_run_and_ends_when_nothing_is_left():
    from termgames.ai.mono import follow_regions

    match = Match("mono", {"size": 4}, [Seat("a"), Seat("b")], 1)
    # Seat b's board (reading order a2..e2, a1..e1): region 4 on the left, 3 on the right, 2 and 1 between.
    match.play(0, RANDOM)
    match.play(1, "4433344221")
    grid = match.state.grid
    match.play(0, "a2,hold")  # a 4
    view = match.view(0)
    unprobed = [cell for cell in range(grid.cells) if cell not in view.probed]
    cell = follow_regions(view, [1], unprobed, [4])
    assert grid.names[cell] in ("b2", "a1")  # next to the 4 seen
    # A run of 1 with its region complete: nothing to follow, the turn ends.
    assert follow_regions(replace(view, boards=(view.boards[0], (None,) * 9 + (1,))), [1], unprobed[:-1], [1]) is None
