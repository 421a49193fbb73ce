"""Copolymer's back end: board geometry, options, the rules' worked examples and properties.

The specification is Mark Steere's Copolymer rules (Figures 1, 2a-2d, 3a-3b) and the
Copolymer rulings: default board Figure 1 completed (91 cells, rows A-L
without I), neighbours (r, d-1), (r, d+1), (r-1, d-1), (r-1, d), (r+1, d),
(r+1, d+1), odd sizes only, and a board that fills during an obligation ends
the game at once.
"""

from __future__ import annotations

import random
import re
import textwrap
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termgames.match import Match, MoveRecord, Seat
from termgames.rules import RuleError, get_game
from termgames.rules.base import ALL
from termgames.rules.copolymer import ROW_LETTERS, Copolymer, CopolymerState, board_for

GAME = Copolymer()


def rulings_neighbours(board, cell: int) -> set[str]:
    """The neighbours the rulings define, computed independently of Board.neighbours."""
    r, d = board.coords[cell]
    around = [(r, d - 1), (r, d + 1), (r - 1, d - 1), (r - 1, d), (r + 1, d), (r + 1, d + 1)]
    names = set()
    for rr, dd in around:
        if 0 <= rr < len(board.rows):
            name = f"{ROW_LETTERS[rr]}{dd}"
            if name in board.index:
                names.add(name)
    return names


def neighbour_names(board, name: str) -> set[str]:
    return {board.names[n] for n in board.neighbours[board.index[name]]}


# --------------------------------------------------------------------------
# Geometry
# --------------------------------------------------------------------------


def test_standard_board_is_figure_1_completed():
    board = board_for("hexagon", 11)
    assert board.cell_count == 91
    letters = [letter for letter, _, _ in board.rows]
    assert letters == list("ABCDEFGHJKL")  # no I
    spans = {letter: (first, last) for letter, first, last in board.rows}
    assert spans["A"] == (1, 6)
    assert spans["F"] == (1, 11)
    assert spans["L"] == (6, 11)
    # Figure 1: A-F grow by one cell a row, G-L shrink.
    assert [last - first + 1 for _, first, last in board.rows] == [6, 7, 8, 9, 10, 11, 10, 9, 8, 7, 6]
    assert "I1" not in board.index and "A7" not in board.index and "L5" not in board.index
    assert len(set(board.names)) == 91


def test_default_options_give_the_standard_board_with_empty_cells():
    state = GAME.new({}, ["ada", "brian"], 1)
    assert state.options == {"shape": "hexagon", "size": 11}
    assert state.board.cell_count == 91
    assert state.owners == (None,) * 91
    assert state.to_move() == (0,)  # the first seat (x) claims first
    assert not state.is_over()


def test_centre_is_f6_with_six_neighbours():
    board = board_for("hexagon", 11)
    # The centre is the cell that sits in the middle row and middle column.
    middle_row = board.rows[len(board.rows) // 2]
    assert middle_row[0] == "F"
    assert board.column(board.index["F6"]) == board.width // 2
    assert neighbour_names(board, "F6") == {"F5", "F7", "E5", "E6", "G6", "G7"}


@pytest.mark.parametrize(
    ("size", "cells"),
    [(3, 7), (5, 19), (7, 37), (9, 61), (11, 91), (13, 127), (19, 271), (25, 469)],
)
def test_hexagon_cell_counts(size, cells):
    board = board_for("hexagon", size)
    side = (size + 1) // 2
    assert board.cell_count == cells == 3 * side * (side - 1) + 1
    assert len(board.rows) == size


@pytest.mark.parametrize("size", [3, 5, 7, 9, 25])
def test_rhombus_has_n_by_n_cells(size):
    board = board_for("rhombus", size)
    assert board.cell_count == size * size
    assert all((first, last) == (1, size) for _, first, last in board.rows)


def test_size_5_board_rows():
    board = board_for("hexagon", 5)
    assert board.names == (
        "A1", "A2", "A3",
        "B1", "B2", "B3", "B4",
        "C1", "C2", "C3", "C4", "C5",
        "D2", "D3", "D4", "D5",
        "E3", "E4", "E5",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("shape", "size"),
    [("hexagon", 3), ("hexagon", 5), ("hexagon", 11), ("hexagon", 19), ("rhombus", 3), ("rhombus", 7)],
)
def test_neighbours_follow_the_rulings_and_are_symmetric(shape, size):
    board = board_for(shape, size)
    inner = 0
    for cell, name in enumerate(board.names):
        mine = board.neighbours[cell]
        assert len(mine) == len(set(mine)) and cell not in mine
        assert {board.names[n] for n in mine} == rulings_neighbours(board, cell), name
        for n in mine:
            assert cell in board.neighbours[n], (name, board.names[n])
        assert 2 <= len(mine) <= 6
        inner += len(mine) == 6
    # Cells with all six neighbours: the board minus its rim.
    if shape == "hexagon":
        side = (size + 1) // 2
        assert inner == (3 * (side - 1) * (side - 2) + 1 if side > 1 else 0)
    else:
        assert inner == (size - 2) ** 2


def test_inner_cells_have_six_neighbours_and_corners_fewer():
    board = board_for("hexagon", 11)
    assert neighbour_names(board, "A1") == {"A2", "B1", "B2"}
    assert neighbour_names(board, "A6") == {"A5", "B6", "B7"}
    assert neighbour_names(board, "F1") == {"F2", "E1", "G2"}
    assert neighbour_names(board, "L11") == {"L10", "K10", "K11"}
    assert neighbour_names(board, "C3") == {"C2", "C4", "B2", "B3", "D3", "D4"}
    assert neighbour_names(board, "H5") == {"H4", "H6", "G4", "G5", "J5", "J6"}
    rhombus = board_for("rhombus", 3)
    assert neighbour_names(rhombus, "A1") == {"A2", "B1", "B2"}
    assert neighbour_names(rhombus, "A3") == {"A2", "B3"}
    assert neighbour_names(rhombus, "B2") == {"B1", "B3", "A1", "A2", "C2", "C3"}


# --------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "shape", "size", "cells"),
    [
        ([], "hexagon", 11, 91),
        (["--small"], "hexagon", 9, 61),
        (["--medium"], "hexagon", 13, 127),
        (["--large"], "hexagon", 19, 271),
        (["--size", "9"], "hexagon", 9, 61),
        (["--size=9"], "hexagon", 9, 61),
        (["--size", "5"], "hexagon", 5, 19),
        (["--rhombus", "7"], "rhombus", 7, 49),
        (["--rhombus=7"], "rhombus", 7, 49),
    ],
)
def test_cli_options(args, shape, size, cells):
    options = GAME.parse_cli_options(args)
    assert options == {"shape": shape, "size": size}
    assert board_for(options["shape"], options["size"]).cell_count == cells
    state = GAME.new(options, ["a", "b"], 3)
    assert len(state.owners) == cells
    # The options survive a trip through the CLI flags a record or help would print.
    assert GAME.parse_cli_options(GAME.option_flags(options)) == options
    assert str(cells) in GAME.describe_options(options)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--size", "8"], "odd"),
        (["--size=10"], "odd"),
        (["--rhombus", "8"], "even"),
        (["--rhombus=4"], "even"),
        (["--size", "27"], "at most"),
        (["--size", "1"], "at least"),
        (["--size", "nine"], "whole number"),
        (["--size"], "needs a value"),
        (["--rhombus"], "needs a value"),
        (["--huge"], "no option '--huge'"),
        (["-small"], "no option '-small'"),
        (["9"], "no option '9'"),
        (["--rhombus", "7", "--size", "9"], "do not combine"),
        (["--size", "9", "--rhombus", "7"], "do not combine"),
        (["--size=9", "--rhombus=7"], "do not combine"),
        (["--small", "--rhombus", "7"], "do not combine"),
    ],
)
def test_bad_cli_options_are_refused(args, words):
    with pytest.raises(RuleError) as caught:
        GAME.parse_cli_options(args)
    message = str(caught.value)
    assert words in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "options",
    [{"size": 8}, {"shape": "rhombus", "size": 6}, {"shape": "square"}, {"colour": "red"}, {"size": "x"}],
)
def test_bad_option_values_are_refused_by_new(options):
    with pytest.raises(RuleError):
        GAME.new(options, ["a", "b"], 1)


@pytest.mark.parametrize(
    "seats",
    [["solo"], ["a", "b", "c"], ["a", "a"], ["a b", "c"], ["a:ai", "b"], ["", "b"]],
)
def test_bad_seats_are_refused(seats):
    with pytest.raises(RuleError):
        GAME.new({}, seats, 1)


def test_registry_finds_copolymer():
    game = get_game("Copolymer")
    assert isinstance(game, Copolymer)
    assert game.ai_levels and game.default_level in game.ai_levels
    assert "F6" in game.rules_text()


# --------------------------------------------------------------------------
# The rules' worked examples (Figures 2a-2d and 3a-3b) on the --size 5 board
# --------------------------------------------------------------------------

# As printed in the rules; capitals mark the cell just claimed.
FIGURE_2A = """
    x . x
   x . . .
  o o o . .
   x . o .
    . . x
"""
FIGURE_2B = """
    x . x
   x O . .
  o o o . .
   x . o .
    . . x
"""
FIGURE_2C = """
    x O x
   x o . .
  o o o . .
   x . o .
    . . x
"""
FIGURE_2D = """
    x o x
   x o . .
  o o o . O
   x . o .
    . . x
"""
FIGURE_3A = """
    x o x
   x o . .
  o o o . o
   x X o .
    . . x
"""
FIGURE_3B = """
    x o x
   x o . .
  o o o . o
   x x o .
    . X x
"""

X, O = 0, 1  # noqa: E741 -- the rules' figures name the players x and o


def figure_owners(figure: str) -> tuple[int | None, ...]:
    """Read a figure: row by row, the first printed cell of a row is its lowest diagonal."""
    board = board_for("hexagon", 5)
    owners: list[int | None] = [None] * board.cell_count
    lines = [line for line in figure.strip("\n").splitlines() if line.strip()]
    assert len(lines) == len(board.rows)
    for (letter, first, last), line in zip(board.rows, lines):
        marks = line.split()
        assert len(marks) == last - first + 1, line
        for d, mark in zip(range(first, last + 1), marks):
            owners[board.index[f"{letter}{d}"]] = {"x": X, "o": O, ".": None}[mark.lower()]
    return tuple(owners)


def board_rows(view) -> str:
    """The board part of board_text() without the row letters and diagonal numbers, for comparison with a figure."""
    lines = view.board_text().splitlines()[1:]  # the first line numbers the top row's diagonals
    rows = [re.sub(r" \d+$", "", line[2:]) for line in lines[: len(view.board.rows)]]
    for line, (letter, _, _) in zip(lines, view.board.rows):
        assert line.startswith(letter + " ")
    return "\n".join(rows)


def figure_text(figure: str) -> str:
    return textwrap.dedent(figure.strip("\n")).lower()


@pytest.fixture
def figure_2a() -> CopolymerState:
    state = GAME.new({"size": 5}, ["xavier", "olga"], 2006)
    assert isinstance(state, CopolymerState)
    return replace(state, owners=figure_owners(FIGURE_2A), turn=O)


def test_figures_are_drawn_by_board_text(figure_2a):
    view = figure_2a.view(None)
    assert board_rows(view) == figure_text(FIGURE_2A)
    assert "x = xavier, o = olga" in view.board_text()
    assert view.status in view.board_text()
    assert view.status == "olga to claim"
    assert view.to_move == (O,)


def test_figure_2_and_3_obligations(figure_2a):
    state = figure_2a
    board = state.board
    steps = [
        # (seat, move, enemy contacts, claims again?, figure after)
        (O, "B2", 2, True, FIGURE_2B),
        (O, "A2", 2, True, FIGURE_2C),
        (O, "C5", 0, False, FIGURE_2D),
        (X, "D3", 3, True, FIGURE_3A),
        (X, "E4", 1, False, FIGURE_3B),
    ]
    for seat, move, contacts, again, figure in steps:
        cell = board.index[move]
        assert state.to_move() == (seat,)
        assert state.enemy_contacts(cell, seat) == contacts, move
        # The view marks exactly the cells that would oblige the mover to claim again.
        expected_obliging = {
            i
            for i, owner in enumerate(state.owners)
            if owner is None
            and sum(1 for n in rulings_neighbours(board, i) if state.owners[board.index[n]] == 1 - seat) >= 2
        }
        assert state.view(seat).obliging == expected_obliging
        assert (cell in expected_obliging) == again
        state = state.apply(seat, move)
        assert state.owners == figure_owners(figure), move
        assert board_rows(state.view(None)) == figure_text(figure)
        assert state.must_continue is again
        assert state.to_move() == ((seat,) if again else (1 - seat,))
        name = state.seats[seat]
        if again:
            assert state.view(seat).status == f"{name} must claim again"
            assert f"touching {contacts} enemy cells" in state.last_action
        else:
            assert state.last_action == f"{name} claimed {move}"
    assert not state.is_over()
    # O's whole turn is remembered for highlighting until X's turn ends.
    assert state.view(None).last_claims == (board.index["D3"], board.index["E4"])


def reachable_by_play(first: int, figure: str, to_move: int) -> list[tuple[int, str]] | None:
    """A move sequence from the empty --size 5 board to ``figure`` (mark ``first`` claiming first).

    Seat 0 is whoever claims first; a figure's x/o marks are mapped to seats
    accordingly.  Exhaustive search over the orders of the figure's cells; the
    figure must be reached at the start of ``to_move``'s turn, not in the middle
    of an obligation.
    """
    target = figure_owners(figure)
    board = board_for("hexagon", 5)
    mine = [frozenset(board.names[i] for i, o in enumerate(target) if o == mark) for mark in (first, 1 - first)]

    def search(state, left, moves):
        if not left[0] and not left[1]:
            return moves if state.to_move() == (to_move,) and not state.must_continue else None
        (seat,) = state.to_move()
        for name in sorted(left[seat]):
            rest = list(left)
            rest[seat] = left[seat] - {name}
            found = search(state.apply(seat, name), rest, [*moves, (seat, name)])
            if found:
                return found
        return None

    return search(GAME.new({"size": 5}, ["first", "second"], 1), mine, [])


def test_figure_2a_cannot_arise_when_x_claims_first():
    """Why the fixture builds Figure 2a directly: with x (the first seat) claiming first it is unreachable.

    B1 and D2 (x) both touch C1 and C2 (o); whichever of the four is claimed
    last touches two enemy cells and obliges an extra claim, and the claim
    counts (x 5, o 4, o to move) leave no room for it.
    """
    assert reachable_by_play(X, FIGURE_2A, to_move=1) is None


def test_figures_2_and_3_played_through_a_match_when_o_claims_first():
    """The whole worked example by play alone, with o in the first seat (board_text draws it as x)."""
    moves = reachable_by_play(O, FIGURE_2A, to_move=0)
    assert moves is not None
    match = Match("copolymer", {"size": 5}, [Seat("olga"), Seat("xavier")], 2006)
    for seat, move in moves:
        match.play(seat, move)
    swap = {X: 1, O: 0, None: None}
    assert match.state.owners == tuple(swap[o] for o in figure_owners(FIGURE_2A))
    olga, xavier = 0, 1
    for seat, move, again, figure in [
        (olga, "B2", True, FIGURE_2B),
        (olga, "A2", True, FIGURE_2C),
        (olga, "C5", False, FIGURE_2D),
        (xavier, "D3", True, FIGURE_3A),
        (xavier, "E4", False, FIGURE_3B),
    ]:
        assert match.state.to_move() == (seat,)
        match.play(seat, move)
        assert match.state.owners == tuple(swap[o] for o in figure_owners(figure)), move
        assert match.state.to_move() == ((seat,) if again else (1 - seat,))
    # The seat drawn as x is the first seat: here olga, so the figure's marks swap.
    swapped = figure_text(FIGURE_3B).translate(str.maketrans("xo", "ox"))
    assert board_rows(match.view(None)) == swapped
    # And the record of it replays to the same position.
    again = Match.replay("copolymer", {"size": 5}, match.seats, 2006, match.moves)
    assert again.states == match.states


def test_obliged_player_cannot_be_skipped(figure_2a):
    state = figure_2a.apply(O, "B2")
    with pytest.raises(RuleError, match="it is olga's turn, not xavier's"):
        state.apply(X, "D3")
    # The obligation may be met with any empty cell, touching enemies or not.
    calm = state.apply(O, "E3")
    assert calm.to_move() == (X,)


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


def test_claiming_a_taken_cell():
    state = GAME.new({}, ["ada", "brian"], 1).apply(0, "F6")
    with pytest.raises(RuleError) as caught:
        state.apply(1, "F6")
    assert "F6 is already taken" in str(caught.value)
    with pytest.raises(RuleError, match="F6 is already taken"):
        state.apply(1, " f6 ")


@pytest.mark.parametrize("move", ["Z9", "I1", "A7", "A0", "L5", "F12", "hello", "6F", "F", "F6F6", "pass"])
def test_a_non_cell_is_refused(move):
    state = GAME.new({}, ["ada", "brian"], 1)
    with pytest.raises(RuleError) as caught:
        state.apply(0, move)
    message = str(caught.value)
    assert "is not a cell" in message and repr(move) in message
    assert "\n" not in message


def test_empty_move_and_unknown_seat():
    state = GAME.new({}, ["ada", "brian"], 1)
    with pytest.raises(RuleError, match="empty"):
        state.apply(0, "   ")
    with pytest.raises(RuleError, match="no seat 3"):
        state.apply(2, "F6")


def test_move_out_of_turn_names_the_player_on_turn():
    state = GAME.new({}, ["ada", "brian"], 1)
    with pytest.raises(RuleError) as caught:
        state.apply(1, "F6")
    assert "it is ada's turn" in str(caught.value)
    state = state.apply(0, "F6")
    with pytest.raises(RuleError, match="it is brian's turn"):
        state.apply(0, "F7")


def test_lower_case_and_spaces_are_accepted_and_normalised():
    state = GAME.new({}, ["ada", "brian"], 1)
    after = state.apply(0, "  f6 ")
    assert after.owners[after.board.index["F6"]] == 0
    assert state.normalise_move(0, " f6 ") == "F6"


def fill_size_3(last_mover: int, owners_by_name: dict[str, int]) -> CopolymerState:
    state = GAME.new({"size": 3}, ["ada", "brian"], 5)
    owners = [None] * state.board.cell_count
    for name, seat in owners_by_name.items():
        owners[state.board.index[name]] = seat
    return replace(state, owners=tuple(owners), turn=last_mover)


def test_moves_after_the_end_are_refused():
    state = fill_size_3(0, {"A1": 0, "A2": 0, "B1": 0, "B3": 1, "C2": 1, "C3": 1})
    over = state.apply(0, "B2")
    assert over.is_over()
    for seat in (0, 1):
        with pytest.raises(RuleError, match="the game is over"):
            over.apply(seat, "B2")


def test_board_filling_during_an_obligation_ends_the_game_at_once():
    # Size 3, brian (o) to claim: A1 touches two of ada's cells, so he must
    # claim again, and his extra claim (C3, touching two more) fills the board.
    state = fill_size_3(1, {"A2": 0, "B2": 0, "B3": 0, "B1": 1, "C2": 1})
    assert state.enemy_contacts(state.board.index["A1"], 1) == 2  # A2, B2
    state = state.apply(1, "A1")
    assert state.must_continue and state.to_move() == (1,)
    # The last cell touches two enemy cells too (B2, B3): it would oblige again.
    assert state.enemy_contacts(state.board.index["C3"], 1) == 2
    state = state.apply(1, "C3")
    assert state.is_over()
    assert state.to_move() == ()
    assert not state.must_continue
    assert state.scores() == (3.0, 4.0)
    assert state.winners() == (1,)
    view = state.view(0)
    assert view.over and view.to_move == () and view.winners == (1,)
    assert view.status == "Game over: brian wins 4 to 3"
    assert "the board is full" in view.last_action
    assert view.legal_cells() == frozenset() and view.obliging == frozenset()


def test_rule_errors_are_one_line():
    state = GAME.new({}, ["ada", "brian"], 1).apply(0, "F6")
    for seat, move in [(1, "F6"), (1, "X\n1"), (0, "F7"), (1, "")]:
        with pytest.raises(RuleError) as caught:
            state.apply(seat, move)
        assert "\n" not in str(caught.value)


# --------------------------------------------------------------------------
# Properties of whole random games
# --------------------------------------------------------------------------

BOARDS = [("hexagon", 3), ("hexagon", 5), ("hexagon", 7), ("rhombus", 3), ("rhombus", 5)]


def play_random_game(shape: str, size: int, chooser_seed: int, game_seed: int, greed: float):
    """Play a whole game through a Match, checking each move; return the match and its views log."""
    chooser = random.Random(chooser_seed)
    match = Match("copolymer", {"shape": shape, "size": size}, [Seat("ann"), Seat("bob")], game_seed)
    cells = match.state.board.cell_count
    assert match.state.board.cell_count == (
        size * size if shape == "rhombus" else 3 * ((size + 1) // 2) * ((size - 1) // 2) + 1
    )
    while not match.over:
        assert len(match.moves) < cells, "the game did not end within cell-count moves"
        before = match.state
        (seat,) = before.to_move()
        view = match.view(seat)
        assert view.is_my_turn()
        empty = sorted(view.legal_cells())
        assert empty and all(before.owners[c] is None for c in empty)
        pool = sorted(view.obliging) if view.obliging and chooser.random() < greed else empty
        cell = chooser.choice(pool)
        name = before.board.names[cell]
        text = chooser.choice([name, name.lower(), f" {name} "])
        contacts = before.enemy_contacts(cell, seat)
        after = match.play(seat, text)
        changed = [i for i, (a, b) in enumerate(zip(before.owners, after.owners)) if a != b]
        assert changed == [cell]
        assert after.owners[cell] == seat
        assert match.moves[-1] == MoveRecord(seat, name, match.moves[-1].time)
        assert after.ply == before.ply + 1 == len(match.moves)
        if after.is_over():
            assert None not in after.owners
        elif contacts >= 2:
            assert after.to_move() == (seat,) and after.must_continue
        else:
            assert after.to_move() == (1 - seat,) and not after.must_continue
    return match


@settings(max_examples=60, deadline=None)
@given(
    board=st.sampled_from(BOARDS),
    chooser_seed=st.integers(0, 2**32 - 1),
    game_seed=st.integers(1, 2**31 - 1),
    greed=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_random_games_end_with_one_majority_winner(board, chooser_seed, game_seed, greed):
    shape, size = board
    match = play_random_game(shape, size, chooser_seed, game_seed, greed)
    state = match.state
    cells = state.board.cell_count
    assert len(match.moves) == cells  # every move claims exactly one cell
    assert state.is_over() and state.to_move() == ()
    scores = state.scores()
    assert sum(scores) == cells
    assert scores == tuple(float(sum(1 for m in match.moves if m.seat == s)) for s in (0, 1))
    (winner,) = state.winners()
    assert scores[winner] > cells / 2 > scores[1 - winner]
    assert match.result() == {
        "scores": {"ann": int(scores[0]), "bob": int(scores[1])},
        "winners": [match.names[winner]],
    }


@settings(max_examples=50, deadline=None)
@given(
    board=st.sampled_from(BOARDS),
    chooser_seed=st.integers(0, 2**32 - 1),
    game_seed=st.integers(1, 2**31 - 1),
)
def test_to_move_is_empty_exactly_when_over(board, chooser_seed, game_seed):
    shape, size = board
    match = play_random_game(shape, size, chooser_seed, game_seed, 0.5)
    for state in match.states:
        assert (state.to_move() == ()) == state.is_over()
        view = state.view(None)
        assert (view.to_move == ()) == view.over == state.is_over()
        assert (view.winners != ()) == view.over


@settings(max_examples=50, deadline=None)
@given(
    board=st.sampled_from(BOARDS),
    chooser_seed=st.integers(0, 2**32 - 1),
    game_seed=st.integers(1, 2**31 - 1),
    stop=st.floats(0, 1),
)
def test_replaying_the_moves_gives_the_same_game(board, chooser_seed, game_seed, stop):
    shape, size = board
    match = play_random_game(shape, size, chooser_seed, game_seed, 0.5)
    match.truncate(int(stop * len(match.moves)))
    again = Match.replay(
        "copolymer",
        {"shape": shape, "size": size},
        match.seats,
        game_seed,
        [MoveRecord(m.seat, m.move, m.time) for m in match.moves],
    )
    assert again.states == match.states
    assert again.state.owners == match.state.owners
    assert again.moves == match.moves
    assert again.result() == match.result()


@settings(max_examples=50, deadline=None)
@given(
    board=st.sampled_from(BOARDS),
    chooser_seed=st.integers(0, 2**32 - 1),
    game_seed=st.integers(1, 2**31 - 1),
)
def test_views_agree_on_the_board(board, chooser_seed, game_seed):
    """Perfect information: both seats and a spectator see the same board and log."""
    shape, size = board
    match = play_random_game(shape, size, chooser_seed, game_seed, 0.5)
    for ply in range(len(match.moves) + 1):
        views = [match.view(viewer, ply) for viewer in (0, 1, None)]
        first = views[0]
        for view in views:
            assert view.owners == first.owners == match.states[ply].owners
            assert view.board_json() == first.board_json()
            assert view.board_text() == first.board_text()
            assert view.moves == first.moves == tuple((m.seat, m.move) for m in match.moves[:ply])
            assert (view.to_move, view.scores, view.over, view.status) == (
                first.to_move,
                first.scores,
                first.over,
                first.status,
            )
    final = match.view(ALL)
    assert final.owners == match.state.owners


def cell_names_read_off(text: str) -> dict[tuple[int, int], str]:
    """Each mark of ``board_text``'s drawing (line, column) with the name a player reads off it: the row's letter at
    the line's start, the diagonal's number up and to the right of the diagonal's top cell (as in the rules'
    Figure 1)."""
    lines = text.split("\n\n")[0].splitlines()
    rows = {index: line.split()[0] for index, line in enumerate(lines) if re.match(r"^[A-Z] ", line)}
    marks = {(index, column) for index in rows for column, char in enumerate(lines[index]) if char in "xo." and column}
    first_row = min(rows)
    row_marks = sorted(column for line, column in marks if line == first_row)
    step = (row_marks[1] - row_marks[0]) // 2  # a half cell, in characters
    names = {}
    for line, column in marks:
        up, right = line, column
        while (up - 1, right + step) in marks:  # up the diagonal to its top cell
            up, right = up - 1, right + step
        label = lines[up - 1][right + step :].split()[0] if up >= 1 else ""
        names[line, column] = rows[line] + (label if label.isdigit() else "?")
    return names


@pytest.mark.parametrize(("shape", "size"), [("hexagon", 3), ("hexagon", 11), ("hexagon", 19), ("rhombus", 5),
                                            ("rhombus", 11), ("hexagon", 25)])
def test_the_text_board_names_every_cell_it_draws(shape, size):
    """``termgames show`` drew Copolymer's rows lettered but without the diagonals' numbers: a player could not
    tell which cell was E5 (issue 25, 8). Every mark's name can be read off the drawing, and it is that cell's."""
    state = Copolymer().new({"shape": shape, "size": size}, ("ann", "bob"), 1)
    rng = random.Random(2)
    for _ in range(size):
        state = state.apply(state.to_move()[0], state.random_move(state.to_move()[0], rng))
    view = state.view(0)
    text = view.board_text()
    names = cell_names_read_off(text)
    assert sorted(names.values()) == sorted(view.board.names), text
    lines = text.splitlines()
    for (line, column), name in names.items():
        owner = view.owners[view.board.index[name]]
        assert lines[line][column] == ("." if owner is None else "xo"[owner]), (name, text)


def test_the_rules_name_the_seats_marks_as_the_screens_draw_them():
    """The rules said the first seat is x where the board draws a filled disc (issue 25, 10): they name the
    screen's marks, the ASCII ones and show's."""
    from termgames.widgets.palette import ASCII, UNICODE

    text = " ".join(Copolymer().rules_text().split())
    assert "first seat (x)" not in text
    assert UNICODE.seats[0] == "●" and "filled discs on the screen" in text
    assert f"({ASCII.seats[0]} with `--ascii`, x in `termgames show`)" in text
    assert f"the open ones ({ASCII.seats[1]}, o)" in text and UNICODE.seats[1] == "○"
    assert text.isascii()  # shown as it is under LANG=C
