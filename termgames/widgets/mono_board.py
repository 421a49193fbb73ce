"""Mono's boards: one Line-API widget per board, the viewer's own first, side by side when they fit.

``MonoBoards`` is what the game and replay screens talk to: it answers like a
BoardWidget (show, redraw, cursor, legend) and holds what spans the boards:
the cursor, a (board, cell) pair; the layout draft while the viewer lays out;
the deduction overlay's beliefs; a replay's better move (``suggest``), its
positions between brackets on the mover's opponents' boards.  It hands each ``MonoBoard`` a ``Look`` and
the view, and the board draws one seat's grid from them.  Only what the view
holds is drawn, so a hidden cell can never show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.style import Style
from textual.app import ComposeResult
from textual.events import Click
from textual.geometry import Region, Spacing

from ..messages import CursorMoved
from ..rules.base import ALL, possessive
from ..rules.mono import END, HOLD, RANDOM, Grid, MonoView, Probe, column_name, label, region_problem
from .board import Board, BoardWidget, Canvas, Piece
from .palette import style

#: Values cycle through these colours; the digit always tells the value.
VALUE_COLOURS = ("#d75f5f", "#ff8700", "#d7af00", "#87af00", "#00af87", "#00afd7", "#5f87ff", "#af5fff", "#ff5fd7")
VALUE_COLOURS_CB = ("#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#999999", "#ffffff")

MAX_BOARDS = 4
#: The side panel's width beside the boards (app.tcss ``#side-panel``); narrow screens put it below.
PANEL_WIDTH = 30
#: Each board's padding, left and right (``BoardWidget``'s CSS).
BOARD_PADDING = 2
#: Marks after a value (never colour alone): uncovered by a random probe; an overlay guess; a draft problem.
RANDOM_MARK, GUESS_MARK, PROBLEM_MARK = "*", "?", "!"
#: Overlay guesses at least this likely are drawn bold ("sure"); below ``UNSURE`` dim.
SURE, UNSURE = 0.95, 0.5

Belief = tuple[int, float] | None
#: One hidden cell's candidate values with their chances, likeliest first; None where the value shows.
Candidates = tuple[tuple[int, float], ...] | None


@dataclass(frozen=True)
class Look:
    """How one board is drawn, beyond what its view says."""

    #: Two characters a cell and no row numbers on the right, to fit two boards beside the panel at 80 columns.
    compact: bool = False
    #: The cell under the cursor when the cursor is on this board.
    cursor: int | None = None
    #: The layout being edited (None per empty cell): the viewer's own board while laying out.
    draft: tuple[int | None, ...] | None = None
    #: Draft cells of a region that breaks the rules, marked ``!``.
    problems: frozenset[int] = frozenset()
    #: The deduction overlay: per cell (most likely value, its probability), None where the value shows.
    beliefs: tuple[Belief, ...] | None = None
    #: Cells of the turn on show (open, else the last), highlighted.
    recent: frozenset[int] = frozenset()
    #: The positions of the analysis's better move (a replay): between brackets, the mark underlined.
    suggested: frozenset[int] = frozenset()


def board_width(grid: Grid, compact: bool) -> int:
    """Characters one board takes (without its padding)."""
    numbers = len(str(grid.height))
    if compact:
        return numbers + 1 + 2 * grid.width
    return numbers + 2 + 3 * grid.width + 1 + numbers


def board_height(grid: Grid) -> int:
    """Lines one board takes: caption, column letters, rows, column letters."""
    return grid.height + 3


def arrangement(grid: Grid, boards: int, room: int) -> tuple[int, bool]:
    """(boards per row, compact) for ``room`` columns: as few rows as fit, roomy spacing where it fits.

    Compact spacing needs one-letter column names (26 columns at most).
    """
    spacings = (False, True) if grid.width <= 26 else (False,)
    counts = [boards] + ([2] if boards > 2 else []) + [1]
    for per_row in counts:
        for compact in spacings:
            if per_row * (board_width(grid, compact) + BOARD_PADDING) <= room:
                return per_row, compact
    return 1, grid.width <= 26


class MonoBoard(BoardWidget[MonoView], can_focus=False):  # the group of boards takes focus
    """One seat's board: the caption, column letters above and below, rows numbered from the bottom."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seat: int | None = None
        self.look = Look()
        self._drawn: tuple[Any, ...] | None = None

    def paint(self, view: MonoView | None, seat: int | None, look: Look) -> None:
        """Draw ``seat``'s board of ``view``; nothing to do when nothing it shows has changed.

        A move changes one or two boards of a table's view, and a server redraws every
        screen at the table: the others' boards are compared, not built again.
        """
        shown = None if view is None or seat is None else board_inputs(view, seat)
        drawn = (shown, seat, look, self.palette_name, self.ascii_only, self.interactive)
        if self._drawn is not None and all(a is b or a == b for a, b in zip(drawn, self._drawn)):
            self.view = view  # the same board, from the newest view (a click reads it)
            return
        self._drawn = drawn
        self.view, self.seat, self.look = view, seat, look
        self.redraw()

    def show(self, view: MonoView | None) -> None:
        self.view = view
        self.redraw()

    def build_lines(self) -> list[list[Piece]]:
        if self.seat is None or self.view is None or self.view.grid is None:
            self._cursor_box = None
            return []
        return board_lines(self, self.view, self.seat, self.look)

    def on_click(self, event: Click) -> None:
        """A click on a cell moves the cursor there (the group decides whether it may)."""
        if self.seat is None or self.view is None or self.view.grid is None or not self.interactive:
            return
        if self.under_labels(event.x, event.y):
            return  # the labels kept in sight over a scrolled board: no cell's
        cell = cell_at(self.view.grid, self.look.compact, event.x - self.content_offset.x, event.y)
        if cell is not None and isinstance(self.parent, MonoBoards):
            self.parent.click(self.seat, cell)


def cell_at(grid: Grid, compact: bool, x: int, y: int) -> int | None:
    """The cell drawn at (x, y) in a board's content, if any."""
    row = y - 2
    left = len(str(grid.height)) + (1 if compact else 3)
    step = 2 if compact else 3
    column = (x - left + (0 if compact else 1)) // step
    if not (0 <= row < grid.height and 0 <= column < grid.width) or x < left - (0 if compact else 1):
        return None
    return row * grid.width + column


def value_style(board: Board[Any], value: int, bold: bool = False, dim: bool = False,
                background: str | None = None, italic: bool = False, underline: bool = False) -> Style:
    colour = None
    if board.palette_name != "mono":
        colours = VALUE_COLOURS_CB if board.palette_name == "colourblind" else VALUE_COLOURS
        colour = colours[(value - 1) % len(colours)]
    look = style(colour, background, bold=bold, dim=dim, underline=underline)
    return look + Style(italic=True) if italic else look


def board_inputs(view: MonoView, seat: int) -> tuple[object, ...]:
    """All that ``board_lines`` reads from ``view`` to draw ``seat``'s board (keep the two in step)."""
    full = seat == view.viewer or view.viewer == ALL
    several = len(view.players) > 2
    return (
        view.grid, view.viewer, len(view.players), view.players[seat], view.scores[seat], view.laid_out[seat],
        view.boards[seat], view.uncovered[seat], view.random_uncovered[seat],
        view.probed if several and not full else None,
    )


def board_lines(board: MonoBoard, view: MonoView, seat: int, look: Look) -> list[list[Piece]]:
    """One board as lines of pieces, and where its cursor is (``board._cursor_box``)."""
    grid = view.grid
    assert grid is not None
    palette, glyphs = board.palette, board.glyphs
    label_style = style(palette.label, dim=palette.label is None)
    numbers = len(str(grid.height))
    step = 2 if look.compact else 3
    left = numbers + (1 if look.compact else 3)  # x of the first cell's value
    width = board_width(grid, look.compact)
    lines_count = board_height(grid)
    canvas = Canvas(width, lines_count)
    put = canvas.put

    own = seat == view.viewer
    full = own or view.viewer == ALL  # every value of this board is in the view
    active = look.cursor is not None and board.interactive
    values: Sequence[int | None] | None
    values = look.draft if own and look.draft is not None else view.boards[seat] or None
    uncovered = view.uncovered[seat]
    random_cells = view.random_uncovered[seat]
    several = len(view.players) > 2

    # The caption, as under the rules' diagram: "fred = 0", and how much of the board is still hidden.
    # What gives way when the board is narrow: "(you)" first (your board is always the first), then the tail.
    name, score = view.players[seat], f" = {int(view.scores[seat])}"
    tail = "laying out" if not view.laid_out[seat] else f"{grid.cells - len(uncovered)} hidden"
    if own and len(name) + 6 + len(score) + 1 + len(tail) <= width:
        name += " (you)"
    if len(name) + len(score) + 1 + len(tail) > width:
        tail = ""
    if len(name) + len(score) > width:
        name = name[: max(1, width - len(score) - 1)] + ("~" if board.ascii_only else "…")
    put(0, 0, name + score, style(palette.seat(seat), bold=True, underline=active))
    put(0, width - len(tail), tail, label_style)

    for line in (1, lines_count - 1):
        for c in range(grid.width):
            put(line, left + c * step, column_name(c), label_style)

    hidden_style = style(palette.empty, dim=palette.empty is None)
    board._cursor_box = None
    # Kept in sight when the boards scroll: the caption and column letters, the row numbers, the letters below.
    board.label_lines, board.label_columns, board.label_lines_below = 2, numbers + 1, 1
    for r in range(grid.height):
        line = r + 2
        number = str(grid.height - r)
        put(line, 0, number.rjust(numbers), label_style)
        if not look.compact:
            put(line, width - len(number), number, label_style)
        for c in range(grid.width):
            cell = r * grid.width + c
            x = left + c * step
            value = values[cell] if values else None
            background = palette.highlight_bg if cell in look.recent else None
            suffix, suffix_style = " ", label_style
            if own and look.draft is not None:
                if value is None:
                    mark, mark_style = "_", hidden_style
                else:
                    mark, mark_style = label(value), value_style(board, value, bold=True)
                if cell in look.problems:
                    suffix, suffix_style = PROBLEM_MARK, style(palette.warn, bold=True)
            elif value is None:
                belief = look.beliefs[cell] if look.beliefs is not None and cell < len(look.beliefs) else None
                if belief is not None:
                    guess, chance = belief
                    mark = label(guess)
                    mark_style = value_style(board, guess, bold=chance >= SURE, dim=chance < UNSURE, italic=True)
                    suffix, suffix_style = GUESS_MARK, style(palette.label, dim=chance < UNSURE)
                else:
                    mark, mark_style = glyphs.empty, hidden_style
            else:
                mark = label(value)
                if full:
                    # Bright where opponents have uncovered it, dim where it is still hidden from them.
                    shown = cell in uncovered
                    mark_style = value_style(board, value, bold=shown, dim=not shown, background=background)
                else:
                    # With several opponents a value may be uncovered by someone else: still probeable.
                    probeable = several and cell not in view.probed and view.viewer is not None and view.viewer >= 0
                    mark_style = value_style(board, value, bold=True, background=background, underline=probeable)
                if cell in random_cells:
                    suffix = RANDOM_MARK
            if active and cell == look.cursor and look.compact:
                # The slot to the left holds the mark of the cell before, the one to the right this cell's own:
                # a probe's mark (*) is never covered, an overlay's guess (?) gives way to the brackets.  The
                # cursor's own guess is not drawn (in brackets it would look uncovered): the line under the
                # boards gives it.
                if suffix == GUESS_MARK:
                    mark, mark_style, suffix = glyphs.empty, hidden_style, " "
                colour = mark_style.color.name if mark_style.color else None
                cursor_style = style(colour, palette.cursor_bg, bold=True, reverse=palette.cursor_bg is None,
                                     underline=True)
                bracket = style(palette.warn, bold=True)
                if canvas.char_at(line, x - 1) in (" ", GUESS_MARK):
                    put(line, x - 1, glyphs.cursor_left, bracket)
                put(line, x, mark, cursor_style)
                put(line, x + 1, glyphs.cursor_right if suffix == " " else suffix,
                    bracket if suffix == " " else suffix_style)
                board._cursor_box = (line, x - 1, 3)
                continue
            if active and cell == look.cursor:
                if suffix == GUESS_MARK:
                    # A guess in brackets would look uncovered: the line under the boards gives it instead.
                    mark, mark_style = glyphs.empty, hidden_style
                bracket = style(palette.warn, bold=True)
                colour = mark_style.color.name if mark_style.color else None
                mark_style = style(colour, palette.cursor_bg, bold=True, reverse=palette.cursor_bg is None)
                put(line, x - 1, glyphs.cursor_left, bracket)
                put(line, x, mark, mark_style)
                put(line, x + 1, glyphs.cursor_right, bracket)
                board._cursor_box = (line, x - 1, 3)
                continue
            if cell in look.suggested:
                # Brackets where the slots either side are free (never over a probe's mark), and the mark underlined:
                # only where the position is, never what the view does not show of it.
                bracket = style(palette.warn, bold=True)
                if canvas.char_at(line, x - 1) == " ":
                    put(line, x - 1, glyphs.cursor_left, bracket)
                if suffix == " ":
                    suffix, suffix_style = glyphs.cursor_right, bracket
                mark_style = mark_style + Style(underline=True, bold=True)
            put(line, x, mark, mark_style)
            put(line, x + 1, suffix, suffix_style)

    # Every line as wide as the board: ``arrangement`` fits boards by their full width.
    return canvas.lines(trim="none")


class MonoBoards(Board[MonoView]):
    """Every board of a Mono game, arranged to fit; the screens' board."""

    DEFAULT_CSS = """
    MonoBoards { layout: grid; grid-size: 2; grid-columns: auto; grid-rows: auto; grid-gutter: 1 0;
                 width: auto; height: auto; }
    """

    def __init__(self, *, ascii_only: bool = False, palette: str = "default", interactive: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(ascii_only=ascii_only, palette=palette, interactive=interactive, **kwargs)
        #: The cursor (``self.cursor``) is a cell of the board of ``board_seat``.
        self.board_seat: int | None = None
        #: The layout being edited (None per empty cell), while the viewer lays out.
        self.draft: list[int | None] | None = None
        #: Whose draft it is: a draft never outlives its seat's turn at the keyboard.
        self.draft_owner: int | None = None
        self.problems: frozenset[int] = frozenset()
        #: The overlay: (board seat, the likeliest value per cell), or None when it is off.
        self.beliefs: tuple[int, tuple[Belief, ...]] | None = None
        #: The overlay's every candidate per cell of that board (the panel lists the cursor cell's).
        self.candidates: tuple[Candidates, ...] = ()
        self.per_row, self.compact = 2, False
        #: The analysis's better move (a replay): its text, and its positions on the boards of all but its mover.
        self.suggested: str | None = None
        self.suggested_cells: frozenset[int] = frozenset()
        self.suggestion_mover: int | None = None

    def compose(self) -> ComposeResult:
        for slot in range(MAX_BOARDS):
            yield MonoBoard(ascii_only=self.ascii_only, palette=self.palette_name, interactive=self.interactive,
                            id=f"mono-board-{slot}")

    @property
    def slots(self) -> list[MonoBoard]:
        return list(self.query(MonoBoard))

    # -- which board -----------------------------------------------------------

    def opponents(self) -> list[int]:
        assert self.view is not None
        return [seat for seat in range(len(self.view.players)) if seat != self.view.viewer]

    def board_order(self) -> list[int]:
        """The viewer's board first, then the others in seat order."""
        assert self.view is not None
        viewer = self.view.viewer
        seats = list(range(len(self.view.players)))
        if viewer is not None and 0 <= viewer < len(seats):
            seats.remove(viewer)
            seats.insert(0, viewer)
        return seats

    def laying_out(self) -> bool:
        return self.draft is not None

    def show(self, view: MonoView | None) -> None:
        if view is not None and view.viewer != (self.view.viewer if self.view is not None else None):
            self.beliefs, self.candidates = None, ()  # another seat's overlay is not this one's
        self.view = view
        if view is None:
            # Hidden behind the privacy screen: forget the draft and the overlay too.
            self.draft = None
            self.draft_owner = None
            self.beliefs, self.candidates = None, ()
        else:
            assert view.grid is not None
            laying_out = (
                self.interactive and view.phase == "layout" and view.viewer is not None and view.viewer in view.to_move
            )
            if laying_out:
                if self.draft is None or self.draft_owner != view.viewer:
                    self.draft = [None] * view.grid.cells
                    self.draft_owner = view.viewer
                    self.cursor = 0
                self.board_seat = view.viewer
            else:
                if self.draft is not None:
                    self.cursor = view.grid.cells // 2  # from the layout's last cell to the middle of a board
                self.draft = None
                self.draft_owner = None
                others = self.opponents()
                if self.board_seat not in others:
                    self.board_seat = others[0] if others else 0
            if self.cursor is None or self.cursor >= view.grid.cells:
                self.cursor = view.grid.cells // 2
        self.redraw()

    def next_board(self, step: int = 1) -> None:
        if self.view is None or self.draft is not None:
            return
        others = self.opponents()
        if self.board_seat in others:
            self.board_seat = others[(others.index(self.board_seat) + step) % len(others)]
        self.redraw()

    def suggest(self, move: str | None) -> bool:
        """Mark the positions of the analysis's better move (``c3,hold``, ``a3,f2,end``) on the boards of its mover's
        opponents, or take them off with None.  Only positions: what the cells hold shows as the view has it.
        False when the move names no position (``end``, ``random``) or is not a probe of this grid."""
        view = self.view
        cells: frozenset[int] = frozenset()
        mover = view.moves[-1][0] if view is not None and view.moves else None
        if move is not None and view is not None and view.grid is not None and mover is not None:
            parts = [part.strip() for part in move.strip().lower().split(",")]
            names = parts[:-1] if parts[-1] in (RANDOM, END, HOLD) else parts
            if all(name in view.grid.index for name in names):
                cells = frozenset(view.grid.index[name] for name in names)
        shown = move if cells else None
        if (shown, cells, mover) != (self.suggested, self.suggested_cells, self.suggestion_mover):
            self.suggested, self.suggested_cells, self.suggestion_mover = shown, cells, mover
            self.redraw()
        return move is None or bool(cells)

    def click(self, seat: int, cell: int) -> None:
        """The cursor goes where the player clicked, on a board it may be on."""
        if self.view is None:
            return
        if self.draft is not None and seat != self.view.viewer:
            return
        if self.draft is None and seat not in self.opponents():
            return
        self.board_seat, self.cursor = seat, cell
        self.redraw()
        self.post_message(CursorMoved())

    def cursor_name(self) -> str:
        if self.view is None or self.cursor is None or self.view.grid is None:
            return ""
        return self.view.grid.names[self.cursor]

    def move_cursor(self, direction: str) -> None:
        if self.view is None or self.cursor is None or self.view.grid is None:
            return
        grid = self.view.grid
        row, column = divmod(self.cursor, grid.width)
        row += {"up": -1, "down": 1}.get(direction, 0)
        column += {"left": -1, "right": 1}.get(direction, 0)
        if 0 <= row < grid.height and 0 <= column < grid.width:
            self.cursor = row * grid.width + column
            self.redraw()
            return
        # Off the edge: onto the neighbouring board as they are arranged, if the cursor may go there.
        order = self.board_order()
        if self.draft is not None or self.board_seat not in order:
            return
        index = order.index(self.board_seat)
        step = {"left": -1, "right": 1, "up": -self.per_row, "down": self.per_row}[direction]
        target = index + step
        same_row = direction in ("up", "down") or target // self.per_row == index // self.per_row
        if not (0 <= target < len(order)) or not same_row or order[target] not in self.opponents():
            return
        self.board_seat = order[target]
        self.cursor = (row % grid.height) * grid.width + column % grid.width
        self.redraw()

    # -- the layout draft ----------------------------------------------------

    def set_draft_value(self, value: int | None, advance: bool = True) -> None:
        if self.draft is None or self.cursor is None:
            return
        self.draft[self.cursor] = value
        if advance and self.cursor + 1 < len(self.draft):
            self.cursor += 1
        self.redraw()

    def move_on(self) -> None:
        """The cursor to the next cell in reading order, as typing a value does."""
        if self.draft is not None and self.cursor is not None and self.cursor + 1 < len(self.draft):
            self.cursor += 1
            self.redraw()

    def erase_draft_value(self, back: bool) -> None:
        """Delete clears the cell; Backspace clears it too, or steps back and clears the one before, as in text."""
        if self.draft is None or self.cursor is None:
            return
        if back and self.draft[self.cursor] is None and self.cursor > 0:
            self.cursor -= 1
        self.set_draft_value(None, advance=False)

    def step_draft_value(self, delta: int) -> None:
        if self.draft is None or self.cursor is None or self.view is None or self.view.grid is None:
            return
        regions = self.view.grid.regions
        current = self.draft[self.cursor] or (0 if delta > 0 else regions + 1)
        self.set_draft_value((current - 1 + delta) % regions + 1, advance=False)

    def draft_text(self) -> str | None:
        if self.draft is None or None in self.draft:
            return None
        return "".join(label(v) for v in self.draft if v is not None)  # none is None: checked above

    # -- the overlay -----------------------------------------------------------

    def set_beliefs(self, beliefs: tuple[int, Sequence[Candidates]] | None) -> None:
        """The overlay of one board: each cell's candidates; the board draws the likeliest, the panel all."""
        if beliefs is None:
            self.beliefs, self.candidates = None, ()
        else:
            self.candidates = tuple(beliefs[1])
            self.beliefs = (beliefs[0], tuple(cell[0] if cell else None for cell in self.candidates))
        self.redraw()

    def candidates_at_cursor(self) -> Candidates:
        if not self.has_cursor():
            return None  # a replay has no cursor: its board shows each cell's likeliest value only
        if self.beliefs is None or self.cursor is None or self.beliefs[0] != self.board_seat:
            return None
        return self.candidates[self.cursor] if self.cursor < len(self.candidates) else None

    def belief_at_cursor(self) -> Belief:
        if self.beliefs is None or self.cursor is None or self.beliefs[0] != self.board_seat:
            return None
        cells = self.beliefs[1]
        return cells[self.cursor] if self.cursor < len(cells) else None

    # -- drawing ---------------------------------------------------------------

    def room(self) -> int:
        """Columns the boards may take: the terminal's, less the side panel beside them."""
        if not self.is_attached:
            return 80 - PANEL_WIDTH
        width = self.app.size.width
        narrow = self.screen.has_class("narrow")
        return width - (0 if narrow else PANEL_WIDTH) - 2

    def set_palette(self, name: str) -> None:
        self.palette_name = name
        for slot in self.slots:
            slot.palette_name = name
        self.redraw()

    def recent_cells(self) -> tuple[int | None, frozenset[int]]:
        """Who played the turn on show (the open one, else the last) and the positions it probed."""
        view = self.view
        assert view is not None
        record = view.open_turn or (view.turns[-1] if view.turns else None)
        if record is None:
            return None, frozenset()
        return record.seat, frozenset(probe.cell for probe in record.probes)

    def redraw(self) -> None:
        slots = self.slots
        view = self.view
        if view is None or view.grid is None:
            for slot in slots:
                slot.paint(None, None, Look())
            return
        order = self.board_order()
        arranged = (self.per_row, self.compact)
        self.per_row, self.compact = arrangement(view.grid, len(order), self.room())
        if self.styles.grid_size_columns != self.per_row:
            self.styles.grid_size_columns = self.per_row
        if self.draft is not None:
            self.problems = check_draft(self.draft, view.grid).cells
        prober, recent = self.recent_cells()
        for index, slot in enumerate(slots):
            seat = order[index] if index < len(order) else None
            slot.display = seat is not None
            if seat is None:
                slot.paint(None, None, Look())
                continue
            own = seat == view.viewer
            beliefs = self.beliefs[1] if self.beliefs is not None and self.beliefs[0] == seat else None
            look = Look(
                compact=self.compact,
                cursor=self.cursor if seat == self.board_seat and self.has_cursor() else None,
                draft=tuple(self.draft) if own and self.draft is not None else None,
                problems=self.problems if own else frozenset(),
                beliefs=beliefs,
                recent=recent if seat != prober else frozenset(),
                suggested=self.suggested_cells if seat != self.suggestion_mover else frozenset(),
            )
            slot.paint(view, seat, look)
        if (self.per_row, self.compact) != arranged:
            self.refresh(layout=True)

    def whole_lines(self) -> int:
        view = self.view
        if view is None or view.grid is None:
            return 0
        rows = -(-len(view.players) // max(1, self.per_row))
        return rows * board_height(view.grid) + (rows - 1)  # the boards, a line between their rows

    def least_lines(self) -> int:
        view = self.view
        if view is None or view.grid is None:
            return 0
        # The caption and letters above, the letters below, the cursor's row and two either side.
        return 3 + min(view.grid.height, 2 * self.ROWS_AROUND_CURSOR + 1)

    def has_cursor(self) -> bool:
        """A seat at the keyboard has a cursor; a spectator, a replay or the finished game's every-board view none."""
        view = self.view
        return self.interactive and view is not None and view.viewer is not None and view.viewer != ALL

    def active_slot(self) -> MonoBoard | None:
        for slot in self.slots:
            if slot.seat is not None and slot.seat == self.board_seat and slot.display:
                return slot
        return None

    def cursor_region(self) -> Region | None:
        """The cursor in this widget's content coordinates, for scrolling it into view."""
        slot = self.active_slot()
        if slot is None:
            return None
        region = slot.cursor_region()
        if region is None:
            return None
        offset = slot.content_region.offset - self.content_region.offset
        return region.translate(offset)

    def pinned_labels(self) -> Spacing:
        slot = self.active_slot()
        return slot.pinned_labels() if slot is not None else Spacing()

    def cursor_detail(self) -> str:
        """A line about the cell under the cursor: whose board, its name, what is known of it."""
        view, cell = self.view, self.cursor
        if view is None or view.grid is None or cell is None or not self.has_cursor():
            return ""
        name = view.grid.names[cell]
        if self.draft is not None:
            value = self.draft[cell]
            if value is None:
                return f"cursor {name}: empty"
            count = self.draft.count(value)
            return f"cursor {name}: {label(value)} (region {label(value)} has {count} of {value} cells)"
        seat = self.board_seat
        if seat is None or seat == view.viewer:
            return f"cursor {name}"
        owner = possessive(view.players[seat], addressed=True)
        value = view.boards[seat][cell] if view.boards[seat] else None
        if value is not None:
            detail = f"{owner} {name}: {label(value)}"
            if cell in view.random_uncovered[seat]:
                detail += " (random probe)"
            if cell not in view.probed and len(view.players) > 2:
                detail += ", you may probe it"
            return detail
        belief = self.belief_at_cursor()
        if belief is not None:
            guess, chance = belief
            certain = "certainly" if chance >= 0.995 else "probably"
            return f"{owner} {name}: hidden, {certain} {label(guess)} ({chance:.0%})".replace("%)", " %)")
        return f"{owner} {name}: hidden"

    def legend(self) -> list[Piece]:
        """The turn in progress and what it scores, the last turn, and when the game ends."""
        view = self.view
        if view is None or view.grid is None:
            return []
        if self.draft is not None:
            typing = (
                "Type each cell's region number (1 then 0 for region 10, label a)"
                if view.grid.regions >= 10 else "Type a label into each cell"
            )
            return [
                ("Your layout:", style(bold=True)),
                (f" region k is k connected cells labelled k. {typing}; + - step it, Backspace clears; "
                 "R: a random layout", style()),
            ]
        lines: list[list[Piece]] = []
        record = view.open_turn
        if record is not None:
            yours = record.seat == view.viewer and self.interactive
            who = "Your turn" if yours else f"{possessive(view.players[record.seat], addressed=True)} turn"
            lines.append([(f"{who}: ", style(bold=True)), *self.values_pieces(record.probes)])
            lines.append([(f"  scores {record.score} if it ends now", style())])
        elif view.phase == "probe" and self.interactive and view.viewer is not None and view.viewer in view.to_move:
            lines.append([("Your turn: nothing yet", style(bold=True))])
        if view.turns and (record is None or view.turns[-1].seat != record.seat):
            last = view.turns[-1]
            lines.append([(f"Last: {view.players[last.seat]} ", style()),
                          *self.values_pieces(last.probes, ended=last.ended_by_decrease),
                          (f"= {last.score}", style())])
        candidates = self.candidates_at_cursor()
        if candidates:
            # The board shows each cell's likeliest value; here every value the cursor's cell may hold.
            cell_name = view.grid.names[self.cursor or 0]
            # One word a candidate ("7=62%"): the panel wraps between candidates, never inside one.
            listed = ", ".join(f"{label(value)}={chance:.0%}" for value, chance in candidates)
            lines.append([(f"{cell_name} may be: ", style(bold=True)), (listed, style())])
        ending = self.ending_pieces()
        if ending:
            lines.append(ending)
        if view.viewer == ALL:
            lines.append([("Every board: values dim where still hidden", style())])
        if self.suggested is not None:
            glyphs, bracket = self.glyphs, style(self.palette.warn, bold=True)
            lines.append([(glyphs.cursor_left, bracket), (" ", style()), (glyphs.cursor_right, bracket),
                          (f" better: {self.suggested}", style())])
        pieces: list[Piece] = []
        for index, line in enumerate(lines):
            pieces += line + ([("\n", style())] if index + 1 < len(lines) else [])
        return pieces

    def values_pieces(self, probes: Sequence[Probe], ended: bool = False) -> list[Piece]:
        pieces: list[Piece] = []
        for index, probe in enumerate(probes):
            decrease = ended and index == len(probes) - 1
            if decrease:
                pieces.append(("| ", style(self.palette.label)))
            pieces.append((label(probe.value), value_style(self, probe.value, bold=not decrease, dim=decrease)))
            if probe.random:
                pieces.append((RANDOM_MARK, style(self.palette.label)))
            pieces.append((" ", style()))
        return pieces

    def ending_pieces(self) -> list[Piece]:
        """When the game will end: the last round, or how close the nearest board is to being uncovered."""
        view = self.view
        assert view is not None and view.grid is not None
        if view.over or view.phase != "probe":
            return []
        if view.final_round:
            return [("Last round: ", style(self.palette.warn, bold=True)),
                    (f"the game ends after {possessive(view.players[-1], addressed=True)} turn", style())]
        hidden = [view.grid.cells - len(view.uncovered[seat]) for seat in range(len(view.players))]
        seat = min(range(len(hidden)), key=lambda s: (hidden[s], s))
        whose = "yours" if seat == view.viewer else possessive(view.players[seat], standing=True, addressed=True)
        if hidden.count(hidden[seat]) == len(hidden):
            whose = "each"
        return [(f"End: the round a board is uncovered ({whose}: {hidden[seat]} left)", style())]

    def text_lines(self) -> list[str]:
        """Every board's lines, one board after another (what tests look at)."""
        lines: list[str] = []
        for slot in self.slots:
            if slot.seat is not None and slot.display:
                lines += slot.text_lines()
        return lines


@dataclass(frozen=True)
class DraftCheck:
    """What is still wrong with a draft layout: one line for the player, and the cells to mark."""

    message: str
    #: True when a region already breaks the rules (not merely unfinished).
    error: bool
    cells: frozenset[int]
    complete: bool


def check_draft(draft: Sequence[int | None], grid: Grid) -> DraftCheck:
    """Live validation while a layout is typed: too many cells, a complete region in pieces, what is short."""
    too_many: list[str] = []
    broken: list[str] = []
    short: list[str] = []
    bad: set[int] = set()
    for region in range(1, grid.regions + 1):
        cells = {i for i, v in enumerate(draft) if v == region}
        if len(cells) < region:  # still being typed
            short.append(f"{label(region)} ({region - len(cells)})")
            continue
        problem = region_problem(grid, region, cells)
        if problem is not None:
            (too_many if len(cells) > region else broken).append(problem)
            bad |= cells
    problems = too_many + broken
    empty = sum(1 for v in draft if v is None)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return DraftCheck(f"Layout: {problems[0]}{more}", True, frozenset(bad), False)
    if empty == len(draft):
        return DraftCheck("Layout: type a region label into each cell, or R for a random layout",
                          False, frozenset(), False)
    if empty:
        noun = "cell" if empty == 1 else "cells"
        listed = ", ".join(short[:5]) + (", ..." if len(short) > 5 else "")
        return DraftCheck(f"Layout: {empty} empty {noun}; short: {listed}", False, frozenset(), False)
    return DraftCheck("Layout is valid: Enter confirms it", False, frozenset(), True)
