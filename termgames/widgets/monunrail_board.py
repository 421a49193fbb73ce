"""MonUnrail's 8 x 7 board: every tile a block of character cells with its track through the middles of its sides.

A cell is drawn three lines tall: the north stub, the middle line (west arm,
centre glyph, east arm) and the south stub, so the track of neighbouring
tiles joins up across the grid.  At 80 x 24 a cell is five characters wide,
the column letters sit on the first row's top line and the last row has no
bottom line (no track may point off the board, so neither line could hold
any); roomier terminals get seven characters a cell and both lines.  Where
the screen leaves the board too few lines for five rows of three (a small
terminal, a game's end), each row is its middle line alone: the centre
glyph still says which way the track turns, and the whole board shows.

What a cell is besides its track is never told by colour alone: starting
tiles have heavy lines, tiles of the move being assembled (and of a
completion found by Impossible) double lines, and the four corners of a
cell's block carry a mark: ``[ ]`` the cursor, ``+`` a tile of your move or
of the completion, ``x`` a tile picked for removal, ``*`` the last move,
``!`` a cell of a winning move (the hint).  The side panel's legend says so.

The board only draws.  The screen hands it the view (attributes down), the
move in progress (``pending``), the tile chosen for the next placement
(``chosen``) and the hint's marks and lines.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from textual.events import Click
from textual.geometry import Region

from ..messages import CursorMoved
from ..rules.base import RuleError, possessive
from ..rules.monunrail import (
    COLUMN_LETTERS,
    COLUMNS,
    ROWS,
    TILE_MASKS,
    E,
    MonUnrailView,
    N,
    S,
    W,
    cell_name,
    parse_move,
)
from .board import BoardWidget, Canvas, Piece
from .palette import style

Cell = tuple[int, int]

#: Tile type code -> the key of its centre glyph.
CENTRE_KEYS = {"S-h": "h", "S-v": "v", "T-ne": "ne", "T-nw": "nw", "T-se": "se", "T-sw": "sw", "X": "x"}

#: Line sets: light for tiles on the board, heavy for the starting tiles, double for tiles not placed yet.
LIGHT = {"h": "─", "v": "│", "ne": "└", "nw": "┘", "se": "┌", "sw": "┐", "x": "┼"}
HEAVY = {"h": "━", "v": "┃", "ne": "┗", "nw": "┛", "se": "┏", "sw": "┓", "x": "╋"}
DOUBLE = {"h": "═", "v": "║", "ne": "╚", "nw": "╝", "se": "╔", "sw": "╗", "x": "╬"}
# Turns as slashes (a corner read along the track): a dot would look like an empty cell.
ASCII_LIGHT = {"h": "-", "v": "|", "ne": "\\", "nw": "/", "se": "/", "sw": "\\", "x": "+"}
ASCII_HEAVY = {"h": "=", "v": "#", "ne": "#", "nw": "#", "se": "#", "sw": "#", "x": "#"}
# ASCII has no double lines: the corner marks tell tiles not placed yet apart.
ASCII_DOUBLE = ASCII_LIGHT

#: Corner marks, in order of precedence (the cursor's brackets win over all).
MARK_PENDING = "+"
MARK_REMOVE = "x"
MARK_HINT = "!"
MARK_LAST = "*"

#: Kinds of tile in the order ``t`` cycles them, each with its rotations in the order ``r`` turns them (clockwise).
KINDS = (("S-h", "S-v"), ("T-ne", "T-se", "T-sw", "T-nw"), ("X",))
KIND_LETTERS = ("S", "T", "X")


def kind_of(code: str) -> int:
    """0 straight, 1 turn, 2 crossroads."""
    return next(k for k, codes in enumerate(KINDS) if code in codes)


@dataclass(frozen=True)
class Geometry:
    """How big the board is drawn."""

    #: Characters per cell (odd: the track runs through the middle one).
    cell_width: int
    #: Column letters on a line of their own above row 1 (else on row 1's empty top line), and row 7's bottom line.
    roomy: bool
    #: One line a row, the middle one: no north or south stubs, the marks at the ends of that line.
    flat: bool = False

    left: int = 3  # the row numbers

    @property
    def row_lines(self) -> int:
        return 1 if self.flat else 3

    def top(self, row: int) -> int:
        """The first line of ``row``: its north stubs (a flat board's row has only its middle line)."""
        if self.flat:
            return 1 + row
        return 3 * row + (1 if self.roomy else 0)

    def middle(self, row: int) -> int:
        """The line of ``row``'s arms and centre glyphs."""
        return self.top(row) + (0 if self.flat else 1)

    @property
    def height(self) -> int:
        if self.flat:
            return 1 + ROWS
        return self.top(ROWS - 1) + (3 if self.roomy else 2)

    @property
    def width(self) -> int:
        return self.left + COLUMNS * self.cell_width

    def x(self, column: int) -> int:
        return self.left + column * self.cell_width


COMPACT = Geometry(5, False)
ROOMY = Geometry(7, True)
FLAT = Geometry(5, False, flat=True)
#: Lines the compact board needs to keep the cursor's row and two either side in sight, with the letters.
COMPACT_LEAST = 1 + 3 * 5


def pick_geometry(width: int, height: int, narrow: bool, room: int | None = None) -> Geometry:
    """Roomy when the terminal has room for it beside (or above) the side panel, compact when the ``room``
    (lines) the screen leaves the board holds five rows of it, else flat (the whole board in 8 lines)."""
    room_width = width - (4 if narrow else 34)
    room_height = room if room is not None else height - 4 - (10 if narrow else 0)
    if room_width >= ROOMY.width and room_height >= ROOMY.height:
        return ROOMY
    if room_height >= COMPACT_LEAST:
        return COMPACT
    return FLAT


class MonUnrailBoard(BoardWidget[MonUnrailView]):
    """The board of one view, with the move being assembled drawn over it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: The move being assembled: cell -> tile type (building) or None (a tile picked for removal).
        self.pending: dict[Cell, str | None] = {}
        #: The tile type the next Space (or Enter) places.
        self.chosen = "S-v"
        #: Cells the hint marks (``!``) and its lines for the side panel: (text, role) pairs, role
        #: "bold", "plain" or "good" (a winning choice), drawn in the palette of the moment.
        self.hint_cells: frozenset[Cell] = frozenset()
        self.hint_lines: list[tuple[str, str]] = []
        #: The position the pending move belongs to (``View.position_key``).
        self._position: Hashable | None = None
        self.geometry = COMPACT

    # -- attributes down ---------------------------------------------------

    def show(self, view: MonUnrailView | None) -> None:
        position = None if view is None else view.position_key()
        if position != self._position:
            # A new position: the move in progress belonged to the last one.
            self._position = position
            self.pending = {}
            self.hint_cells = frozenset()
            self.hint_lines = []
        super().show(view)

    def set_hint(self, cells: frozenset[Cell], lines: list[tuple[str, str]]) -> None:
        self.hint_cells = cells
        self.hint_lines = lines
        self.redraw()

    def suggest(self, move: str | None) -> bool:
        """The analysis's better move marked as a hint is (``!``), and named under the legend."""
        if move is None:
            if self.hint_lines[:1] == [("Better: ", "bold")]:
                self.set_hint(frozenset(), [])
            return True
        try:
            cells = frozenset(parse_move(move).cells)
        except RuleError:
            cells = frozenset()
        self.set_hint(cells, [("Better: ", "bold"), (f"{move}\n", "good")])
        return True

    def clear_pending(self) -> None:
        self.pending = {}
        self.redraw()

    # -- cursor --------------------------------------------------------------

    def initial_cursor(self) -> int | None:
        return 2 * COLUMNS + 3  # D3, just above the starting tiles

    def cursor_valid(self, cursor: int) -> bool:
        return 0 <= cursor < COLUMNS * ROWS

    @property
    def cursor_cell(self) -> Cell:
        cursor = self.cursor if self.cursor is not None else self.initial_cursor()
        assert cursor is not None
        return (cursor % COLUMNS, cursor // COLUMNS)

    def cursor_name(self) -> str:
        return cell_name(self.cursor_cell) if self.view is not None else ""

    def move_cursor(self, direction: str) -> None:
        if self.view is None:
            return
        column, row = self.cursor_cell
        column += {"left": -1, "right": 1}.get(direction, 0)
        row += {"up": -1, "down": 1}.get(direction, 0)
        if 0 <= column < COLUMNS and 0 <= row < ROWS:
            self.cursor = row * COLUMNS + column
            self.redraw()

    def cell_at(self, x: int, y: int) -> Cell | None:
        """The cell drawn at (x, y) of the content, if any."""
        geometry = self.geometry
        column = (x - geometry.left) // geometry.cell_width if x >= geometry.left else -1
        row = (y - geometry.top(0)) // geometry.row_lines if y >= geometry.top(0) else -1
        if 0 <= column < COLUMNS and 0 <= row < ROWS:
            return (column, row)
        return None

    def on_click(self, event: Click) -> None:
        """A click on a cell moves the cursor there."""
        if self.view is None or not self.interactive or self.under_labels(event.x, event.y):
            return
        offset = event.get_content_offset(self)
        cell = None if offset is None else self.cell_at(offset.x, offset.y)
        if cell is not None:
            self.cursor = cell[1] * COLUMNS + cell[0]
            self.redraw()
            self.post_message(CursorMoved())

    def building_here(self) -> bool:
        """Whether the view shows the viewer's own building turn (when the chosen tile is drawn at the cursor)."""
        view = self.view
        return bool(
            self.interactive and view is not None and view.phase == "building" and view.is_my_turn()
        )

    def cursor_detail(self) -> str:
        view = self.view
        if view is None or not self.interactive:
            return ""
        cell = self.cursor_cell
        name = cell_name(cell)
        code = view.tile_at(cell)
        if cell in self.pending:
            what = self.pending[cell]
            return f"{name}: {what}, in your move" if what else f"{name}: {code}, picked for removal"
        if code is not None:
            start = "starting tile " if view.is_start(cell) else ""
            return f"{name}: {start}{code}"
        if self.building_here():
            fits = view.tile_options(cell, self.pending_text())
            if not fits:
                return f"{name}: empty, no tile left fits here"
            if self.chosen not in fits:
                return f"{name}: empty, {self.chosen} does not fit (t, r)"
            move = ",".join(filter(None, [self.pending_text(), f"{name}:{self.chosen}"]))
            if view.move_problem(move) is None:
                return f"{name}: empty, {self.chosen} can go here"
            return f"{name}: empty, {self.chosen} fits its neighbours"
        return f"{name}: empty"

    def cursor_region(self) -> Region | None:
        if self.view is None or not self.interactive:
            return None
        column, row = self.cursor_cell
        geometry = self.geometry
        top = geometry.top(row)
        # Compact boards have no line under row 7: the cursor's block ends with the board.
        return Region(geometry.x(column), top, geometry.cell_width, min(geometry.row_lines, geometry.height - top))

    def row_lines(self) -> int:
        return self.geometry.row_lines

    def whole_lines(self) -> int:
        return FLAT.height

    def least_lines(self) -> int:
        return FLAT.height

    # -- the move in progress ------------------------------------------------

    def pending_text(self) -> str:
        """The move being assembled in the game's notation (cells top to bottom, left to right)."""
        cells = sorted(self.pending, key=lambda c: (c[1], c[0]))
        if any(self.pending[c] for c in cells):
            return ",".join(f"{cell_name(c)}:{self.pending[c]}" for c in cells)
        return ",".join(cell_name(c) for c in cells)

    # -- legend --------------------------------------------------------------

    def lines_of(self) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        """The light, heavy and double line sets of the drawing mode."""
        if self.ascii_only:
            return ASCII_LIGHT, ASCII_HEAVY, ASCII_DOUBLE
        return LIGHT, HEAVY, DOUBLE

    def legend(self) -> list[Piece]:
        view = self.view
        if view is None:
            return []
        _light, heavy, double = self.lines_of()
        palette = self.palette
        plain = style()
        bold = style(bold=True)
        label = style(palette.label, dim=palette.label is None)
        pieces: list[Piece] = []
        if view.phase == "building":
            straights, turns, crossroads = view.supply
            pieces += [("Supply ", bold), (f"{straights} S  {turns} T  {crossroads} X", plain), ("\n", plain)]
            if self.building_here():
                code = self.chosen
                pieces += [
                    ("Tile   ", bold),
                    (double[CENTRE_KEYS[code]], style(palette.seat(view.viewer or 0), bold=True)),
                    (f" {code}", plain),
                    ("  t r change\n", label),
                ]
                move = self.pending_text()
                pieces += [("Move   ", bold), (move or "Space adds a tile", plain if move else label), ("\n", plain)]
            if view.pie_offer and view.to_move:
                chooser = view.to_move[0]
                opener = possessive(view.players[1 - chooser], addressed=True)
                # The s key only for the seat at this keyboard that may swap; another seat (a computer thinking
                # it over) is told of, not offered.
                offer = "s takes" if self.interactive and view.is_my_turn() else f"{view.players[chooser]} may take"
                pieces += [("Pie: ", style(palette.warn, bold=True)), (f"{offer} {opener} opening\n", plain)]
            elif view.swapped and view.opener is not None:
                opening = possessive(view.players[view.opener], addressed=True)
                pieces += [("Swapped: ", bold), (f"opening is {opening}\n", plain)]
        elif view.phase == "unrailing":
            left = len(view.unrail_cells())
            pieces += [("Tiles left ", bold), (f"{left}\n", plain)]
            if self.interactive and view.is_my_turn():
                move = self.pending_text()
                pieces += [("Remove ", bold), (move or "Space picks tiles", plain if move else label),
                           ("\n", plain)]
        else:
            outcome = view.impossible
            if outcome is not None:
                if outcome.completion:
                    count = len(outcome.completion)
                    tiles = "1 tile" if count == 1 else f"{count} tiles"
                    pieces += [(f"Completion found: {tiles}, ", bold), ("drawn ", plain),
                               (double["h"] * 2, style(palette.warn, bold=True)), (" and marked ", plain),
                               (MARK_PENDING, style(palette.warn, bold=True)), ("\n", plain)]
                elif outcome.completion is not None:
                    pieces += [("The track was already complete\n", bold)]
                else:
                    pieces += [("No completion exists\n", bold)]
        roles = {"bold": bold, "plain": plain, "good": style(palette.warn, bold=True)}
        pieces += [(text, roles[role]) for text, role in self.hint_lines]
        pieces += self.marks_legend(heavy)
        return pieces

    def marks_legend(self, heavy: dict[str, str]) -> list[Piece]:
        palette = self.palette
        plain = style()
        warn = style(palette.warn, bold=True)
        pieces: list[Piece] = []
        if self.view is not None and any(self.view.tile_at(cell) for cell in self.view.start_cells):
            pieces += [(heavy["v"], style(bold=True)), (" start ", plain)]
        if self.view is not None and self.view.last_cells:
            pieces += [(MARK_LAST, warn), (" last ", plain)]
        if self.pending:
            mark = MARK_REMOVE if self.view is not None and self.view.phase == "unrailing" else MARK_PENDING
            pieces += [(mark, warn), (" move ", plain)]
        if self.hint_cells:
            pieces += [(MARK_HINT, warn), (" win", plain)]
        return pieces

    # -- drawing -----------------------------------------------------------

    def pick_geometry(self) -> Geometry:
        if not self.is_attached:
            return COMPACT
        width, height = self.app.size
        return pick_geometry(width, height, self.screen.has_class("narrow"), self.room_lines)

    def build_lines(self) -> list[list[Piece]]:
        view = self.view
        assert view is not None
        palette = self.palette
        geometry = self.geometry = self.pick_geometry()
        wide, half = geometry.cell_width, geometry.cell_width // 2
        light, heavy, double = self.lines_of()
        canvas = Canvas(geometry.width, geometry.height)
        put = canvas.put

        label = style(palette.label, dim=palette.label is None)
        for column, letter in enumerate(COLUMN_LETTERS):
            put(0, geometry.x(column) + half, letter, label)
        for row in range(ROWS):
            put(geometry.middle(row), 0, f"{row + 1:>2}", label)
        # Kept in sight when the board scrolls: the column letters, the row numbers.
        self.label_lines, self.label_columns = 1, 3

        interactive = self.interactive
        cursor = self.cursor_cell if interactive else None
        last = set(view.last_cells)
        removing = view.phase == "unrailing"
        completion: dict[Cell, str] = {}
        if view.impossible is not None and view.impossible.completion:
            completion = dict(view.impossible.completion)
        mover = view.to_move[0] if view.to_move else (view.winner or 0)
        warn = palette.warn
        self._cursor_box = None

        for row in range(ROWS):
            top, middle = geometry.top(row), geometry.middle(row)
            # Compact: row 1's top line is the line of column letters, which no mark or cursor covers.
            letters_line = not geometry.roomy and row == 0
            marked_lines: tuple[int, ...]
            if geometry.flat:
                lines, marked_lines = [middle], (middle,)
            elif letters_line:
                lines, marked_lines = [top + 1, top + 2], (top + 2,)
            else:
                lines, marked_lines = [top, top + 1, top + 2], (top, top + 2)
            for column in range(COLUMNS):
                cell = (column, row)
                x = geometry.x(column)
                code = view.tile_at(cell)
                lines_set, colour, bold, dim = light, None, False, False
                if code is not None and view.is_start(cell):
                    lines_set, bold = heavy, True
                if cell in self.pending and not removing:
                    code, lines_set, colour, bold = self.pending[cell], double, palette.seat(mover), True
                elif cell in completion:
                    code, lines_set, colour, bold = completion[cell], double, warn, True
                elif code is None and cell == cursor and self.building_here():
                    # The tile Space would place, drawn faintly where it would go.
                    code, lines_set, colour, dim = self.chosen, double, palette.seat(mover), True
                if cell in self.pending and removing:
                    colour, bold = warn, True
                # The block's background: the cursor, else the last move.
                background = None
                if cell == cursor:
                    background = palette.cursor_bg
                elif cell in last:
                    background = palette.highlight_bg
                reverse = cell == cursor and palette.cursor_bg is None
                block = style(None, background, reverse=reverse)
                for line in lines:
                    put(line, x, " " * wide, block)
                if cell in last and background is None and not reverse:
                    bold = True  # monochrome: the last move stands out by weight (and its * marks)
                look = style(colour, background, bold=bold, dim=dim, reverse=reverse)
                if code is None:
                    empty = "." if self.ascii_only else "·"
                    put(middle, x + half, empty, style(palette.empty, background, dim=palette.empty is None,
                                                         reverse=reverse))
                else:
                    mask = TILE_MASKS[code]
                    centre = lines_set[CENTRE_KEYS[code]]
                    arm = lines_set["h"] * half
                    put(middle, x, arm if mask & W else " " * half, look if mask & W else block)
                    put(middle, x + half, centre, look)
                    put(middle, x + half + 1, arm if mask & E else " " * half, look if mask & E else block)
                    if mask & N and (row or geometry.roomy) and not geometry.flat:
                        put(top, x + half, lines_set["v"], look)
                    if mask & S and not geometry.flat:
                        put(top + 2, x + half, lines_set["v"], look)
                # Corner marks: never colour alone.
                marks: tuple[str, str] | None = None
                mark_look = style(warn, background, bold=True, reverse=reverse)
                if cell == cursor:
                    marks = ("[", "]")
                    self._cursor_box = (middle, x, wide)
                elif cell in self.pending:
                    marks = (MARK_REMOVE, MARK_REMOVE) if removing else (MARK_PENDING, MARK_PENDING)
                elif cell in completion:
                    marks = (MARK_PENDING, MARK_PENDING)
                elif cell in self.hint_cells:
                    marks = (MARK_HINT, MARK_HINT)
                elif cell in last:
                    marks = (MARK_LAST, MARK_LAST)
                if marks is not None:
                    for line in marked_lines:
                        put(line, x, marks[0], mark_look)
                        put(line, x + wide - 1, marks[1], mark_look)

        return canvas.lines(trim="blank")
