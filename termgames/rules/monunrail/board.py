"""MonUnrail's board: its cells and their names, the tiles, and the rules of track on a grid.

Columns A-H, rows 1-7, ``A1`` top left.  A cell is ``(column, row)``, 0-based,
exactly as :mod:`.solver` takes it: ``A1`` is ``(0, 0)``, ``D4`` is ``(3, 3)``;
an index is ``row * 8 + column``.  A grid is a sequence of 56 tile masks
(0 = empty), a mask the sides its track touches (:data:`N` :data:`E` :data:`S`
:data:`W`).  The two starting tiles are vertical straights at ``D4`` and
``E4`` (:data:`START_CELLS`).

Here are what the completion search (:mod:`.completion`) and the game
(:mod:`.game`) both build on: which tiles fit an empty cell
(:func:`side_rules`, :data:`OPTIONS`), whether a placement is legal
(:func:`placement_problem`), the open ends of the track and its circuit once
complete (:func:`open_end_list`, :func:`trace_circuit`).
"""

from __future__ import annotations

from collections.abc import Sequence

# --------------------------------------------------------------------------
# Geometry and tiles
# --------------------------------------------------------------------------

COLUMNS = 8
ROWS = 7
CELLS = COLUMNS * ROWS
COLUMN_LETTERS = "ABCDEFGH"

#: A cell as ``(column, row)``, 0-based; ``(0, 0)`` is ``A1``.
Cell = tuple[int, int]

N, E, S, W = 1, 2, 4, 8
SIDES = (N, E, S, W)
OPPOSITE = {N: S, E: W, S: N, W: E}
SIDE_NAMES = {N: "north", E: "east", S: "south", W: "west"}
STEP = {N: (0, -1), E: (1, 0), S: (0, 1), W: (-1, 0)}

#: Tile type code -> the sides its track touches.
TILE_MASKS = {
    "S-h": E | W,
    "S-v": N | S,
    "T-ne": N | E,
    "T-nw": N | W,
    "T-se": S | E,
    "T-sw": S | W,
    "X": N | E | S | W,
}
TILE_TYPES = tuple(TILE_MASKS)
MASK_TYPES = {mask: code for code, mask in TILE_MASKS.items()}
MASKS = tuple(TILE_MASKS.values())
STRAIGHT, TURN, CROSSROADS = 0, 1, 2
KIND_NAMES = ("straight", "turn", "crossroads")
KIND_PLURALS = ("straights", "turns", "crossroads")
KIND_OF_MASK = {mask: (CROSSROADS if mask == 15 else STRAIGHT if mask in (5, 10) else TURN) for mask in MASKS}

START_CELLS: tuple[Cell, ...] = ((3, 3), (4, 3))
START_TILES = {(3, 3): "S-v", (4, 3): "S-v"}


def index_of(cell: Cell) -> int:
    return cell[1] * COLUMNS + cell[0]


def cell_of(index: int) -> Cell:
    return (index % COLUMNS, index // COLUMNS)


def cell_name(cell: Cell) -> str:
    return f"{COLUMN_LETTERS[cell[0]]}{cell[1] + 1}"


def name_of(index: int) -> str:
    return cell_name(cell_of(index))


def _neighbour_table() -> tuple[dict[int, int], ...]:
    table = []
    for index in range(CELLS):
        col, row = cell_of(index)
        around = {}
        for side, (dc, dr) in STEP.items():
            c, r = col + dc, row + dr
            around[side] = r * COLUMNS + c if 0 <= c < COLUMNS and 0 <= r < ROWS else -1
        table.append(around)
    return tuple(table)


#: NEIGHBOUR[index][side] -> index of the cell on that side, or -1 off the board.
NEIGHBOUR = _neighbour_table()


def _options_table() -> list[list[tuple[int, ...]]]:
    """OPTIONS[required][forbidden]: the tile masks with track on every required side and none on a forbidden one."""
    return [
        [tuple(m for m in MASKS if m & req == req and not m & forb) for forb in range(16)] for req in range(16)
    ]


OPTIONS = _options_table()


def line_problem(indexes: Sequence[int]) -> str | None:
    """None if the cells (sorted) fill a line of one row or column without gaps."""
    if len(indexes) < 2:
        return None
    cells = [cell_of(i) for i in indexes]
    names = ", ".join(cell_name(c) for c in cells)
    if len({c[1] for c in cells}) == 1:
        columns = [c[0] for c in cells]
        if columns == list(range(columns[0], columns[0] + len(columns))):
            return None
        return f"{names} leave a gap: the cells of a move must be side by side"
    if len({c[0] for c in cells}) == 1:
        rows = sorted(c[1] for c in cells)
        if rows == list(range(rows[0], rows[0] + len(rows))):
            return None
        return f"{names} leave a gap: the cells of a move must be side by side"
    return f"{names} are not in one row or column"


# --------------------------------------------------------------------------
# Track analysis (grids are sequences of 56 tile masks, 0 = empty)
# --------------------------------------------------------------------------


def start_grid() -> tuple[int, ...]:
    grid = [0] * CELLS
    for cell, code in START_TILES.items():
        grid[index_of(cell)] = TILE_MASKS[code]
    return tuple(grid)


def side_rules(grid: Sequence[int], index: int) -> tuple[int, int]:
    """(required, forbidden) sides for a tile on empty ``index``: track facing it, blank facing it or the edge."""
    required = forbidden = 0
    around = NEIGHBOUR[index]
    for side in SIDES:
        other = around[side]
        if other < 0:
            forbidden |= side
        else:
            mask = grid[other]
            if mask:
                if mask & OPPOSITE[side]:
                    required |= side
                else:
                    forbidden |= side
    return required, forbidden


def placement_problem(
    grid: Sequence[int], supply: Sequence[int], items: Sequence[tuple[int, int]]
) -> str | None:
    """Why placing ``items`` ((index, mask) pairs, sorted) on ``grid`` is illegal, or None."""
    if not 1 <= len(items) <= 3:
        return f"place 1 to 3 tiles, not {len(items)}"
    indexes = [i for i, _ in items]
    for index in indexes:
        if grid[index]:
            what = "a starting tile" if cell_of(index) in START_TILES else f"a tile ({MASK_TYPES[grid[index]]})"
            return f"{name_of(index)} already holds {what}"
    line = line_problem(indexes)
    if line:
        return line
    needed = [0, 0, 0]
    for _, mask in items:
        needed[KIND_OF_MASK[mask]] += 1
    for kind in (STRAIGHT, TURN, CROSSROADS):
        if needed[kind] > supply[kind]:
            have = supply[kind]
            if have == 0:
                return f"the supply has no {KIND_PLURALS[kind]} left"
            what = KIND_PLURALS[kind] if have > 1 else KIND_NAMES[kind]
            return f"the supply has only {have} {what} left, the move needs {needed[kind]}"
    touching = any(grid[NEIGHBOUR[i][side]] for i in indexes for side in SIDES if NEIGHBOUR[i][side] >= 0)
    if not touching:
        return "at least one tile must be placed next to a tile on the board"
    after = list(grid)
    for index, mask in items:
        after[index] = mask
    for index, mask in items:
        code = MASK_TYPES[mask]
        for side in SIDES:
            other = NEIGHBOUR[index][side]
            mine = bool(mask & side)
            if other < 0:
                if mine:
                    return f"{code} on {name_of(index)} points {SIDE_NAMES[side]}, off the board"
                continue
            theirs_mask = after[other]
            if not theirs_mask:
                continue
            theirs = bool(theirs_mask & OPPOSITE[side])
            if mine != theirs:
                if mine:
                    return (
                        f"{code} on {name_of(index)} points {SIDE_NAMES[side]} into the blank "
                        f"{SIDE_NAMES[OPPOSITE[side]]} side of {name_of(other)}"
                    )
                return (
                    f"the track of {name_of(other)} points {SIDE_NAMES[OPPOSITE[side]]} into the blank "
                    f"{SIDE_NAMES[side]} side of {code} on {name_of(index)}"
                )
    return None


def segments_of(mask: int) -> tuple[int, ...]:
    """The track pieces of one tile: a crossroads has two bars, every other tile one."""
    return (N | S, E | W) if mask == 15 else (mask,)


def exit_side(mask: int, entry: int) -> int:
    """Where the track leaves a tile entered from side ``entry`` (straight on through a crossroads)."""
    return OPPOSITE[entry] if mask == 15 else mask ^ entry


def open_end_list(grid: Sequence[int]) -> list[tuple[int, int]]:
    """Every (index, side) whose track points into an empty cell."""
    ends = []
    for index, mask in enumerate(grid):
        if mask:
            for side in SIDES:
                if mask & side:
                    other = NEIGHBOUR[index][side]
                    if other >= 0 and not grid[other]:
                        ends.append((index, side))
    return ends


def trace_circuit(grid: Sequence[int]) -> tuple[int, ...] | None:
    """The cells of the complete circuit in order (from D4, going north), or None if the track is not complete.

    Complete: following the track from D4 returns to it having passed every
    track piece on the board exactly once, so every tile lies on the one
    loop and every crossroads is passed on both bars.  A crossroads appears
    twice in the result.
    """
    start = index_of(START_CELLS[0])
    total = sum(len(segments_of(mask)) for mask in grid if mask)
    cell, leaving = start, N
    path = [start]
    for _ in range(total + 1):
        nxt = NEIGHBOUR[cell][leaving]
        if nxt < 0 or not grid[nxt] or not grid[nxt] & OPPOSITE[leaving]:
            return None
        entry = OPPOSITE[leaving]
        leaving = exit_side(grid[nxt], entry)
        cell = nxt
        if cell == start and leaving == N:
            return tuple(path) if len(path) == total else None
        path.append(cell)
    return None


def track_problem(grid: Sequence[int]) -> str | None:
    """Why the track is not complete (None when it is): open ends, a crossroads on one bar, separate loops."""
    if trace_circuit(grid) is not None:
        return None
    ends = open_end_list(grid)
    if ends:
        first = ", ".join(f"{name_of(i)} {SIDE_NAMES[s]}" for i, s in ends[:4])
        more = f" and {len(ends) - 4} more" if len(ends) > 4 else ""
        count = f"{len(ends)} track ends are" if len(ends) > 1 else "1 track end is"
        return f"{count} open ({first}{more})"
    # No open ends but not one circuit: some loop leaves pieces out.
    start = index_of(START_CELLS[0])
    used = set()
    cell, leaving = start, N
    for _ in range(4 * CELLS):
        nxt = NEIGHBOUR[cell][leaving]
        entry = OPPOSITE[leaving]
        used.add((nxt, entry | exit_side(grid[nxt], entry)))
        leaving = exit_side(grid[nxt], entry)
        cell = nxt
        if cell == start and leaving == N:
            break
    for index, mask in enumerate(grid):
        if mask == 15 and ((index, N | S) in used) != ((index, E | W) in used):
            return f"the crossroads on {name_of(index)} is used on one bar only"
    return "the track makes more than one loop"
