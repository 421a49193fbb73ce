"""Copolymer's honeycomb as a staggered character grid, labelled as in the rules' Figure 1."""

from __future__ import annotations

from typing import Any

from textual.events import Click

from ..messages import CursorMoved, MoveChosen
from ..rules.base import possessive
from ..rules.copolymer import CopolymerView
from .board import BoardWidget, Canvas, Piece
from .palette import style

#: Where each cursor direction goes from (row, diagonal).
HEX_STEPS = {
    "left": (0, -1),
    "right": (0, 1),
    "up_left": (-1, -1),
    "up_right": (-1, 0),
    "down_left": (1, 0),
    "down_right": (1, 1),
}


class CopolymerBoard(BoardWidget[CopolymerView]):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: (cell, column): the half-cell column a run of up/down moves that ended on cell aims for.
        self._goal: tuple[int, int] | None = None
        #: Where the last drawing put each cell's mark: (line, column) -> cell, for clicks.
        self._cell_at: dict[tuple[int, int], int] = {}
        #: The analysis's better claim (a replay), drawn between brackets; None when there is none.
        self.suggested: str | None = None

    # -- geometry ----------------------------------------------------------

    def spacing(self) -> tuple[int, int]:
        """Characters per half-cell and lines per row: roomy when the terminal has the room.

        Neighbours on a row are two half-cells apart.  Two characters a
        half-cell fit the standard board beside the side panel at 80
        columns; the big boards use one.  When the screen leaves it the room,
        a blank line goes between rows, which brings the honeycomb closer to
        its true shape (a game's end takes lines from the board: it draws
        tighter rather than leave rows out of sight).
        """
        assert self.view is not None and self.view.board is not None
        board = self.view.board
        if self.is_attached:
            width, height = self.app.size
            narrow = self.screen.has_class("narrow")
        else:
            width, height, narrow = 80, 24, False
        room_width = width - (4 if narrow else 34)
        room_height = self.room_lines if self.room_lines is not None else height - 4 - (10 if narrow else 0)
        step = 2 if board.width * 2 + 8 <= max(room_width, 56) else 1
        gap = 2 if step == 2 and 2 * len(board.rows) + 1 <= room_height else 1
        return step, gap

    def row_lines(self) -> int:
        return self.spacing()[1] if self.view is not None and self.view.board is not None else 1

    def whole_lines(self) -> int:
        if self.view is None or self.view.board is None:
            return 0
        return len(self.view.board.rows) + 1  # a line a row, and the diagonal numbers

    def least_lines(self) -> int:
        return min(self.whole_lines(), 1 + 2 * self.ROWS_AROUND_CURSOR + 1)

    def initial_cursor(self) -> int | None:
        if self.view is None or self.view.board is None:
            return None
        board = self.view.board
        letter, first, last = board.rows[len(board.rows) // 2]
        return board.index[f"{letter}{(first + last) // 2}"]

    def cursor_valid(self, cursor: int) -> bool:
        return self.view is not None and self.view.board is not None and cursor < self.view.board.cell_count

    def cursor_name(self) -> str:
        if self.view is None or self.view.board is None or self.cursor is None:
            return ""
        return self.view.board.names[self.cursor]

    def cursor_detail(self) -> str:
        view, cell = self.view, self.cursor
        if view is None or view.board is None or cell is None or not self.interactive:
            return ""
        name = view.board.names[cell]
        owner = view.owners[cell]
        if owner is not None:
            whose = "yours" if owner == view.viewer else possessive(view.players[owner], standing=True, addressed=True)
            return f"cursor {name}: {whose}"
        if cell in view.obliging and not view.over:
            return f"cursor {name}: empty, earns another claim"
        return f"cursor {name}: empty"

    def move_cursor(self, direction: str) -> None:
        if self.view is None or self.view.board is None or self.cursor is None:
            return
        board = self.view.board
        row, diagonal = board.coords[self.cursor]
        target: int | None
        goal: int | None
        if direction in HEX_STEPS:
            dr, dd = HEX_STEPS[direction]
            target = board.cell_at(row + dr, diagonal + dd)
            goal = None
        else:
            # Straight up or down: the nearest cell of the next row to the column the vertical
            # run started in, so k then j comes back and k k goes straight up.  Rows are
            # staggered: between two equally near cells, up goes right and down goes left.
            next_row = row - 1 if direction == "up" else row + 1
            goal = self._goal[1] if self._goal and self._goal[0] == self.cursor else board.column(self.cursor)
            lean = -1 if direction == "up" else 1
            candidates = [i for i, (r, _d) in enumerate(board.coords) if r == next_row]
            target = (
                min(candidates, key=lambda i: (abs(board.column(i) - goal), lean * board.column(i)))
                if candidates
                else None
            )
        if target is not None:
            self.cursor = target
            self._goal = None if goal is None else (target, goal)
            self.redraw()

    def legend(self) -> list[Piece]:
        if self.view is None:
            return []
        pieces: list[Piece] = []
        for seat, name in enumerate(self.view.players):
            pieces.append((self.glyphs.seats[seat], style(self.palette.seat(seat), bold=True)))
            pieces.append((f" {name}   ", style()))
        pieces.append(("\n", style()))
        pieces.append((self.glyphs.obliging, style(self.palette.warn, bold=True)))
        pieces.append((" earns another claim", style()))
        if self.suggested is not None:
            warn = style(self.palette.warn, bold=True)
            pieces += [("\n", style()), (self.glyphs.cursor_left, warn), (" ", style()),
                       (self.glyphs.cursor_right, warn), (f" better: {self.suggested}", style())]
        return pieces

    def suggest(self, move: str | None) -> bool:
        if move != self.suggested:
            self.suggested = move
            self.redraw()
        return True

    def on_click(self, event: Click) -> None:
        """A click on a cell puts the cursor there; a click on the cursor's cell claims it."""
        if self.view is None or self.view.board is None or not self.interactive or self.under_labels(event.x, event.y):
            return
        offset = event.get_content_offset(self)
        if offset is None:
            return
        # A mark and the column either side of it (its brackets when the cursor is there) are its cell.
        cell = next((c for dx in (0, -1, 1) if (c := self._cell_at.get((offset.y, offset.x + dx))) is not None), None)
        if cell is None:
            return
        if cell == self.cursor:
            self.post_message(MoveChosen(self.view.board.names[cell]))
            return
        self.cursor = cell
        self._goal = None
        self.redraw()
        self.post_message(CursorMoved())

    # -- drawing -----------------------------------------------------------

    def build_lines(self) -> list[list[Piece]]:
        view = self.view
        assert view is not None and view.board is not None
        board = view.board
        palette, marks = self.palette, self.glyphs
        step, gap = self.spacing()
        left = 4
        height = gap * len(board.rows) + 1
        width = left + board.width * step + 4
        canvas = Canvas(width, height)
        put = canvas.put

        def line_of(row: int) -> int:
            return gap * (row + 1)

        label_style = style(palette.label, dim=palette.label is None)
        # Kept in sight when the board scrolls: the top line's diagonal numbers, and the row letters
        # (down the hexagon's slanting edge, in no column of their own: each floats at the left edge).
        self.label_lines = 1
        x_of = [left + board.column(cell) * step for cell in range(board.cell_count)]

        # Row letters just left of each row; diagonal numbers where each diagonal would continue
        # above its top cell (up and to the right), as in the rules' Figure 1.
        self.row_labels = {}
        for r, (letter, first, _last) in enumerate(board.rows):
            x = x_of[board.index[f"{letter}{first}"]] - 3
            put(line_of(r), x, letter, label_style)
            self.row_labels[line_of(r)] = (x, len(letter))
        top_of: dict[int, int] = {}
        for cell, (r, d) in enumerate(board.coords):
            if d not in top_of or board.coords[top_of[d]][0] > r:
                top_of[d] = cell
        taken_until: dict[int, int] = {}
        for d in sorted(top_of):
            cell = top_of[d]
            line = line_of(board.coords[cell][0] - 1)
            x = x_of[cell] + step
            if x <= taken_until.get(line, -1):
                continue  # compact boards: skip a number that would run into the last one
            put(line, x, str(d), label_style)
            taken_until[line] = x + len(str(d))

        obliging = view.obliging if not view.over else frozenset()
        recent = set(view.last_claims)
        self._cursor_box = None
        self._cell_at = {}
        for cell in range(board.cell_count):
            line = line_of(board.coords[cell][0])
            x = x_of[cell]
            self._cell_at[line, x] = cell
            owner = view.owners[cell]
            background = palette.highlight_bg if cell in recent and owner is not None else None
            if owner is not None:
                mark = marks.seats[owner]
                underline = cell in recent and background is None
                look = style(palette.seat(owner), background, bold=True, underline=underline)
                if background is not None and step > 1:
                    put(line, x - 1, "   ", style(None, background))  # the last turn's claims as tiles
            elif cell in obliging:
                mark, look = marks.obliging, style(palette.warn, bold=True)
            else:
                mark, look = marks.empty, style(palette.empty, dim=palette.empty is None)
            if self.interactive and cell == self.cursor:
                look = style(look.color.name if look.color else None, palette.cursor_bg, bold=True,
                             reverse=palette.cursor_bg is None)
                bracket = style(palette.warn, bold=True)
                put(line, x - 1, marks.cursor_left, bracket)
                put(line, x + 1, marks.cursor_right, bracket)
                self._cursor_box = (line, x - 1, 3)
            if self.suggested is not None and board.names[cell] == self.suggested and cell != self.cursor:
                bracket = style(palette.warn, bold=True)
                put(line, x - 1, marks.cursor_left, bracket)
                put(line, x + 1, marks.cursor_right, bracket)
            put(line, x, mark, look)

        # Trailing spaces go whatever their style: the board is as wide as its widest row's marks.
        return canvas.lines(trim="spaces")
