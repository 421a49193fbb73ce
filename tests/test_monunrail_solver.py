"""MonUnrail's removal-phase solver against the published vectors and a reference.

The vectors are those of ``notes/monunrail-vectors.md`` (the author's README
tables, the nimber cheat sheet, the death-match position dm1 and the finished
track of start_of_unrail.png).  The properties compare the fast solver with a
tiny reference solver written here: plain recursion over frozensets of cells
with mex, no components, no symmetry, no bit tricks.
"""

from __future__ import annotations

from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termgames.rules.monunrail_solver import Solver, cell_name, line_nimber, parse_shape

# --------------------------------------------------------------------------
# Helpers and the reference solver
# --------------------------------------------------------------------------


def cells_of(names: str) -> frozenset[tuple[int, int]]:
    """``"D3, E3"`` -> {(3, 2), (4, 2)} (independent of the module under test)."""
    out = set()
    for name in names.replace(",", " ").split():
        out.add((ord(name[0].upper()) - ord("A"), int(name[1:]) - 1))
    return frozenset(out)


def move_names(moves) -> list[str]:
    return sorted("+".join(cell_name(c) for c in m) for m in moves)


def block(rows: int, cols: int) -> frozenset[tuple[int, int]]:
    return frozenset((c, r) for r in range(rows) for c in range(cols))


def ref_moves(cells: frozenset) -> list[frozenset]:
    out = []
    for c, r in cells:
        out.append(frozenset([(c, r)]))
        for dc, dr in ((1, 0), (0, 1)):
            seg = [(c, r)]
            for k in (1, 2):
                nxt = (c + k * dc, r + k * dr)
                if nxt not in cells:
                    break
                seg.append(nxt)
                out.append(frozenset(seg))
    return out


@lru_cache(maxsize=None)
def ref_nimber(cells: frozenset) -> int:
    seen = {ref_nimber(cells - m) for m in ref_moves(cells)}
    g = 0
    while g in seen:
        g += 1
    return g


def transforms(cells):
    """The 8 rotations/reflections of a set of cells (not normalised)."""
    out = []
    for swap in (False, True):
        for sc in (1, -1):
            for sr in (1, -1):
                out.append(frozenset(((r if swap else c) * sc, (c if swap else r) * sr) for c, r in cells))
    return out


SOLVER = Solver()  # shared: sub-shapes of one test are cache hits in another

# --------------------------------------------------------------------------
# Text helpers
# --------------------------------------------------------------------------


def test_parse_shape_reads_rows_top_first():
    assert parse_shape("##.\n.#") == {(0, 0), (1, 0), (1, 1)}
    assert parse_shape("\n\n  \n#..#  \n\n.#\t\n\n") == {(0, 0), (3, 0), (1, 2)}
    assert parse_shape("") == frozenset()
    assert parse_shape("...\n...") == frozenset()


def test_parse_shape_names_the_bad_character():
    with pytest.raises(ValueError, match="line 3, column 2"):
        parse_shape("\n##\n#x#\n")
    with pytest.raises(ValueError, match="line 1, column 1"):
        parse_shape(" #")


def test_cell_name():
    assert cell_name((0, 0)) == "A1"
    assert cell_name((3, 2)) == "D3"
    assert cell_name((7, 6)) == "H7"
    assert cell_name((25, 9)) == "Z10"
    assert cell_name((26, 0)) == "AA1"
    with pytest.raises(ValueError):
        cell_name((-1, 0))


# --------------------------------------------------------------------------
# Straight rows: 1xN for N = 1..204 (README table, rows of 34)
# --------------------------------------------------------------------------

ROWS_1XN = """
1  2 3 4 1  6  3  2 1  6  7  4  5  8  1 10  5  4  7  6  1  2  3  6  1  4  3  2  1  8 10  4 14 16
1  2 3 4 1  6  3  2 1  6  7  4  5  8  1 10  5  8  7  6  1  2  3  6  1  4  3 14  1  8 10 16 14 18
1 10 3 4 1  6  3  2 1 20  7 16  5  8  1 10  5  8  7 14  1  2  3  6  1 12  3 14  1  8 10 16 14 18
1 10 3 8 1  6  3  2 1 20  7 16  5  8  1 10  5  8  7 14  1  4  3 20  1 12  3 14  1  8 10 16 14 18
1 10 3 8 1 13  3  2 1 20  7 16  5  8  1 10  5  8  7 16  1  4  3 21  1 12  3 14  1  8 10 16 14 18
1 10 3 8 1 13 16 24 1 20  7 16  5  8  1 10  5  8  7 16  1  4  3 21  1 12  3 14  1  8 10 16 14 18
"""
LINE = [0] + [int(x) for x in ROWS_1XN.split()]
assert len(LINE) == 205


def test_line_table_matches_the_readme_1_to_204():
    assert [line_nimber(n) for n in range(205)] == LINE


def test_straight_rows_use_the_line_table():
    for n in (1, 7, 34, 100, 204):
        assert SOLVER.nimber((c, 0) for c in range(n)) == LINE[n]
        assert SOLVER.nimber((5, r) for r in range(n)) == LINE[n]


@pytest.mark.parametrize("tables", [True, False])
def test_general_grid_solver_on_straight_rows(tables):
    solver = Solver(line_table=False, tables=tables)
    for n in range(1, 31):
        assert solver.nimber((c, 0) for c in range(n)) == LINE[n], n
    for n in (5, 13, 30):
        assert solver.nimber((0, r) for r in range(n)) == LINE[n], n


# --------------------------------------------------------------------------
# Solid blocks (README tables)
# --------------------------------------------------------------------------

BLOCKS = {
    2: [0, 2, 0, 2, 0, 2, 0, 6, 0, 2, 0, 2, 0, 2, 0],
    3: [0, 3, 2, 1, 2, 3, 6, 4],
    4: [0, 4, 0, 2, 0, 7],
    5: [0, 1, 2, 3, 7, 1],
}


@pytest.mark.parametrize("rows", sorted(BLOCKS))
def test_solid_blocks(rows):
    values = BLOCKS[rows]
    solver = Solver()
    # the largest first: every smaller block is then a cache hit
    got = {n: solver.nimber(block(rows, n)) for n in reversed(range(len(values)))}
    assert [got[n] for n in range(len(values))] == values
    # turned a quarter, the same values
    assert [solver.nimber(block(n, rows)) for n in range(len(values))] == values


def test_small_blocks_with_dict_cores_only():
    solver = Solver(tables=False)
    for rows, values in BLOCKS.items():
        for n, want in enumerate(values[:4]):
            assert solver.nimber(block(rows, n)) == want


# --------------------------------------------------------------------------
# The nimber cheat sheet, the README examples and puzzles
# --------------------------------------------------------------------------

CHEAT_SHEET = [
    ("#", 1),
    ("##", 2),
    ("###", 3),
    ("##/#.", 3),  # L3
    ("####", 4),
    ("###/.#.", 2),  # T4
    ("###/#..", 4),  # L4
    ("##/##", 0),  # O4
    ("##./.##", 1),  # S4
    ("####/#...", 1),  # L5
    ("####/.#..", 5),  # Y5
    ("###/.#./.#.", 5),  # T5
    (".#./###/.#.", 3),  # X5
    ("###/#../#..", 1),  # V5
    ("###./..##", 5),  # N5
    ("###/##.", 5),  # P5
    ("###/#.#", 1),  # U5
    ("#../##./.##", 4),  # W5
    ("##./.#./.##", 1),  # Z5
    (".##/##./.#.", 5),  # F5
    ("#####", 1),
]


@pytest.mark.parametrize("picture,value", CHEAT_SHEET)
def test_cheat_sheet(picture, value):
    shape = parse_shape(picture.replace("/", "\n"))
    for image in transforms(shape):
        assert SOLVER.nimber(image) == value
    assert ref_nimber(shape) == value


README_POSITIONS = [
    (".....\n.#.#.\n.....", 0),  # two separate single tiles
    ("....\n.##.\n....\n.##.\n....", 0),  # two separate dominoes
    (".....\n.#.#.\n.....\n.#.#.\n.....", 0),  # four separate single tiles
    ("...\n.#.\n...", 1),  # Example 1
    ("....\n.##.\n....", 2),  # Example 2
    ("....\n.##.\n.#..\n....", 3),  # Example 3, the L-tromino
    ("....\n.#..\n....\n.##.\n....", 3),  # after one tile of the two dominoes: 1 xor 2
]


@pytest.mark.parametrize("picture,value", README_POSITIONS)
def test_readme_examples(picture, value):
    assert SOLVER.nimber(parse_shape(picture)) == value


PUZZLES = [  # "can you win?": yes, no, yes, no
    (".....\n.##..\n..##.\n.....", True),
    ("....\n.##.\n.##.\n....", False),
    ("......\n.####.\n..#...\n......", True),
    ("......\n.####.\n.#.#..\n......", False),
]


@pytest.mark.parametrize("picture,win", PUZZLES)
def test_readme_puzzles(picture, win):
    shape = parse_shape(picture)
    assert (SOLVER.nimber(shape) != 0) is win
    assert bool(SOLVER.winning_moves(shape)) is win


def test_death_match_position():
    dm1 = cells_of("D3,E3,F3,G3,F2,G2,D4,E4,D5,E5")
    assert SOLVER.nimber(dm1) == 2
    assert move_names(SOLVER.winning_moves(dm1)) == ["D3+E3", "F2+F3", "F2+G2", "F3+G3", "G2+G3"]


def test_finished_track_of_start_of_unrail():
    crossroads = "C3 D3"
    turns = "C1 D1 B3 E3 D5 E5 B6 C6"
    straights = "C2 D2 B4 C4 D4 E4 B5 C5"
    track = cells_of(" ".join((crossroads, turns, straights)))
    assert len(track) == 18
    assert SOLVER.nimber(track) == 9
    assert move_names(SOLVER.winning_moves(track)) == ["B3+C3", "C3+C4", "D3+D4"]


def test_mirror_pairs_are_zero():
    shape = parse_shape("###\n#..\n#..")
    other = {(c + 10, r + 3) for c, r in shape}
    assert SOLVER.nimber(shape | other) == 0
    turned = {(r + 20, c) for c, r in shape}
    assert SOLVER.nimber(shape | turned) == 0


# --------------------------------------------------------------------------
# moves, winning_moves, best_losing_move
# --------------------------------------------------------------------------


def test_moves_are_sorted_tuples():
    moves = SOLVER.moves(parse_shape("###\n#.."))
    assert moves == [
        ((0, 0),),
        ((0, 1),),
        ((1, 0),),
        ((2, 0),),
        ((0, 0), (0, 1)),
        ((0, 0), (1, 0)),
        ((1, 0), (2, 0)),
        ((0, 0), (1, 0), (2, 0)),
    ]
    assert SOLVER.moves([]) == []
    # a bend is not a line of three
    assert ((0, 0), (0, 1), (1, 0)) not in SOLVER.moves(parse_shape("##\n#."))


def test_winning_moves_of_a_lost_position_is_empty():
    assert SOLVER.winning_moves(parse_shape("##\n##")) == []
    assert SOLVER.winning_moves([]) == []


def test_best_losing_move():
    square = parse_shape("##\n##")
    move = SOLVER.best_losing_move(square)
    assert len(move) == 1 and move == ((0, 0),)  # all four are alike: the first
    # two separate L-trominoes: take from the middle of one, never a whole end
    two = parse_shape("##...##\n#.....#")
    move = SOLVER.best_losing_move(two)
    assert len(move) == 1
    rest = two - set(move)
    assert SOLVER.nimber(rest) != 0
    # the remainder keeps a 3-cell component and as many moves as possible
    best = max(len(SOLVER.moves(two - {c})) for c in two)
    assert len(SOLVER.moves(rest)) == best
    assert SOLVER.best_losing_move(two) == move  # deterministic
    with pytest.raises(ValueError):
        SOLVER.best_losing_move(parse_shape("##"))
    with pytest.raises(ValueError):
        SOLVER.best_losing_move([])


# --------------------------------------------------------------------------
# Properties against the reference solver
# --------------------------------------------------------------------------

small_shapes = st.sets(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=0, max_size=10).map(frozenset)


@settings(max_examples=300, deadline=None)
@given(small_shapes)
def test_agrees_with_reference(shape):
    want = ref_nimber(shape)
    assert SOLVER.nimber(shape) == want
    assert Solver(tables=False, line_table=False).nimber(shape) == want


@settings(max_examples=150, deadline=None)
@given(small_shapes, st.integers(-7, 7), st.integers(-7, 7))
def test_invariant_under_symmetry_and_translation(shape, dc, dr):
    value = SOLVER.nimber(shape)
    for image in transforms(shape):
        assert SOLVER.nimber({(c + dc, r + dr) for c, r in image}) == value


@settings(max_examples=150, deadline=None)
@given(small_shapes)
def test_value_is_the_mex_of_the_moves(shape):
    children = {SOLVER.nimber(shape - set(m)) for m in SOLVER.moves(shape)}
    value = SOLVER.nimber(shape)
    assert value not in children
    assert all(k in children for k in range(value))
    # in particular: 0 iff every move leads to a nonzero position
    assert (value == 0) == (0 not in children)


@settings(max_examples=150, deadline=None)
@given(small_shapes)
def test_winning_moves_are_exactly_the_moves_to_zero(shape):
    to_zero = [m for m in SOLVER.moves(shape) if ref_nimber(shape - set(m)) == 0]
    assert SOLVER.winning_moves(shape) == to_zero
    if to_zero:
        assert SOLVER.nimber(shape) != 0


@settings(max_examples=100, deadline=None)
@given(small_shapes.filter(bool))
def test_best_losing_move_is_a_legal_single_tile(shape):
    if SOLVER.nimber(shape):
        with pytest.raises(ValueError):
            SOLVER.best_losing_move(shape)
    else:
        move = SOLVER.best_losing_move(shape)
        assert move in SOLVER.moves(shape) and len(move) == 1


# --------------------------------------------------------------------------
# The cache hooks
# --------------------------------------------------------------------------


def test_export_import_round_trip():
    solver = Solver()
    shapes = [block(3, 5), parse_shape("####\n#.#.\n###."), cells_of("D3,E3,F3,G3,F2,G2,D4,E4,D5,E5")]
    values = [solver.nimber(s) for s in shapes]
    data = solver.export_cache()
    assert data["format"] == "monunrail-nimbers" and data["version"] == 1
    assert all(type(x) is int for entry in data["shapes"] for x in entry)
    assert len(data["shapes"]) <= solver.cache_size
    fresh = Solver()
    assert fresh.import_cache(data) == len(data["shapes"])
    size = fresh.cache_size
    assert size >= len(data["shapes"])
    assert [fresh.nimber(s) for s in shapes] == values
    assert fresh.cache_size == size  # nothing had to be solved again
    assert fresh.export_cache()["shapes"] or not data["shapes"]


def test_import_refuses_bad_data():
    solver = Solver()
    with pytest.raises(ValueError):
        solver.import_cache({"format": "something else", "version": 1, "shapes": []})
    with pytest.raises(ValueError):
        solver.import_cache({"format": "monunrail-nimbers", "version": 99, "shapes": []})
    for entry in ([1, 2, 3], [2, 2, 0b1001, 3], [1, 3, 0b011, 2], [1, 1, 1, 300], [2, 2, 0b1111, "0"]):
        with pytest.raises(ValueError):
            solver.import_cache({"format": "monunrail-nimbers", "version": 1, "shapes": [entry]})
    assert solver.import_cache({"format": "monunrail-nimbers", "version": 1, "shapes": [[2, 2, 0b1111, 0]]}) == 1


def test_cache_size_grows_and_the_solver_reports_its_path():
    solver = Solver()
    assert solver.cache_size == 0
    solver.nimber(block(3, 3))
    assert solver.cache_size > 0
    assert solver.implementation == "pure Python"
