"""MonUnrail's removal-phase solver against the published vectors and a reference.

The vectors are those the author publishes (jakkdl/MonUnrail-nimbers: the README
tables, the nimber cheat sheet, the death-match position dm1 and the finished
track of start_of_unrail.png).  The properties compare the fast solver with a
tiny reference solver written here: plain recursion over frozensets of cells
with mex, no components, no symmetry, no bit tricks.
"""

from __future__ import annotations

import shutil
import sysconfig
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termgames.rules.monunrail.shapes import components
from termgames.rules.monunrail.solver import (
    Solver,
    SolveStopped,
    cell_name,
    compiled_core_available,
    line_nimber,
    mirror_wins,
    parse_shape,
)

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


@cache
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


#: Both paths of the solver; the compiled one only where it is built.
CORES = [
    pytest.param("python", id="python"),
    pytest.param(
        "c", id="c", marks=pytest.mark.skipif(not compiled_core_available(), reason="termgames._unrail not built")
    ),
]
_SOLVERS: dict[str, Solver] = {}


def shared_solver(core: str) -> Solver:
    """One solver per path, shared: sub-shapes of one test are cache hits in another."""
    if core not in _SOLVERS:
        _SOLVERS[core] = Solver(core=core)
    return _SOLVERS[core]

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


@pytest.mark.parametrize("core", CORES)
def test_straight_rows_use_the_line_table(core):
    solver = shared_solver(core)
    for n in (1, 7, 34, 100, 204):
        assert solver.nimber((c, 0) for c in range(n)) == LINE[n]
        assert solver.nimber((5, r) for r in range(n)) == LINE[n]


@pytest.mark.parametrize(
    "core,tables", [("python", True), ("python", False), pytest.param("c", True, marks=CORES[1].marks)]
)
def test_general_grid_solver_on_straight_rows(core, tables):
    solver = Solver(line_table=False, tables=tables, core=core)
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


@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize("rows", sorted(BLOCKS))
def test_solid_blocks(core, rows):
    values = BLOCKS[rows]
    if core == "python":
        # up to 24 cells: 2x14 and 5x5 take the pure-Python path ~10 s each
        values = values[: 24 // rows + 1]
    solver = Solver(core=core)
    # the largest first: every smaller block is then a cache hit
    got = {n: solver.nimber(block(rows, n)) for n in reversed(range(len(values)))}
    assert [got[n] for n in range(len(values))] == values
    # turned a quarter, the same values
    assert [solver.nimber(block(n, rows)) for n in range(len(values))] == values


def test_small_blocks_with_dict_cores_only():
    solver = Solver(tables=False, core="python")
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


@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize("picture,value", CHEAT_SHEET)
def test_cheat_sheet(core, picture, value):
    solver = shared_solver(core)
    shape = parse_shape(picture.replace("/", "\n"))
    for image in transforms(shape):
        assert solver.nimber(image) == value
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


@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize("picture,value", README_POSITIONS)
def test_readme_examples(core, picture, value):
    solver = shared_solver(core)
    assert solver.nimber(parse_shape(picture)) == value


PUZZLES = [  # "can you win?": yes, no, yes, no
    (".....\n.##..\n..##.\n.....", True),
    ("....\n.##.\n.##.\n....", False),
    ("......\n.####.\n..#...\n......", True),
    ("......\n.####.\n.#.#..\n......", False),
]


@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize("picture,win", PUZZLES)
def test_readme_puzzles(core, picture, win):
    solver = shared_solver(core)
    shape = parse_shape(picture)
    assert (solver.nimber(shape) != 0) is win
    assert bool(solver.winning_moves(shape)) is win


@pytest.mark.parametrize("core", CORES)
def test_death_match_position(core):
    solver = shared_solver(core)
    dm1 = cells_of("D3,E3,F3,G3,F2,G2,D4,E4,D5,E5")
    assert solver.nimber(dm1) == 2
    assert move_names(solver.winning_moves(dm1)) == ["D3+E3", "F2+F3", "F2+G2", "F3+G3", "G2+G3"]


@pytest.mark.parametrize("core", CORES)
def test_finished_track_of_start_of_unrail(core):
    solver = shared_solver(core)
    crossroads = "C3 D3"
    turns = "C1 D1 B3 E3 D5 E5 B6 C6"
    straights = "C2 D2 B4 C4 D4 E4 B5 C5"
    track = cells_of(" ".join((crossroads, turns, straights)))
    assert len(track) == 18
    assert solver.nimber(track) == 9
    assert move_names(solver.winning_moves(track)) == ["B3+C3", "C3+C4", "D3+D4"]


@pytest.mark.parametrize("core", CORES)
def test_mirror_pairs_are_zero(core):
    solver = shared_solver(core)
    shape = parse_shape("###\n#..\n#..")
    other = {(c + 10, r + 3) for c, r in shape}
    assert solver.nimber(shape | other) == 0
    turned = {(r + 20, c) for c, r in shape}
    assert solver.nimber(shape | turned) == 0


# --------------------------------------------------------------------------
# moves, winning_moves, best_losing_move
# --------------------------------------------------------------------------


@pytest.mark.parametrize("core", CORES)
def test_moves_are_sorted_tuples(core):
    solver = shared_solver(core)
    moves = solver.moves(parse_shape("###\n#.."))
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
    assert solver.moves([]) == []
    # a bend is not a line of three
    assert ((0, 0), (0, 1), (1, 0)) not in solver.moves(parse_shape("##\n#."))


@pytest.mark.parametrize("core", CORES)
def test_winning_moves_of_a_lost_position_is_empty(core):
    solver = shared_solver(core)
    assert solver.winning_moves(parse_shape("##\n##")) == []
    assert solver.winning_moves([]) == []


@pytest.mark.parametrize("core", CORES)
def test_best_losing_move(core):
    solver = shared_solver(core)
    square = parse_shape("##\n##")
    move = solver.best_losing_move(square)
    assert len(move) == 1 and move == ((0, 0),)  # all four are alike: the first
    # two separate L-trominoes: take from the middle of one, never a whole end
    two = parse_shape("##...##\n#.....#")
    move = solver.best_losing_move(two)
    assert len(move) == 1
    rest = two - set(move)
    assert solver.nimber(rest) != 0
    # the remainder keeps a 3-cell component and as many moves as possible
    best = max(len(solver.moves(two - {c})) for c in two)
    assert len(solver.moves(rest)) == best
    assert solver.best_losing_move(two) == move  # deterministic
    with pytest.raises(ValueError):
        solver.best_losing_move(parse_shape("##"))
    with pytest.raises(ValueError):
        solver.best_losing_move([])


# --------------------------------------------------------------------------
# Properties against the reference solver
# --------------------------------------------------------------------------

small_shapes = st.sets(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=0, max_size=10).map(frozenset)


@pytest.mark.parametrize("core", CORES)
@settings(max_examples=300, deadline=None)
@given(small_shapes)
def test_agrees_with_reference(core, shape):
    solver = shared_solver(core)
    want = ref_nimber(shape)
    assert solver.nimber(shape) == want
    assert Solver(tables=False, line_table=False).nimber(shape) == want


@pytest.mark.parametrize("core", CORES)
@settings(max_examples=150, deadline=None)
@given(small_shapes, st.integers(-7, 7), st.integers(-7, 7))
def test_invariant_under_symmetry_and_translation(core, shape, dc, dr):
    solver = shared_solver(core)
    value = solver.nimber(shape)
    for image in transforms(shape):
        assert solver.nimber({(c + dc, r + dr) for c, r in image}) == value


@pytest.mark.parametrize("core", CORES)
@settings(max_examples=150, deadline=None)
@given(small_shapes)
def test_value_is_the_mex_of_the_moves(core, shape):
    solver = shared_solver(core)
    children = {solver.nimber(shape - set(m)) for m in solver.moves(shape)}
    value = solver.nimber(shape)
    assert value not in children
    assert all(k in children for k in range(value))
    # in particular: 0 iff every move leads to a nonzero position
    assert (value == 0) == (0 not in children)


@pytest.mark.parametrize("core", CORES)
@settings(max_examples=150, deadline=None)
@given(small_shapes)
def test_winning_moves_are_exactly_the_moves_to_zero(core, shape):
    solver = shared_solver(core)
    to_zero = [m for m in solver.moves(shape) if ref_nimber(shape - set(m)) == 0]
    assert solver.winning_moves(shape) == to_zero
    if to_zero:
        assert solver.nimber(shape) != 0


@pytest.mark.parametrize("core", CORES)
@settings(max_examples=100, deadline=None)
@given(small_shapes.filter(bool))
def test_best_losing_move_is_a_legal_single_tile(core, shape):
    solver = shared_solver(core)
    if solver.nimber(shape):
        with pytest.raises(ValueError):
            solver.best_losing_move(shape)
    else:
        move = solver.best_losing_move(shape)
        assert move in solver.moves(shape) and len(move) == 1


# --------------------------------------------------------------------------
# The cache hooks
# --------------------------------------------------------------------------


@pytest.mark.parametrize("core", CORES)
def test_export_import_round_trip(core):
    solver = Solver(core=core)
    shapes = [block(3, 5), parse_shape("####\n#.#.\n###."), cells_of("D3,E3,F3,G3,F2,G2,D4,E4,D5,E5")]
    values = [solver.nimber(s) for s in shapes]
    data = solver.export_cache()
    assert data["format"] == "monunrail-nimbers" and data["version"] == 1
    assert all(type(x) is int for entry in data["shapes"] for x in entry)
    assert len(data["shapes"]) <= solver.cache_size
    fresh = Solver(core=core)
    assert fresh.import_cache(data) == len(data["shapes"])
    size = fresh.cache_size
    assert size >= len(data["shapes"])
    assert [fresh.nimber(s) for s in shapes] == values
    assert fresh.cache_size == size  # nothing had to be solved again
    assert fresh.export_cache()["shapes"] or not data["shapes"]


@pytest.mark.parametrize("core", CORES)
def test_import_refuses_bad_data(core):
    solver = Solver(core=core)
    with pytest.raises(ValueError):
        solver.import_cache({"format": "something else", "version": 1, "shapes": []})
    with pytest.raises(ValueError):
        solver.import_cache({"format": "monunrail-nimbers", "version": 99, "shapes": []})
    for entry in ([1, 2, 3], [2, 2, 0b1001, 3], [1, 3, 0b011, 2], [1, 1, 1, 300], [2, 2, 0b1111, "0"]):
        with pytest.raises(ValueError):
            solver.import_cache({"format": "monunrail-nimbers", "version": 1, "shapes": [entry]})
    assert solver.import_cache({"format": "monunrail-nimbers", "version": 1, "shapes": [[2, 2, 0b1111, 0]]}) == 1


@pytest.mark.parametrize("core,name", [("python", "pure Python"), pytest.param("c", "C", marks=CORES[1].marks)])
def test_cache_size_grows_and_the_solver_reports_its_path(core, name):
    solver = Solver(core=core)
    assert solver.cache_size == 0
    solver.nimber(block(3, 3))
    assert solver.cache_size > 0
    assert solver.implementation == name


# --------------------------------------------------------------------------
# The compiled core against the pure-Python one
# --------------------------------------------------------------------------

needs_c = pytest.mark.skipif(not compiled_core_available(), reason="termgames._unrail not built")


def test_the_compiled_core_is_built_where_a_compiler_is():
    """``pip install`` builds termgames._unrail when it can: a silently
    failing build would otherwise leave every C test skipped."""
    compiler = (sysconfig.get_config_var("CC") or "").split()
    if not compiler or shutil.which(compiler[0]) is None:
        pytest.skip("no C compiler here: the pure-Python solver is the only path")
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        pytest.skip("no Python headers here: the pure-Python solver is the only path")
    assert compiled_core_available()


def test_choosing_the_path(monkeypatch):
    monkeypatch.setenv("TERMGAMES_PURE_PYTHON", "1")
    assert Solver().implementation == "pure Python"
    monkeypatch.setenv("TERMGAMES_PURE_PYTHON", "0")
    assert Solver().implementation == ("C" if compiled_core_available() else "pure Python")
    monkeypatch.delenv("TERMGAMES_PURE_PYTHON")
    assert Solver().implementation == ("C" if compiled_core_available() else "pure Python")
    assert Solver(core="python").implementation == "pure Python"
    with pytest.raises(ValueError):
        Solver(core="fortran")
    if not compiled_core_available():
        with pytest.raises(RuntimeError):
            Solver(core="c")


# shapes on the game's board (8 columns by 7 rows), sparse to dense
board_shapes = st.sets(st.tuples(st.integers(0, 7), st.integers(0, 6)), min_size=1, max_size=22).map(frozenset)
# long shapes: the compiled core keeps them in their 16-column orientation
long_shapes = st.sets(st.tuples(st.integers(0, 13), st.integers(0, 2)), min_size=1, max_size=20).map(frozenset)


@needs_c
@settings(max_examples=60, deadline=None)
@given(st.one_of(board_shapes, long_shapes), st.booleans())
def test_compiled_and_python_agree_on_random_shapes(shape, turned):
    if turned:
        shape = frozenset((r, c) for c, r in shape)
    c_solver, py_solver = shared_solver("c"), shared_solver("python")
    assert c_solver.nimber(shape) == py_solver.nimber(shape)
    assert c_solver.winning_moves(shape) == py_solver.winning_moves(shape)


@needs_c
def test_compiled_core_on_long_blocks_and_past_its_frame():
    solver = Solver(core="c")
    # 2 x N up to 14: the 16-column frame, where only 4 images are symmetric
    assert [solver.nimber(block(2, n)) for n in range(len(BLOCKS[2]))] == BLOCKS[2]
    assert [solver.nimber(block(n, 2)) for n in range(len(BLOCKS[2]))] == BLOCKS[2]
    # a component wider than 16 in both orientations: the pure-Python cores
    # take it, their pieces included
    ring = {(c, 0) for c in range(17)} | {(c, 16) for c in range(17)}
    ring |= {(0, r) for r in range(17)} | {(16, r) for r in range(17)}
    assert solver.nimber(ring) == Solver(core="python").nimber(ring) == 0
    comb = {(c, 0) for c in range(18)} | {(c, 1) for c in range(0, 18, 3)}
    assert solver.nimber(comb) == Solver(core="python").nimber(comb)


@needs_c
def test_caches_move_between_the_paths():
    shapes = [block(3, 4), parse_shape("####\n#.#.\n###."), block(2, 9)]
    for source, target in (("c", "python"), ("python", "c")):
        solver = Solver(core=source)
        values = [solver.nimber(s) for s in shapes]
        other = Solver(core=target)
        other.import_cache(solver.export_cache())
        size = other.cache_size
        assert [other.nimber(s) for s in shapes] == values
        assert other.cache_size == size  # all read from the cache


@needs_c
def test_compiled_core_refuses_bad_keys():
    from termgames import _unrail

    core = _unrail.Core()
    assert core.lookup(0b11, 0) is None
    core.load(0b11, 0, 2)
    assert core.lookup(0b11, 0) == 2
    assert core.lookup(0b1 | 0b1 << 16, 0) == 2  # the same domino, standing
    assert core.lookup(0b101, 0) is None  # two single tiles: not solved yet
    assert core.value(0b101, 0) == 0  # 1 xor 1
    assert core.lookup(0b1, 0) == 1
    assert core.lookup(0, 0) == 0
    with pytest.raises(ValueError):
        core.load(0b1011, 0, 0)  # not connected
    with pytest.raises(ValueError):
        core.load(0b110, 0, 2)  # not at the origin
    with pytest.raises(OverflowError):
        core.value(0, 1 << 64)  # not a 64-bit half


@needs_c
def test_threads_share_a_compiled_solver():
    """The C core solves without the GIL, behind a lock: a game's AI thread
    and its screen may use one solver at the same time."""
    import threading

    solver = Solver(core="c")
    solver.nimber(block(1, 1))  # the core exists before the threads start
    shapes = {(4, 5): 7, (2, 12): 0, (3, 6): 6, (5, 4): 7, (3, 7): 4}
    got = {}

    def work(size):
        got[size] = solver.nimber(block(*size))

    threads = [threading.Thread(target=work, args=(size,)) for size in shapes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == shapes


# --------------------------------------------------------------------------
# The second player's mirror strategy (issue 28)
# --------------------------------------------------------------------------


def half_turn_images(cells: frozenset) -> frozenset:
    """The half turn of ``cells`` about the centre of their bounding box (written here, not taken from the module)."""
    cols = [c for c, _ in cells]
    rows = [r for _, r in cells]
    return frozenset((min(cols) + max(cols) - c, min(rows) + max(rows) - r) for c, r in cells)


def a_removal_meets_its_image(cells: frozenset) -> bool:
    """The condition of the claim, checked removal by removal rather than through the central cells."""
    image = half_turn_images(cells)
    assert image == cells
    cols = [c for c, _ in cells]
    rows = [r for _, r in cells]
    turn = {cell: (min(cols) + max(cols) - cell[0], min(rows) + max(rows) - cell[1]) for cell in cells}
    return any(set(move) & {turn[c] for c in move} for move in ref_moves(cells))


@pytest.mark.parametrize(
    "picture,wins",
    [
        ("##/##", True),  # O4: even sides
        ("######/######", True),  # 2x6
        ("###/###", False),  # 2x3: the middle column's domino is its own image
        ("###/#.#/###", True),  # the 3x3 ring: the centre is empty
        ("###/###/###", False),  # the centre cell is its own image
        ("##./.##", False),  # S4: the middle column's domino again (S4 is worth 1)
        ("#.#", True),  # two single tiles in a row, the centre empty
        ("##.##", True),
        ("###", False),
        ("##/#.", False),  # not symmetric
        ("#..#/####/#..#", False),  # 3 rows: the middle row's two central cells are both there
        ("#..#/#..#/#..#", True),  # ... and here they are not
        ("##../..##", True),  # two dominoes, a half turn apart
        ("#", False),
        ("", False),
    ],
)
def test_mirror_wins_says_when_the_second_player_mirrors(picture, wins):
    shape = parse_shape(picture.replace("/", "\n"))
    assert mirror_wins(shape) is wins
    if wins:
        assert ref_nimber(shape) == 0
    if shape and half_turn_images(shape) == shape:
        assert wins is not a_removal_meets_its_image(shape)


@cache
def symmetric_polyominoes(max_cells: int) -> tuple[frozenset, ...]:
    """Every polyomino of at most ``max_cells`` cells that is its own half turn, once up to translation.

    A half turn has its centre at a cell's centre, an edge's middle or a
    corner; around each, the cells pair off into orbits {p, image of p}.  A
    symmetric polyomino is a set of orbits that touch one another (Redelmeier's
    enumeration of connected subgraphs of the graph of orbits, each found once
    from its least orbit), whose cells are connected: touching orbits may
    still leave two pieces that are images of each other.  A cell p of such a
    polyomino lies on a path to its image, so |p - image| < max_cells.
    """
    found = []
    for cx2 in (0, 1):
        for cy2 in (0, 1):  # the centre is (cx2 / 2, cy2 / 2); the image of (x, y) is (cx2 - x, cy2 - y)
            orbits = {}
            for x in range(-max_cells, max_cells + 2):
                for y in range(-max_cells, max_cells + 2):
                    if abs(2 * x - cx2) + abs(2 * y - cy2) < max_cells:
                        orbit = frozenset(((x, y), (cx2 - x, cy2 - y)))
                        orbits[orbit] = min(orbit)
            order = sorted(orbits, key=orbits.get)
            index = {cell: i for i, orbit in enumerate(order) for cell in orbit}
            cells = [tuple(orbit) for orbit in order]
            near = [
                sorted({index[q] for x, y in orbit for q in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))
                        if q in index and index[q] != i})
                for i, orbit in enumerate(order)
            ]

            for root in range(len(order)):
                first = [u for u in near[root] if u > root]
                for chosen in _grow(cells, near, max_cells, root, cells[root], first, set(first) | {root}):
                    left = set(chosen)
                    stack = [left.pop()]
                    while stack:
                        x, y = stack.pop()
                        for q in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                            if q in left:
                                left.remove(q)
                                stack.append(q)
                    if not left:
                        found.append(frozenset(chosen))
    return tuple(found)


def _grow(cells, near, max_cells, root, chosen, untried, seen):
    """Redelmeier's step: the sets of orbits grown from ``chosen`` by orbits after ``root``."""
    yield chosen
    while untried:
        v = untried.pop()
        if len(chosen) + len(cells[v]) > max_cells:
            continue
        new = [u for u in near[v] if u > root and u not in seen]
        yield from _grow(cells, near, max_cells, root, chosen + cells[v], untried + new, seen.union(new))


def test_the_enumeration_of_symmetric_polyominoes():
    # per size: 1, 2 (the dominoes), 2 (I3), 7 (O4, two I4, two S4, two Z4), then the known counts of
    # fixed polyominoes with a half-turn symmetry (checked against a brute force over all fixed
    # polyominoes up to 10 cells)
    sizes = [len(shape) for shape in symmetric_polyominoes(10)]
    assert [sizes.count(n) for n in range(1, 11)] == [1, 2, 2, 7, 7, 24, 24, 85, 86, 310]
    assert all(half_turn_images(shape) == shape for shape in symmetric_polyominoes(10))


def fixed_polyominoes(n: int) -> set[frozenset]:
    """Every fixed polyomino of n cells, at the origin (grown cell by cell: a check of the enumeration above)."""
    shapes = {frozenset([(0, 0)])}
    for _ in range(n - 1):
        grown = set()
        for shape in shapes:
            for x, y in shape:
                for q in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if q not in shape:
                        bigger = shape | {q}
                        c0 = min(c for c, _ in bigger)
                        r0 = min(r for _, r in bigger)
                        grown.add(frozenset((c - c0, r - r0) for c, r in bigger))
        shapes = grown
    return shapes


def test_the_enumeration_agrees_with_a_brute_force():
    for n in range(1, 9):
        symmetric = {s for s in fixed_polyominoes(n) if half_turn_images(s) == s}
        enumerated = set()
        for shape in symmetric_polyominoes(8):
            if len(shape) == n:
                c0 = min(c for c, _ in shape)
                r0 = min(r for _, r in shape)
                enumerated.add(frozenset((c - c0, r - r0) for c, r in shape))
        assert enumerated == symmetric, n


def test_every_symmetric_polyomino_up_to_16_tiles_against_the_plain_search():
    """The claim, shape by shape: each polyomino of up to 16 tiles that is its own half turn and meets the
    condition (even sides, or the central cells not all there) is worth 0 by the plain search (no symmetry
    rule); and the solver with the rule gives every symmetric polyomino the plain search's value.  Up to
    14 tiles where the compiled core is not built (the pure-Python search takes ~20 s more for 15-16)."""
    most = 16 if compiled_core_available() else 14
    plain = Solver(symmetry=False)
    fast = shared_solver("c" if compiled_core_available() else "python")
    zero_by_rule = nonzero = 0
    for shape in sorted(symmetric_polyominoes(most), key=len):
        value = plain.nimber(shape)
        if mirror_wins(shape):
            assert value == 0, sorted(shape)
            assert not a_removal_meets_its_image(shape)
            zero_by_rule += 1
        else:
            assert a_removal_meets_its_image(shape)
            nonzero += value != 0
        assert fast.nimber(shape) == value
    # the rule is used, and its condition is needed: symmetric shapes it leaves out are often not 0
    assert zero_by_rule > (4000 if most == 16 else 1000) and nonzero > 4000


def symmetric_subsets(rows: int, cols: int):
    """Every set of cells of the box that is its own half turn about the box's centre (connected or not)."""
    cells = [(c, r) for r in range(rows) for c in range(cols)]
    orbits = sorted({frozenset(((c, r), (cols - 1 - c, rows - 1 - r))) for c, r in cells}, key=sorted)
    for mask in range(1 << len(orbits)):
        yield frozenset(cell for i, orbit in enumerate(orbits) if mask >> i & 1 for cell in orbit)


@pytest.mark.parametrize("core", CORES)
def test_symmetric_positions_of_small_boxes_against_the_plain_search(core):
    """Whole positions, of one component or several: every symmetric set of cells in a box of up to 16
    cells (up to 12 in pure Python).  A position symmetric as a whole is 0 under the condition, whatever
    its components."""
    most = 16 if core == "c" else 12
    plain = Solver(core=core, symmetry=False)
    fast = shared_solver(core)
    checked = several = 0
    for rows in range(1, most + 1):
        for cols in range(rows, most // rows + 1):
            for shape in symmetric_subsets(rows, cols):
                value = plain.nimber(shape)
                if mirror_wins(shape):
                    assert value == 0, sorted(shape)
                    several += len(components(shape)) > 1
                assert fast.nimber(shape) == value
                assert fast.nimber({(r, c) for c, r in shape}) == value
                checked += 1
    assert checked > (1000 if most == 16 else 400) and several > (100 if most == 16 else 30)


symmetric_positions = st.sets(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=9).map(
    lambda half: frozenset(half) | {(9 - c, 9 - r) for c, r in half}
)


@pytest.mark.parametrize("core", CORES)
@settings(max_examples=120, deadline=None)
@given(symmetric_positions, st.integers(0, 1), st.integers(0, 1))
def test_random_symmetric_positions_against_the_plain_search(core, shape, trim_col, trim_row):
    # symmetric about (4.5, 4.5) in the 10 x 10 box; trimming a column and a row moves the centre to
    # a cell's centre or an edge's middle, so that odd sides come up too
    shape = frozenset((c, r) for c, r in shape if c >= trim_col and r >= trim_row)
    shape = shape & half_turn_images(shape) if shape else shape  # symmetric about its own box's centre
    if not shape:
        return
    plain = Solver(core=core, symmetry=False)
    value = plain.nimber(shape)
    if mirror_wins(shape):
        assert value == 0
    assert shared_solver(core).nimber(shape) == value
    assert shared_solver(core).winning_moves(shape) == plain.winning_moves(shape)


@pytest.mark.parametrize("core", CORES)
def test_symmetric_blocks_answer_at_once(core):
    solver = Solver(core=core)
    for rows, cols in ((6, 6), (2, 20), (8, 8), (4, 30), (2, 200), (6, 7 * 2)):
        assert solver.nimber(block(rows, cols)) == 0
        assert solver.winning_moves(block(rows, cols)) == []
    # two components a half turn apart, each far too large to search: the whole is 0 at once
    big = parse_shape("######\n#####.\n######\n######\n######\n######")
    turned = {(30 - c, 20 - r) for c, r in big}
    assert solver.nimber(big | turned) == 0 and solver.winning_moves(big | turned) == []
    assert solver.cache_size == 0  # nothing was searched


# --------------------------------------------------------------------------
# The strip core (2 rows, up to 32 columns)
# --------------------------------------------------------------------------

strip_shapes = st.sets(st.tuples(st.integers(0, 23), st.integers(0, 1)), min_size=1, max_size=17).map(frozenset)


@needs_c
@settings(max_examples=80, deadline=None)
@given(strip_shapes, st.booleans(), st.booleans())
def test_the_strip_core_agrees_with_the_pure_python_search(shape, turned, symmetry):
    if turned:
        shape = frozenset((r, c) for c, r in shape)
    c_solver = Solver(core="c", symmetry=symmetry)
    assert c_solver.nimber(shape) == shared_solver("python").nimber(shape)
    assert c_solver.winning_moves(shape) == shared_solver("python").winning_moves(shape)


@needs_c
def test_strips_past_the_compiled_frame():
    solver = Solver(core="c")
    assert [solver.nimber(block(2, n)) for n in (15, 16)] == [2, 0]
    assert solver.nimber(block(15, 2)) == 2
    assert ("strip", 0) in solver._cores and ("c", 0) not in solver._cores
    # a comb 20 columns wide (past the 16 columns of the general frame) and a strip of 2 x 24 cut into
    # pieces: the strip core against pure Python
    comb = {(c, 0) for c in range(20)} | {(c, 1) for c in (0, 5, 10, 11, 15, 19)}
    holes = block(2, 24) - {(6, 0), (6, 1), (13, 0), (13, 1), (19, 0), (19, 1), (2, 0), (16, 1)}
    for shape in (comb, holes, {(r, c) for c, r in comb}):
        assert solver.nimber(shape) == Solver(core="python").nimber(shape)
    data = solver.export_cache()
    assert all(entry[0] == 2 or entry[1] == 2 or min(entry[:2]) == 1 for entry in data["shapes"])
    fresh = Solver(core="c")
    fresh.import_cache(data)
    size = fresh.cache_size
    assert fresh.nimber(block(2, 15)) == 2 and fresh.nimber(comb) == solver.nimber(comb)
    assert fresh.cache_size == size


@needs_c
def test_the_strip_core_refuses_bad_input():
    from termgames import _unrail

    strip = _unrail.Strip()
    with pytest.raises(ValueError):
        strip.load(0b101, 1)  # two pieces
    with pytest.raises(ValueError):
        strip.load(0, 1)
    assert strip.lookup(0b11) == 2  # a row of two: the line table
    assert strip.lookup(0b11 | 0b11 << 32) is None
    assert strip.value(0b11 | 0b11 << 32) == 0
    assert strip.lookup(0b11 << 3 | 0b11 << 35) == 0  # anywhere in the strip
    with pytest.raises(ValueError):
        strip.load_dump(b"\x05" + bytes(8))  # not a connected shape
    with pytest.raises(TypeError):
        strip.load_entries("nope")
    assert strip.load_entries([[2, 2, 0b1111, 0], [2, 3, 0b100001, 3]]) == 1  # the second is not connected


# --------------------------------------------------------------------------
# Limits, progress, analyse() and dumps
# --------------------------------------------------------------------------


class Stop(Exception):
    pass


@pytest.mark.parametrize("core", CORES)
def test_progress_is_called_and_a_stop_keeps_what_was_solved(core):
    solver = Solver(core=core, tick_every=200)
    calls = []

    def progress():
        calls.append(solver.cache_size)
        if len(calls) == 3:
            raise Stop

    shape = block(4, 5)
    with pytest.raises(Stop), solver.watching(progress):
        solver.nimber(shape)
    assert len(calls) == 3 and calls == sorted(calls) and solver.cache_size >= calls[-1] > 0
    kept = solver.cache_size
    assert solver.nimber(shape) == 7  # goes on from there, no callback any more
    assert solver.cache_size > kept


@needs_c
def test_a_memory_limit_stops_the_compiled_tables_before_they_grow():
    for small, large, kind in ((block(3, 4), block(4, 5), "c"), (block(2, 9), block(2, 15), "strip")):
        solver = Solver(core="c")
        solver.nimber(small)
        held = solver.memory
        solver.memory_limit = held + 1000
        with pytest.raises(SolveStopped) as stopped:
            solver.nimber(large)
        assert stopped.value.limit == "memory" and "limit" in str(stopped.value)
        assert solver.memory == held and list(solver._cores) == [(kind, 0)]
        solver.memory_limit = None
        assert solver.nimber(large) == (7 if kind == "c" else 2)


def test_a_memory_limit_stops_the_python_cores_too():
    solver = Solver(core="python", tick_every=100)
    solver.memory_limit = 1
    with pytest.raises(SolveStopped) as stopped:
        solver.nimber(block(3, 5))
    assert stopped.value.limit == "memory"


@pytest.mark.parametrize("core", CORES)
@settings(max_examples=60, deadline=None)
@given(small_shapes)
def test_analyse_answers_as_nimber_and_winning_moves(core, shape):
    solver = shared_solver(core)
    analysis = solver.analyse(shape)
    assert analysis.nimber == solver.nimber(shape) == ref_nimber(shape)
    assert analysis.winning_moves == solver.winning_moves(shape)
    assert analysis.sure_winning_moves() == analysis.winning_moves
    assert analysis.symmetric == mirror_wins(shape)
    for part in analysis.components:
        assert part.value == ref_nimber(part.cells)
        assert part.how in ("symmetric", "line", "known", "solved")
        if part.how == "solved":
            assert len(part.children) == part.moves and part.floor == part.value


@pytest.mark.parametrize("core", CORES)
def test_a_stopped_analysis_says_what_it_knows(core):
    solver = Solver(core=core, tick_every=50)
    shape = block(3, 3) | {(c + 5, r) for c, r in block(3, 4)}  # 3x3 (worth 1) and 3x4 (2), the larger last
    seen = []

    def progress(analysis):
        seen.append(analysis.moves_checked)
        if analysis.components[0].value is not None and analysis.working_on() is analysis.components[1] and len(
            analysis.components[1].children
        ) > 2:
            raise SolveStopped("time", "enough")

    with pytest.raises(SolveStopped) as stopped:
        solver.analyse(shape, progress)
    partial = stopped.value.analysis
    assert partial is not None and partial.nimber is None
    assert partial.components[0].value == 1
    assert len(partial.components[1].cells) == 12 and partial.components[1].value is None
    # each child valued is right; the value is at least their mex
    for move, value in partial.components[1].children.items():
        assert value == ref_nimber(partial.components[1].cells - set(move))
    assert partial.components[1].floor <= 2
    # a move that leaves the 3x4 worth the 3x3's value leaves 0, and is known to win already
    assert all(ref_nimber(shape - set(m)) == 0 for m in partial.sure_winning_moves())
    full = solver.analyse(shape)
    assert full.nimber == 3 and full.winning_moves == solver.winning_moves(shape)
    assert set(partial.sure_winning_moves()) <= set(full.winning_moves)


@pytest.mark.parametrize("source", CORES)
@pytest.mark.parametrize("target", CORES)
def test_dumps_hand_everything_on(source, target):
    import io

    solver = Solver(core=source)
    shapes = [block(3, 5), block(2, 9), parse_shape("####\n#.#.\n###.")]
    values = [solver.nimber(s) for s in shapes]
    buffer = io.BytesIO()
    written = solver.dump(buffer.write, tag="a position")
    assert written == len(buffer.getvalue()) > 0
    buffer.seek(0)
    fresh = Solver(core=target)
    assert Solver.dump_tag(buffer.read) == "a position"
    fresh.load_dump(buffer.read)
    size = fresh.cache_size
    assert [fresh.nimber(s) for s in shapes] == values
    if source == "python" or target == "c":  # a pure-Python solver skips the compiled cores' raw entries
        assert fresh.cache_size == size  # nothing solved again
    # cut short, or not a dump at all
    data = buffer.getvalue()
    first_line = data.index(b"\n") + 1
    for bad in (data[: first_line + 20], data[:first_line] + b"X" + bytes(8)):
        stream = io.BytesIO(bad)
        assert Solver.dump_tag(stream.read) == "a position"
        with pytest.raises(ValueError):
            Solver(core=target).load_dump(stream.read)
    assert Solver.dump_tag(io.BytesIO(b"something else\n").read) is None
