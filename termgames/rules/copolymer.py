"""Copolymer (Mark Steere, 2006), as pbmserv plays it.

Two players claim cells of a honeycomb with an odd number of cells.  A claim
that touches two or more enemy cells obliges the same player to claim again;
once every cell is claimed the majority wins.  :data:`RULES` (``termgames rules
copolymer``) gives the rules and the rulings a player would notice.

Cells are named by row letter (A, B, ... without I) and diagonal number, as in
the rules' Figure 1: ``F6`` is the centre of the standard board.  A move is
one cell name; a forced extra claim is simply the same seat's next move.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from .base import CompoundFlag, Game, OptionSpec, Preset, RuleError, State, View, Viewer
from .options import CHOICE, INT

ROW_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # pbmserv skips I
MAX_ROWS = len(ROW_LETTERS)


# --------------------------------------------------------------------------
# Geometry
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Board:
    """The cells of one board shape and who touches whom.

    Neighbours of (row r, diagonal d), per the rulings: (r, d-1), (r, d+1),
    (r-1, d-1), (r-1, d), (r+1, d), (r+1, d+1).  For drawing, a cell sits in
    half-cell column ``2*d - r`` (shifted so the leftmost is 0).
    """

    shape: str
    size: int
    names: tuple[str, ...]
    coords: tuple[tuple[int, int], ...]  # (row, diagonal) per cell
    neighbours: tuple[tuple[int, ...], ...]
    #: (row letter, first diagonal, last diagonal) per row, top first.
    rows: tuple[tuple[str, int, int], ...]
    index: dict[str, int] = field(compare=False)

    @property
    def cell_count(self) -> int:
        return len(self.names)

    def column(self, cell: int) -> int:
        """Half-cell column for drawing: neighbours on a row are 2 apart."""
        r, d = self.coords[cell]
        return 2 * d - r - self.min_column

    @property
    def min_column(self) -> int:
        return min(2 * d - r for r, d in self.coords)

    @property
    def width(self) -> int:
        return max(2 * d - r for r, d in self.coords) - self.min_column + 1

    def cell_at(self, row: int, diagonal: int) -> int | None:
        if not 0 <= row < len(self.rows):
            return None
        return self.index.get(f"{ROW_LETTERS[row]}{diagonal}")


@lru_cache(maxsize=32)
def board_for(shape: str, size: int) -> Board:
    rows: list[tuple[str, int, int]] = []
    for r in range(size):
        if shape == "hexagon":
            side = (size + 1) // 2
            first, last = (1, side + r) if r < side else (r - side + 2, size)
        else:  # rhombus
            first, last = 1, size
        rows.append((ROW_LETTERS[r], first, last))
    names: list[str] = []
    coords: list[tuple[int, int]] = []
    for r, (letter, first, last) in enumerate(rows):
        for d in range(first, last + 1):
            names.append(f"{letter}{d}")
            coords.append((r, d))
    index = {name: i for i, name in enumerate(names)}
    position = {rd: i for i, rd in enumerate(coords)}
    neighbours = []
    for r, d in coords:
        around = [(r, d - 1), (r, d + 1), (r - 1, d - 1), (r - 1, d), (r + 1, d), (r + 1, d + 1)]
        neighbours.append(tuple(position[rd] for rd in around if rd in position))
    return Board(shape, size, tuple(names), tuple(coords), tuple(neighbours), tuple(rows), index)


# --------------------------------------------------------------------------
# View
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class CopolymerView(View):
    board: Board | None = None
    #: Owner seat per cell index, None where empty.
    owners: tuple[int | None, ...] = ()
    #: True when the player to move must claim again (the last claim touched 2+ enemy cells).
    must_continue: bool = False
    #: Empty cells that would oblige the player to move to claim again.
    obliging: frozenset[int] = frozenset()
    #: The cells claimed by the last move of each player's turn so far (for highlighting).
    last_claims: tuple[int, ...] = ()

    def legal_cells(self) -> frozenset[int]:
        if self.over:
            return frozenset()
        return frozenset(i for i, owner in enumerate(self.owners) if owner is None)

    def board_json(self) -> dict[str, str | None]:
        assert self.board is not None
        return {
            name: (self.players[owner] if owner is not None else None)
            for name, owner in zip(self.board.names, self.owners)
        }

    def board_text(self, ascii: bool = False) -> str:
        """The honeycomb as in the rules' figures: x for the first seat, o for the second (ASCII either way).

        Every cell can be named from the drawing, as the screen names it: its row's letter at the left, its
        diagonal's number up and to the right of the diagonal's top cell.  Cells are two characters apart, or
        four where the numbers over the top row have two digits (one character between them is none).
        """
        assert self.board is not None
        board = self.board
        marks = "xo"
        left = 2  # the row letter and a space
        for step in (1, 2):
            lines = [[" "] * (left + step * board.width + 3) for _ in range(len(board.rows) + 1)]
            for cell, (r, _d) in enumerate(board.coords):
                owner = self.owners[cell]
                lines[r + 1][left + step * board.column(cell)] = "." if owner is None else marks[owner]
            if self._number_diagonals(lines, left, step):
                break
        for r, (letter, _first, _last) in enumerate(board.rows):
            lines[r + 1][0] = letter
        drawing = ["".join(line).rstrip() for line in lines]
        legend = f"x = {self.players[0]}, o = {self.players[1]}"
        return "\n".join([*drawing, "", legend, self.status])

    def _number_diagonals(self, lines: list[list[str]], left: int, step: int) -> bool:
        """Write each diagonal's number up and to the right of its top cell; False if two would touch."""
        assert self.board is not None
        board = self.board
        tops: dict[int, int] = {}
        for cell, (r, d) in enumerate(board.coords):
            if d not in tops or board.coords[tops[d]][0] > r:
                tops[d] = cell
        for d, cell in sorted(tops.items()):
            line = lines[board.coords[cell][0]]  # the line above the top cell's (the first is the numbers')
            x = left + step * (board.column(cell) + 1)
            text = str(d)
            if x + len(text) > len(line):
                line.extend([" "] * (x + len(text) - len(line)))
            if any(char != " " for char in line[x - 1 : x + len(text) + 1]):
                return False
            line[x : x + len(text)] = list(text)
        return True


# --------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class CopolymerState(State):
    owners: tuple[int | None, ...] = ()
    turn: int = 0
    must_continue: bool = False
    #: The claims of the turn in progress, or of the last turn once it ended.
    turn_claims: tuple[int, ...] = ()
    last_action: str = ""

    @property
    def board(self) -> Board:
        return board_for(self.options["shape"], self.options["size"])

    # -- queries -----------------------------------------------------------

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over() else (self.turn,)

    def random_move(self, seat: int, rng: random.Random) -> str:
        return self.board.names[rng.choice([i for i, owner in enumerate(self.owners) if owner is None])]

    def is_over(self) -> bool:
        return None not in self.owners

    def scores(self) -> tuple[float, ...]:
        return tuple(float(sum(1 for o in self.owners if o == seat)) for seat in range(2))

    def enemy_contacts(self, cell: int, seat: int) -> int:
        owners = self.owners
        return sum(1 for n in self.board.neighbours[cell] if owners[n] is not None and owners[n] != seat)

    def obliging_cells(self, seat: int) -> frozenset[int]:
        return frozenset(
            i for i, owner in enumerate(self.owners) if owner is None and self.enemy_contacts(i, seat) >= 2
        )

    def parse_cell(self, move: str) -> int:
        text = move.strip().upper()
        cell = self.board.index.get(text)
        if cell is None:
            raise RuleError(f"{move.strip()!r} is not a cell of this board (cells are named like F6)")
        return cell

    def normalise_move(self, seat: int, move: str) -> str:
        return move.strip().upper()

    # -- moves -------------------------------------------------------------

    def _apply(self, seat: int, move: str) -> CopolymerState:
        cell = self.parse_cell(move)
        name = self.board.names[cell]
        owner = self.owners[cell]
        if owner is not None:
            raise RuleError(f"{name} is already taken by {self.seats[owner]}")
        contacts = self.enemy_contacts(cell, seat)
        owners = list(self.owners)
        owners[cell] = seat
        full = None not in owners
        again = contacts >= 2 and not full
        claims = (self.turn_claims if self.must_continue else ()) + (cell,)
        who = self.seats[seat]
        if full:
            action = f"{who} claimed {name}; the board is full"
        elif again:
            action = f"{who} claimed {name}, touching {contacts} enemy cells, and must claim again"
        else:
            action = f"{who} claimed {name}"
        return replace(
            self,
            ply=self.ply + 1,
            owners=tuple(owners),
            turn=seat if again else 1 - seat,
            must_continue=again,
            turn_claims=claims,
            last_action=action,
        )

    # -- view --------------------------------------------------------------

    def view(self, viewer: Viewer) -> CopolymerView:
        over = self.is_over()
        scores = self.scores()
        if over:
            winner = self.winners()[0]
            status = (
                f"Game over: {self.seats[winner]} wins "
                f"{int(scores[winner])} to {int(scores[1 - winner])}"
            )
        elif self.must_continue:
            status = f"{self.seats[self.turn]} must claim again"
        else:
            status = f"{self.seats[self.turn]} to claim"
        return CopolymerView(
            game="copolymer",
            viewer=viewer,
            players=self.seats,
            to_move=self.to_move(),
            over=over,
            scores=scores,
            winners=self.winners(),
            status=status,
            last_action=self.last_action,
            board=self.board,
            owners=self.owners,
            must_continue=self.must_continue,
            obliging=frozenset() if over else self.obliging_cells(self.turn),
            last_claims=self.turn_claims,
        )


# --------------------------------------------------------------------------
# Game
# --------------------------------------------------------------------------


RULES = """\
# Copolymer

*Mark Steere, 2006. Two players.*

Players take turns claiming empty cells of a honeycomb. Passing is not
allowed.

* A claim is **one cell**. If the cell you claim touches **two or more enemy
  cells**, you must claim again while it is still your turn.
* Your turn ends with a claim that touches at most one enemy cell.
* You are never forced to touch enemy cells unless every empty cell does.
* When every cell is claimed, the player with **more cells wins**. The board
  always has an odd number of cells, so there are no ties.

## Board and notation

Rows are lettered from the top, A, B, C, ... (there is no I); within a row,
cells are numbered along the diagonals, as in the rules' Figure 1. A move is a
cell name such as `F6` (upper or lower case). A forced extra claim is simply
your next move.

The standard board is Figure 1 completed: a hexagon of side 6 (11 rows, 91
cells, rows A-L). Options:

| option | board |
|---|---|
| `--small` | hexagon of 9 rows (61 cells) |
| `--medium` | hexagon of 13 rows (127 cells) |
| `--large` | hexagon of 19 rows (271 cells) |
| `--size N` | hexagon of N rows (N odd, 3-25) |
| `--rhombus N` | N by N rhombus, Hex style (N odd, 3-25) |

## Rulings you may notice

* The first seat claims first. Its cells are the filled discs on the screen (X
  with `--ascii`, x in `termgames show`); the second seat's the open ones (O, o).
* If the board fills during an obligation, the game ends at once.
* Neighbours of a cell: the two beside it in its row, two in the row above and
  two in the row below.
* Even cell counts are refused: they would allow a tie.
"""

class Copolymer(Game):
    name = "copolymer"
    option_specs = (
        OptionSpec("shape", CHOICE, "hexagon", "board shape", choices=("hexagon", "rhombus")),
        OptionSpec("size", INT, 11, "rows of the board (odd)", minimum=3, maximum=MAX_ROWS),
    )
    presets = (
        Preset("--small", {"size": 9}, "hexagon of 9 rows"),
        Preset("--medium", {"size": 13}, "hexagon of 13 rows"),
        Preset("--large", {"size": 19}, "hexagon of 19 rows"),
    )
    # pbmserv's NxN board: shape and size in one flag.
    compound_flags = (
        CompoundFlag(
            "--rhombus", "N", "an N by N rhombus (N odd)", fills=("size",), fixed={"shape": "rhombus"}, example="9"
        ),
    )

    def describe_options(self, options: dict[str, Any]) -> str:
        shape = options.get("shape", "hexagon")
        size = options.get("size", 11)
        cells = board_for(shape, size).cell_count if size % 2 else size * size
        if shape == "rhombus":
            return f"{size}x{size} rhombus, {cells} cells"
        return f"hexagon of {size} rows, {cells} cells"

    def _check_option_combination(self, options: dict[str, Any]) -> None:
        size = options["size"]
        if options["shape"] == "hexagon" and size % 2 == 0:
            raise RuleError(f"a hexagonal board has an odd number of rows, not {size}")
        if options["shape"] == "rhombus" and size % 2 == 0:
            raise RuleError(f"a {size}x{size} rhombus has {size * size} cells, an even count that would allow a tie")

    def _new(self, options: dict[str, Any], seats: tuple[str, ...], seed: int) -> CopolymerState:
        board = board_for(options["shape"], options["size"])
        return CopolymerState(seats=seats, seed=seed, options=options, owners=(None,) * board.cell_count)

    def rules_text(self) -> str:
        return RULES

