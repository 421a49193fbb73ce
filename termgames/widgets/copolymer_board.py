"""Copolymer's honeycomb as a staggered character grid, labelled as in the rules' Figure 1."""

from __future__ import annotations

from rich.style import Style

from ..rules.copolymer import CopolymerView
from .board import BoardWidget, Piece
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


class CopolymerBoard(BoardWidget):
    view: CopolymerView | None

    # -- geometry ----------------------------------------------------------

    def spacing(self) -> int:
        """Characters per half-cell: roomy when the board fits, compact for the big ones."""
        assert self.view is not None and self.view.board is not None
        room = self.app.size.width - 34 if self.is_attached else 64
        return 2 if self.view.board.width * 2 + 8 <= max(room, 56) else 1

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

    def move_cursor(self, direction: str) -> None:
        if self.view is None or self.view.board is None or self.cursor is None:
            return
        board = self.view.board
        row, diagonal = board.coords[self.cursor]
        target: int | None
        if direction in HEX_STEPS:
            dr, dd = HEX_STEPS[direction]
            target = board.cell_at(row + dr, diagonal + dd)
        else:
            # Straight up or down: the nearest cell of the next row.
            next_row = row - 1 if direction == "up" else row + 1
            here = board.column(self.cursor)
            candidates = [i for i, (r, _d) in enumerate(board.coords) if r == next_row]
            target = min(candidates, key=lambda i: (abs(board.column(i) - here), board.column(i))) if candidates else None
        if target is not None:
            self.cursor = target
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
        return pieces

    # -- drawing -----------------------------------------------------------

    def build_lines(self) -> list[list[Piece]]:
        view = self.view
        assert view is not None and view.board is not None
        board = view.board
        palette, marks = self.palette, self.glyphs
        step = self.spacing()
        left = 4
        height = len(board.rows) + 1
        width = left + board.width * step + 4
        chars = [[" "] * width for _ in range(height)]
        styles: list[list[Style]] = [[Style()] * width for _ in range(height)]

        def put(line: int, x: int, text: str, look: Style) -> None:
            for offset, char in enumerate(text):
                if 0 <= x + offset < width:
                    chars[line][x + offset] = char
                    styles[line][x + offset] = look

        label_style = style(palette.label, dim=palette.label is None)
        x_of = [left + board.column(cell) * step for cell in range(board.cell_count)]

        # Row letters just left of each row; diagonal numbers up-right of each diagonal's top cell.
        for r, (letter, first, _last) in enumerate(board.rows):
            put(r + 1, x_of[board.index[f"{letter}{first}"]] - 3, letter, label_style)
        top_of: dict[int, int] = {}
        for cell, (r, d) in enumerate(board.coords):
            if d not in top_of or board.coords[top_of[d]][0] > r:
                top_of[d] = cell
        taken_until: dict[int, int] = {}
        for d in sorted(top_of):
            cell = top_of[d]
            line = board.coords[cell][0]
            x = x_of[cell] + step
            if x <= taken_until.get(line, -1):
                continue  # compact boards: skip a number that would run into the last one
            put(line, x, str(d), label_style)
            taken_until[line] = x + len(str(d))

        obliging = view.obliging if not view.over else frozenset()
        recent = set(view.last_claims)
        for cell in range(board.cell_count):
            line = board.coords[cell][0] + 1
            x = x_of[cell]
            owner = view.owners[cell]
            background = palette.highlight_bg if cell in recent and owner is not None else None
            if owner is not None:
                mark = marks.seats[owner]
                look = style(palette.seat(owner), background, bold=True, underline=cell in recent and background is None)
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
            put(line, x, mark, look)

        lines: list[list[Piece]] = []
        for line in range(height):
            row_text, row_styles = chars[line], styles[line]
            end = len("".join(row_text).rstrip())
            pieces: list[Piece] = []
            start = 0
            for x in range(1, end + 1):
                if x == end or row_styles[x] != row_styles[start]:
                    pieces.append(("".join(row_text[start:x]), row_styles[start]))
                    start = x
            lines.append(pieces)
        return lines
