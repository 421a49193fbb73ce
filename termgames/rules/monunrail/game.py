"""MonUnrail (ISamEI, ORG Genius Invitational), with the MonUnrail rulings.

Two players build one railway circuit together on an 8 x 7 board from a
shared supply of tiles, then take it apart.  :data:`RULES` (``termgames rules
monunrail``) gives the rules and the rulings a player would notice.

Board
    Columns A-H, rows 1-7, ``A1`` top left.  A cell is ``(column, row)``,
    0-based, exactly as :mod:`termgames.rules.monunrail.solver` takes it:
    ``A1`` is ``(0, 0)``, ``D4`` is ``(3, 3)``.  The two starting tiles are
    vertical straights at ``D4`` and ``E4`` (:data:`START_CELLS`).

Tiles (type codes, case-insensitive on input, canonical as written here)
    ``S-h`` straight west-east, ``S-v`` straight north-south,
    ``T-ne`` ``T-nw`` ``T-se`` ``T-sw`` turns joining the two sides named,
    ``X`` crossroads (both straights at once, crossing).  Every tile joins the
    middles of its sides; a side with no track is blank.

Moves (the notation; ``termgames move`` takes the same text)
    * building: ``C3:T-ne,D3:S-h`` -- 1 to 3 ``CELL:TYPE`` placements, comma
      separated (spaces, ``+`` and ``;`` also separate);
    * ``impossible`` -- claim that the track cannot be completed (building);
    * ``swap`` -- the pie rule: the second player, on their first turn, takes
      over the opening move and the first player moves again;
    * unrailing: ``D3,E3`` -- 1 to 3 cells to clear (``D3+E3`` works too).
    Input is case-insensitive; turn sides may come in either order (``T-en``)
    and the hyphen may be left out (``tne``, ``sh``).  The canonical text
    (what records, logs and ``show --json`` hold) lists cells top to bottom,
    left to right: ``C3:T-ne,D3:S-h``, ``D3,E3``, ``swap``, ``impossible``.

Placement rules (each refused with its own one-line message)
    1 to 3 tiles, on empty cells of the board, forming a contiguous line in
    one row or column, at least one orthogonally next to a tile already on
    the board; the supply must hold them; touching sides agree (track meets
    track, blank meets blank), including the sides between the new tiles;
    no track points off the board.  When the placement completes the track
    (every tile on one closed circuit through both starting tiles, every
    crossroads passed on both bars) the turn ends and unrailing begins: the
    other player removes first.

What a screen gets: :class:`MonUnrailView` (perfect information, every seat
sees everything):
    ``grid`` (tile mask per cell, row-major, 0 = empty; :meth:`tile_at`,
    :meth:`tiles`), ``start_cells``, ``supply`` / ``initial_supply``
    (straights, turns, crossroads: one supply shared by both players),
    ``phase`` (``"building"``, ``"unrailing"``, ``"over"``), ``to_move``,
    ``pie_offer`` (the player to move may ``swap``), ``swapped``,
    ``opener`` (whose opening move it is after the pie decision),
    ``last_cells`` and ``last_move``, ``circuit`` (the loop's cells in order
    once complete), ``impossible`` (:class:`ImpossibleOutcome`: caller,
    completion found or None, winner), ``winner``, ``ended_by``.
    Pure helpers that never change the game: :meth:`MonUnrailView.move_problem`,
    :meth:`placement_problem`, :meth:`removal_problem` (None when the text is
    legal, else the message), :meth:`preview` (the grid after a move),
    :meth:`completes`, :meth:`tile_options` (which types fit a cell),
    :meth:`open_ends`, :meth:`unrail_cells` (solver cells for the nimber hint),
    :meth:`unrail_hint` (the nimber and the winning removals, as move texts),
    :meth:`finishing_moves` and :meth:`finishing_nimbers` (moves that complete
    the track now, with the value of the removal position they leave),
    :meth:`completions` (all ways to complete the track, when few remain).

The completion search that decides Impossible (ruling 5), and the
enumeration of placements, live in :mod:`termgames.rules.monunrail.completion`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..base import CompoundFlag, Game, OptionSpec, RuleError, State, View, Viewer, possessive, seeded_rng

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

#: Box-drawing and ASCII pictures of each tile, three characters wide.
TILE_GLYPHS = {
    "S-h": "───", "S-v": " │ ", "T-ne": " └─", "T-nw": "─┘ ",
    "T-se": " ┌─", "T-sw": "─┐ ", "X": "─┼─",
}  # fmt: skip
TILE_GLYPHS_ASCII = {
    "S-h": "---", "S-v": " | ", "T-ne": " '-", "T-nw": "-' ",
    "T-se": " .-", "T-sw": "-. ", "X": "-+-",
}  # fmt: skip
START_GLYPHS = {"S-v": " ┃ ", "S-h": "━━━"}

START_CELLS: tuple[Cell, ...] = ((3, 3), (4, 3))
START_TILES = {(3, 3): "S-v", (4, 3): "S-v"}
DEFAULT_SUPPLY = (8, 8, 8)


def index_of(cell: Cell) -> int:
    return cell[1] * COLUMNS + cell[0]


def cell_of(index: int) -> Cell:
    return (index % COLUMNS, index // COLUMNS)


def cell_name(cell: Cell) -> str:
    return f"{COLUMN_LETTERS[cell[0]]}{cell[1] + 1}"


def name_of(index: int) -> str:
    return cell_name(cell_of(index))


def parse_cell(text: str) -> Cell:
    """``"d4"`` -> ``(3, 3)``; RuleError for anything off the board."""
    word = text.strip().upper()
    match = re.fullmatch(r"([A-Z])([0-9]{1,2})", word)
    if match and word.isascii():  # upper() turns some letters into ASCII ones (dotless i into I)
        column = ord(match.group(1)) - ord("A")
        row = int(match.group(2)) - 1
        if 0 <= column < COLUMNS and 0 <= row < ROWS:
            return (column, row)
    raise RuleError(f"{text.strip()!r} is not a cell of the board (columns A-H, rows 1-7, e.g. D3)")


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


def tile_code(text: str) -> str:
    """Parse a tile type (``S-h``, ``sv``, ``T-EN``, ``x``) into its canonical code."""
    word = re.sub(r"[\s_-]", "", text.lower())
    if word in ("x", "+"):
        return "X"
    if word in ("sh", "sew", "swe"):
        return "S-h"
    if word in ("sv", "sns", "ssn"):
        return "S-v"
    if len(word) == 3 and word[0] == "t":
        sides = set(word[1:])
        if sides <= set("nesw") and len(sides) == 2:
            if sides in ({"n", "s"}, {"e", "w"}):
                raise RuleError(f"a turn joins two neighbouring sides (ne, nw, se, sw), not {word[1:]}")
            key = "T-" + ("n" if "n" in sides else "s") + ("e" if "e" in sides else "w")
            return key
    raise RuleError(
        f"{text.strip()!r} is not a tile type (S-h, S-v, T-ne, T-nw, T-se, T-sw or X)"
    )


# --------------------------------------------------------------------------
# Parsed moves
# --------------------------------------------------------------------------

SWAP = "swap"
IMPOSSIBLE = "impossible"
_SEPARATORS = re.compile(r"[,;+\s]+")


@dataclass(frozen=True)
class ParsedMove:
    """A move read from text: ``kind`` is ``"place"``, ``"remove"``, ``"swap"`` or ``"impossible"``."""

    kind: str
    #: For "place": (index, mask) pairs; for "remove": (index, 0) pairs; sorted by index.
    items: tuple[tuple[int, int], ...] = ()

    @property
    def indexes(self) -> tuple[int, ...]:
        return tuple(index for index, _ in self.items)

    @property
    def cells(self) -> tuple[Cell, ...]:
        return tuple(cell_of(index) for index, _ in self.items)

    def text(self) -> str:
        if self.kind in (SWAP, IMPOSSIBLE):
            return self.kind
        if self.kind == "place":
            return ",".join(f"{name_of(i)}:{MASK_TYPES[m]}" for i, m in self.items)
        return ",".join(name_of(i) for i, _ in self.items)


def parse_move(text: str) -> ParsedMove:
    """Read any MonUnrail move (without checking it against a position)."""
    word = text.strip()
    if word.lower() in (SWAP, IMPOSSIBLE):
        return ParsedMove(word.lower())
    parts = [part for part in _SEPARATORS.split(word) if part]
    if not parts:
        raise RuleError("the move is empty")
    with_type = [":" in part for part in parts]
    if any(with_type) and not all(with_type):
        bare = parts[with_type.index(False)]
        raise RuleError(f"say which tile goes on {bare.upper()}, e.g. {bare.upper()}:S-h")
    items = []
    seen = set()
    for part in parts:
        if ":" in part:
            where, _, what = part.partition(":")
            index = index_of(parse_cell(where))
            mask = TILE_MASKS[tile_code(what)]
        else:
            index, mask = index_of(parse_cell(part)), 0
        if index in seen:
            raise RuleError(f"{name_of(index)} is named twice")
        seen.add(index)
        items.append((index, mask))
    kind = "place" if with_type[0] else "remove"
    return ParsedMove(kind, tuple(sorted(items)))


def _line_problem(indexes: Sequence[int]) -> str | None:
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
    line = _line_problem(indexes)
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


def placement_text(items: Iterable[tuple[int, int]]) -> str:
    """A placement's canonical text from (cell index, tile mask) pairs: ``C3:T-ne,D3:S-h``."""
    return ParsedMove("place", tuple(sorted(items))).text()


# --------------------------------------------------------------------------
# View
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ImpossibleOutcome:
    """How an Impossible call ended the game."""

    #: The seat that called Impossible.
    caller: int
    #: Tiles that complete the track ((cell, type code) pairs), or None: no completion exists.
    completion: tuple[tuple[Cell, str], ...] | None
    #: The seat that won: the caller when no completion exists, else the opponent.
    winner: int


@dataclass(frozen=True)
class MonUnrailView(View):
    #: Tile mask per cell, row-major (index = row * 8 + column), 0 where empty.
    grid: tuple[int, ...] = ()
    start_cells: tuple[Cell, ...] = START_CELLS
    #: Tiles left in the shared supply: (straights, turns, crossroads).
    supply: tuple[int, int, int] = (0, 0, 0)
    initial_supply: tuple[int, int, int] = (0, 0, 0)
    #: "building", "unrailing" or "over".
    phase: str = "building"
    #: The player to move may answer the opening move with ``swap`` (the pie rule).
    pie_offer: bool = False
    #: The second player took the opening move by the pie rule.
    swapped: bool = False
    #: The seat whose opening move it is: the first seat, or the second after a swap (None before any move).
    opener: int | None = None
    #: The cells the last move placed or removed (its canonical text in ``last_move``).
    last_cells: tuple[Cell, ...] = ()
    last_move: str = ""
    #: The complete circuit in order from D4 (crossroads twice), once the track is complete.
    circuit: tuple[Cell, ...] = ()
    impossible: ImpossibleOutcome | None = None
    winner: int | None = None
    #: How the game ended: "" while it runs, "impossible" or "unrailed".
    ended_by: str = ""

    # -- cells ---------------------------------------------------------------

    def tile_at(self, cell: Cell) -> str | None:
        """The tile type code on ``cell`` (``"S-v"``, ``"X"``, ...), or None when empty."""
        mask = self.grid[index_of(cell)]
        return MASK_TYPES[mask] if mask else None

    def tiles(self) -> dict[Cell, str]:
        return {cell_of(i): MASK_TYPES[m] for i, m in enumerate(self.grid) if m}

    def is_start(self, cell: Cell) -> bool:
        return cell in self.start_cells

    def unrail_cells(self) -> frozenset[Cell]:
        """The tiles left, as solver cells (the position of the removal phase)."""
        return frozenset(cell_of(i) for i, m in enumerate(self.grid) if m)

    def open_ends(self) -> list[tuple[Cell, str]]:
        """Track ends pointing into empty cells: (cell, side name)."""
        return [(cell_of(i), SIDE_NAMES[s]) for i, s in open_end_list(self.grid)]

    def supply_left(self) -> dict[str, int]:
        return dict(zip(KIND_PLURALS, self.supply))

    def tile_options(self, cell: Cell, move_text: str = "") -> list[str]:
        """Tile types that could go on empty ``cell`` as its neighbours stand (plus the tiles of a tentative
        placement ``move_text``, if given) and the supply allows.  Empty list if the cell is taken."""
        grid = list(self.grid)
        stock = list(self.supply)
        if move_text.strip():
            try:
                parsed = parse_move(move_text)
            except RuleError:
                parsed = ParsedMove("place")
            for index, mask in parsed.items if parsed.kind == "place" else ():
                if not grid[index] and index != index_of(cell):
                    grid[index] = mask
                    stock[KIND_OF_MASK[mask]] -= 1
        index = index_of(cell)
        if grid[index]:
            return []
        required, forbidden = side_rules(grid, index)
        return [MASK_TYPES[m] for m in OPTIONS[required][forbidden] if stock[KIND_OF_MASK[m]] > 0]

    # -- checking tentative moves -----------------------------------------

    def move_problem(self, move_text: str) -> str | None:
        """Why ``move_text`` would be refused for the player to move now, or None if it is legal."""
        if self.over:
            return "the game is over"
        try:
            parsed = parse_move(move_text)
        except RuleError as error:
            return str(error)
        return _move_problem(self.phase, self.grid, self.supply, self.pie_offer, parsed)

    def placement_problem(self, move_text: str) -> str | None:
        """Like :meth:`move_problem`, for a placement; never applies anything."""
        return self.move_problem(move_text)

    def removal_problem(self, move_text: str) -> str | None:
        """Like :meth:`move_problem`, for a removal; never applies anything."""
        return self.move_problem(move_text)

    def preview(self, move_text: str) -> tuple[int, ...]:
        """The grid after a legal placement or removal (RuleError if it is not legal)."""
        problem = self.move_problem(move_text)
        if problem:
            raise RuleError(problem)
        parsed = parse_move(move_text)
        grid = list(self.grid)
        for index, mask in parsed.items:
            grid[index] = mask
        return tuple(grid)

    def completes(self, move_text: str) -> bool:
        """Whether a legal placement would complete the track (False for anything else)."""
        if self.phase != "building" or self.move_problem(move_text):
            return False
        parsed = parse_move(move_text)
        return parsed.kind == "place" and trace_circuit(self.preview(move_text)) is not None

    # -- hints ---------------------------------------------------------------

    def finishing_moves(self) -> list[str]:
        """Placements that complete the track now (only a few can exist: at most 3 tiles in a line)."""
        if self.phase != "building":
            return []
        # The search module imports this one at its top: it is imported here, when first needed.
        from .completion import finishing_placements

        return [placement_text(items) for items in finishing_placements(self.grid, self.supply)]

    def finishing_nimbers(self, solver: Any = None) -> list[tuple[str, int]]:
        """Each finishing placement with the nimber of the removal position it leaves.

        The other player removes first after a completion, so a finishing
        move worth 0 wins for the player who makes it.  ``solver`` is a
        :class:`~termgames.rules.monunrail.solver.Solver` (a new one if None).
        """
        if solver is None:
            from .solver import Solver

            solver = Solver()
        from .completion import finishing_placements

        result = []
        for items in finishing_placements(self.grid, self.supply) if self.phase == "building" else []:
            cells = set(self.unrail_cells()) | {cell_of(i) for i, _ in items}
            result.append((placement_text(items), solver.nimber(cells)))
        return result

    def unrail_hint(self, solver: Any = None) -> tuple[int, list[str]]:
        """The nimber of the removal position and the removals that leave 0 (none when it is 0).

        Whole tracks can take seconds in the pure Python solver: run it off
        the UI thread.  ``solver`` as for :meth:`finishing_nimbers`.
        """
        if solver is None:
            from .solver import Solver

            solver = Solver()
        cells = self.unrail_cells()
        if not cells:
            return 0, []
        winning = solver.winning_moves(cells)
        return solver.nimber(cells), [
            ",".join(cell_name(c) for c in sorted(move, key=lambda c: (c[1], c[0]))) for move in winning
        ]

    def completions(self, limit: int = 20, node_limit: int = 20_000) -> list[str] | None:
        """Every way to complete the track from here (placement texts of any length), or None when there
        are more than ``limit`` or the search would take longer than ``node_limit`` nodes."""
        if self.phase != "building":
            return []
        from .completion import SearchLimit, list_completions

        try:
            found = list_completions(self.grid, self.supply, limit, node_limit)
        except SearchLimit:
            return None
        return None if found is None else [placement_text(items) for items in found]

    # -- output --------------------------------------------------------------

    def board_json(self) -> dict[str, Any]:
        outcome = None
        if self.impossible is not None:
            completion = self.impossible.completion
            outcome = {
                "caller": self.players[self.impossible.caller],
                "completion": None
                if completion is None
                else {cell_name(cell): code for cell, code in completion},
                "winner": self.players[self.impossible.winner],
            }
        return {
            "columns": COLUMNS,
            "rows": ROWS,
            "tiles": {
                cell_name(cell): code for cell, code in sorted(self.tiles().items(), key=lambda x: (x[0][1], x[0][0]))
            },
            "start": [cell_name(cell) for cell in self.start_cells],
            "supply": self.supply_left(),
            "phase": self.phase,
            "pie_offer": self.pie_offer,
            "swapped": self.swapped,
            "opener": None if self.opener is None else self.players[self.opener],
            "last_move": self.last_move,
            "last_cells": [cell_name(cell) for cell in self.last_cells],
            "complete": bool(self.circuit),
            "impossible": outcome,
            "winner": None if self.winner is None else self.players[self.winner],
        }

    def board_text(self, ascii: bool = False) -> str:
        """The board, three characters a cell; box-drawing lines, or plain ASCII with ``ascii=True``."""
        glyphs = TILE_GLYPHS_ASCII if ascii else TILE_GLYPHS
        empty = " . " if ascii else " · "
        lines = [("   " + "".join(f" {letter} " for letter in COLUMN_LETTERS)).rstrip()]
        for row in range(ROWS):
            parts = []
            for col in range(COLUMNS):
                mask = self.grid[row * COLUMNS + col]
                if not mask:
                    parts.append(empty)
                    continue
                code = MASK_TYPES[mask]
                if not ascii and (col, row) in self.start_cells and code in START_GLYPHS:
                    parts.append(START_GLYPHS[code])
                else:
                    parts.append(glyphs[code])
            lines.append(f"{row + 1:>2} " + "".join(parts).rstrip())
        straights, turns, crossroads = self.supply
        lines.append("")
        lines.append(f"Supply: {straights} straights, {turns} turns, {crossroads} crossroads")
        starts = " and ".join(cell_name(c) for c in self.start_cells)
        lines.append(f"Starting tiles: {starts}" + ("" if ascii else " (heavy lines)"))
        if self.impossible is not None and self.impossible.completion:
            completion = ",".join(f"{cell_name(c)}:{code}" for c, code in self.impossible.completion)
            lines.append(f"Completion found: {completion}")
        lines.append(self.status)
        return "\n".join(lines)


def _move_problem(
    phase: str, grid: Sequence[int], supply: Sequence[int], pie_offer: bool, parsed: ParsedMove
) -> str | None:
    if phase == "over":
        return "the game is over"
    if parsed.kind == SWAP:
        if phase == "building" and pie_offer:
            return None
        return "swap is only allowed as the answer to the opening move (the pie rule)"
    if parsed.kind == IMPOSSIBLE:
        if phase == "building":
            return None
        return "Impossible can only be called while the track is being built"
    if parsed.kind == "place":
        if phase != "building":
            return "the track is complete: remove 1 to 3 tiles in a line, e.g. D3,E3 (no tile types)"
        return placement_problem(grid, supply, parsed.items)
    # removal
    if phase != "unrailing":
        first = name_of(parsed.items[0][0])
        return f"the track is still being built: place tiles, e.g. {first}:S-h, or call impossible"
    if not 1 <= len(parsed.items) <= 3:
        return f"remove 1 to 3 tiles, not {len(parsed.items)}"
    for index, _ in parsed.items:
        if not grid[index]:
            return f"{name_of(index)} holds no tile"
    return _line_problem(parsed.indexes)


# --------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class MonUnrailState(State):
    grid: tuple[int, ...] = ()
    supply: tuple[int, int, int] = (0, 0, 0)
    initial_supply: tuple[int, int, int] = (0, 0, 0)
    phase: str = "building"
    turn: int = 0
    pie_offer: bool = False
    swapped: bool = False
    opener: int | None = None
    last_cells: tuple[int, ...] = ()
    last_move: str = ""
    last_action: str = ""
    circuit: tuple[int, ...] = ()
    impossible: ImpossibleOutcome | None = None
    winner: int | None = None
    ended_by: str = ""

    # -- queries -----------------------------------------------------------

    def to_move(self) -> tuple[int, ...]:
        return () if self.phase == "over" else (self.turn,)

    def is_over(self) -> bool:
        return self.phase == "over"

    def scores(self) -> tuple[float, ...]:
        if self.winner is None:
            return (0.0, 0.0)
        return tuple(1.0 if seat == self.winner else 0.0 for seat in range(2))

    def setup_drawn(self) -> str | None:
        """A random supply as its counts, ``S,T,C``."""
        return ",".join(map(str, self.initial_supply)) if self.options.get("random_supply") else None

    def random_move(self, seat: int, rng: random.Random) -> str:
        from .completion import SearchLimit, find_completion, random_placement, steps_towards

        if self.phase == "building":
            if self.pie_offer and rng.random() < 0.25:
                return SWAP
            # Random tiles alone seldom close a circuit: mostly follow a completion, tiles of one line at a time.
            if rng.random() < 0.8:
                try:
                    completion = find_completion(self.grid, self.supply, node_limit=2_000)
                except SearchLimit:
                    completion = None
                if completion:
                    steps = steps_towards(self.grid, self.supply, completion)
                    if steps:
                        return placement_text(rng.choice(steps))
            placement = random_placement(self.grid, self.supply, rng)
            return IMPOSSIBLE if placement is None else placement_text(placement)
        lines: list[tuple[int, ...]] = []
        for index, mask in enumerate(self.grid):
            if not mask:
                continue
            column, row = cell_of(index)
            for step_column, step_row in ((1, 0), (0, 1)):
                line: list[int] = []
                for k in range(3):
                    cell = (column + step_column * k, row + step_row * k)
                    if not (cell[0] < COLUMNS and cell[1] < ROWS and self.grid[index_of(cell)]):
                        break
                    line.append(index_of(cell))
                    lines.append(tuple(line))
        return ParsedMove("remove", tuple((index, 0) for index in rng.choice(lines))).text()

    def normalise_move(self, seat: int, move: str) -> str:
        try:
            return parse_move(move).text()
        except RuleError:
            return move.strip()

    # -- moves -------------------------------------------------------------

    def _apply(self, seat: int, move: str) -> MonUnrailState:
        parsed = parse_move(move)
        problem = _move_problem(self.phase, self.grid, self.supply, self.pie_offer, parsed)
        if problem:
            raise RuleError(problem)
        who = self.seats[seat]
        other = 1 - seat
        text = parsed.text()
        base = replace(self, ply=self.ply + 1, pie_offer=False, last_move=text)
        if parsed.kind == SWAP:
            return replace(
                base,
                turn=other,
                swapped=True,
                opener=seat,
                last_cells=(),
                last_action=(
                    f"{who} swapped: the opening move is now {possessive(who)} and {self.seats[other]} moves again"
                ),
            )
        if parsed.kind == IMPOSSIBLE:
            from .completion import find_completion

            found = find_completion(self.grid, self.supply)
            if found is None:
                winner = seat
                action = f"{who} called Impossible: no completion exists, {who} wins"
                completion = None
            else:
                winner = other
                completion = tuple((cell_of(i), MASK_TYPES[m]) for i, m in found)
                action = (
                    f"{who} called Impossible, but {placement_text(found)} completes the track: "
                    f"{self.seats[other]} wins"
                )
            return replace(
                base,
                phase="over",
                winner=winner,
                ended_by="impossible",
                impossible=ImpossibleOutcome(seat, completion, winner),
                last_cells=(),
                last_action=action,
            )
        if parsed.kind == "place":
            grid = list(self.grid)
            supply = list(self.supply)
            for index, mask in parsed.items:
                grid[index] = mask
                supply[KIND_OF_MASK[mask]] -= 1
            circuit = trace_circuit(grid)
            first_move = self.opener is None
            if circuit is not None:
                action = f"{who} placed {text} and completed the track: {self.seats[other]} removes first"
            else:
                action = f"{who} placed {text}"
            return replace(
                base,
                grid=tuple(grid),
                supply=(supply[0], supply[1], supply[2]),
                turn=other,
                phase="unrailing" if circuit is not None else "building",
                pie_offer=first_move and circuit is None,
                opener=seat if first_move else self.opener,
                circuit=circuit or (),
                last_cells=parsed.indexes,
                last_action=action,
            )
        # removal
        grid = list(self.grid)
        for index, _ in parsed.items:
            grid[index] = 0
        if not any(grid):
            return replace(
                base,
                grid=tuple(grid),
                phase="over",
                winner=seat,
                ended_by="unrailed",
                last_cells=parsed.indexes,
                last_action=f"{who} removed {text}, the last of the track: {who} wins",
            )
        return replace(
            base,
            grid=tuple(grid),
            turn=other,
            last_cells=parsed.indexes,
            last_action=f"{who} removed {text}",
        )

    # -- view --------------------------------------------------------------

    def status_text(self) -> str:
        name = self.seats[self.turn]
        if self.phase == "over":
            winner = self.seats[self.winner] if self.winner is not None else "nobody"
            if self.ended_by == "impossible" and self.impossible is not None:
                caller = self.seats[self.impossible.caller]
                if self.impossible.completion is None:
                    return f"Game over: {winner} wins (called Impossible and no completion exists)"
                return f"Game over: {winner} wins ({caller} called Impossible but the track can be completed)"
            return f"Game over: {winner} wins (removed the last tile)"
        if self.phase == "unrailing":
            left = sum(1 for m in self.grid if m)
            return f"{name} to remove 1 to 3 tiles in a line ({left} left)"
        if self.pie_offer:
            opener = possessive(self.seats[1 - self.turn])
            return f"{name} to place tiles, call impossible, or swap (take {opener} opening move)"
        return f"{name} to place 1 to 3 tiles or call impossible"

    def view(self, viewer: Viewer) -> MonUnrailView:
        return MonUnrailView(
            game="monunrail",
            viewer=viewer,
            players=self.seats,
            to_move=self.to_move(),
            over=self.is_over(),
            scores=self.scores(),
            winners=self.winners(),
            status=self.status_text(),
            last_action=self.last_action,
            grid=self.grid,
            supply=self.supply,
            initial_supply=self.initial_supply,
            phase=self.phase,
            pie_offer=self.pie_offer,
            swapped=self.swapped,
            opener=self.opener,
            last_cells=tuple(cell_of(i) for i in self.last_cells),
            last_move=self.last_move,
            circuit=tuple(cell_of(i) for i in self.circuit),
            impossible=self.impossible,
            winner=self.winner,
            ended_by=self.ended_by,
        )


# --------------------------------------------------------------------------
# Game
# --------------------------------------------------------------------------


RULES = """\
# MonUnrail

*ISamEI, for the ORG Genius Invitational. Two players.*

The players first **build** one railway circuit together, then **unrail**
it. Whoever removes the last tile wins.

## Building the track

The board has columns A-H and rows 1-7 (A1 top left). Two vertical straights
stand at D4 and E4 from the start. One supply of tiles, visible to both
players, is shared: straights, turns and crossroads, in any rotation.

On your turn either **place** tiles or call **Impossible**.

* Place **1 to 3 tiles** on empty cells in a **line** (one row or column,
  side by side), at least one of them next to a tile already on the board.
* Touching sides must agree: track meets track and blank meets blank, the new
  tiles among themselves too. No track may point off the board.
  Pieces of track may stay unconnected until the circuit is complete.
* The track is **complete** when every tile on the board lies on one closed
  circuit through both starting tiles, every crossroads passed on both of
  its bars (going straight across). Completing it ends your turn, and the
  unrailing begins with your opponent.
* **Impossible**: if you believe the track can no longer be completed, call
  it. An exhaustive search then decides whether your opponent could complete
  it with the remaining supply (any number of tiles). If not, you win; if
  so, your opponent wins, and the completion found is shown.

**Pie rule**: after the first move of the game, the second player may
`swap`: the opening move becomes theirs and the first player moves again.

## Unrailing

Take turns removing **1 to 3 tiles** that are side by side in one row or
column of the board (tile types and track no longer matter; the starting
tiles go too). Whoever removes the **last tile wins**. Impossible can no
longer be called.

## Notation

| move | example |
|---|---|
| place tiles | `C3:T-ne,D3:S-h` (1 to 3 `CELL:TYPE`, comma separated) |
| remove tiles | `D3,E3` (or `D3+E3`) |
| claim the track cannot be completed | `impossible` |
| take the opening move (pie rule) | `swap` |

Tile types: `S-h` straight west-east, `S-v` straight north-south, `T-ne`,
`T-nw`, `T-se`, `T-sw` turns joining the two sides named (north, east, south,
west), `X` crossroads. Upper or lower case; turn sides in either order
(`T-en`); the hyphen may be left out (`tne`). Moves are recorded in the
canonical form: cells top to bottom, left to right.

## Rulings you may notice

* Default supply: 8 straights, 8 turns and 8 crossroads (not counting the
  starting tiles). `--supply S,T,C` sets the counts (every circuit needs at
  least four turns); `--random-supply` draws counts from the game's seed:
  4-12 straights, 4-12 turns, 1-6 crossroads, at least 16 tiles in all. The
  remaining supply is always shown.
* Tiles of different types may be placed in one move.
* The supply is shared: either player may place any tile left.
* Impossible ends the game either way; the search places any number of
  tiles and ignores whose turn it would be.
* A swap keeps the seats' names: the first player simply moves again, and
  the game says whose opening move it now is.
"""

#: The fewest turns that can close a track: a circuit has four corners and only turns make them.
MIN_TURNS = 4


def draw_random_supply(seed: int) -> tuple[int, int, int]:
    """Counts drawn from the seed (ruling 2): 4-12 straights, 4-12 turns, 1-6 crossroads, at least 16 in all."""
    rng = seeded_rng(seed, "monunrail-supply")
    while True:
        counts = (rng.randint(4, 12), rng.randint(4, 12), rng.randint(1, 6))
        if sum(counts) >= 16:
            return counts


class MonUnrail(Game):
    name = "monunrail"
    option_specs = (
        OptionSpec("straights", "int", DEFAULT_SUPPLY[0], "straights in the supply", minimum=0, maximum=99),
        # Fewer than MIN_TURNS can never close a track: the first player would win at once by Impossible.
        OptionSpec(
            "turns", "int", DEFAULT_SUPPLY[1], "turns in the supply (a track needs 4)", minimum=MIN_TURNS, maximum=99
        ),
        OptionSpec("crossroads", "int", DEFAULT_SUPPLY[2], "crossroads in the supply", minimum=0, maximum=99),
        OptionSpec(
            "random_supply", "flag", False, "draw the supply counts from the seed",
            overrides=("straights", "turns", "crossroads"),
        ),
    )
    # ``--supply S,T,C`` sets the three counts in one flag (ruling 2).
    compound_flags = (
        CompoundFlag(
            "--supply", "S,T,C", "straights, turns and crossroads in the supply",
            fills=("straights", "turns", "crossroads"), example="8,8,8",
        ),
    )

    def describe_options(self, options: dict[str, Any]) -> str:
        if options.get("random_supply"):
            return "random supply"
        counts = tuple(options.get(k, d) for k, d in zip(("straights", "turns", "crossroads"), DEFAULT_SUPPLY))
        return "supply {} straights, {} turns, {} crossroads".format(*counts)

    def _new(self, options: dict[str, Any], seats: tuple[str, ...], seed: int) -> MonUnrailState:
        if options["random_supply"]:
            supply = draw_random_supply(seed)
        else:
            supply = (options["straights"], options["turns"], options["crossroads"])
        return MonUnrailState(
            seats=seats, seed=seed, options=options, grid=start_grid(), supply=supply, initial_supply=supply
        )

    def rules_text(self) -> str:
        return RULES

