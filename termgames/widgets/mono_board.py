"""Mono's boards: the viewer's own board and each opponent's, side by side.

Only what the view holds is drawn, so a hidden cell can never show.  The
cursor is a (board, cell) pair: on an opponent's board while probing, on the
viewer's own board while laying out (where a draft layout is drawn instead).
"""

from __future__ import annotations

from rich.style import Style

from ..rules.mono import MonoView, column_name, label
from .board import BoardWidget, Piece
from .palette import style

#: Values cycle through these colours; the digit always tells the value.
VALUE_COLOURS = ("#d75f5f", "#ff8700", "#d7af00", "#87af00", "#00af87", "#00afd7", "#5f87ff", "#af5fff", "#ff5fd7")
VALUE_COLOURS_CB = ("#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#999999", "#ffffff")


class MonoBoard(BoardWidget):
    view: MonoView | None

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.board_seat: int | None = None
        #: The layout being edited (None per empty cell), while the viewer lays out.
        self.draft: list[int | None] | None = None
        #: Whose draft it is: a draft never outlives its seat's turn at the keyboard.
        self.draft_owner: int | None = None
        self.room = 80

    # -- which board ---------------------------------------------------------

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

    def show(self, view) -> None:
        self.view = view
        if view is None:
            # Hidden behind the privacy screen: forget the draft too.
            self.draft = None
            self.draft_owner = None
        else:
            laying_out = (
                self.interactive and view.phase == "layout" and view.viewer is not None and view.viewer in view.to_move
            )
            if laying_out:
                if self.draft is None or self.draft_owner != view.viewer:
                    self.draft = [None] * view.grid.cells
                    self.draft_owner = view.viewer
                self.board_seat = view.viewer
            else:
                self.draft = None
                self.draft_owner = None
                if self.board_seat is None or self.board_seat == view.viewer or self.board_seat >= len(view.players):
                    others = self.opponents()
                    self.board_seat = others[0] if others else 0
            if self.cursor is None or self.cursor >= view.grid.cells:
                self.cursor = view.grid.cells // 2
        self.redraw()

    def next_board(self) -> None:
        if self.view is None or self.draft is not None:
            return
        others = self.opponents()
        if self.board_seat in others:
            self.board_seat = others[(others.index(self.board_seat) + 1) % len(others)]
        self.redraw()

    def cursor_name(self) -> str:
        if self.view is None or self.cursor is None:
            return ""
        return self.view.grid.names[self.cursor]

    def move_cursor(self, direction: str) -> None:
        if self.view is None or self.cursor is None:
            return
        grid = self.view.grid
        row, column = divmod(self.cursor, grid.width)
        row += {"up": -1, "down": 1}.get(direction, 0)
        column += {"left": -1, "right": 1}.get(direction, 0)
        if 0 <= row < grid.height and 0 <= column < grid.width:
            self.cursor = row * grid.width + column
            self.redraw()

    # -- the layout draft ----------------------------------------------------

    def set_draft_value(self, value: int | None, advance: bool = True) -> None:
        if self.draft is None or self.cursor is None:
            return
        self.draft[self.cursor] = value
        if advance and self.cursor + 1 < len(self.draft):
            self.cursor += 1
        self.redraw()

    def step_draft_value(self, delta: int) -> None:
        if self.draft is None or self.cursor is None or self.view is None:
            return
        regions = self.view.grid.regions
        current = self.draft[self.cursor] or (0 if delta > 0 else regions + 1)
        self.set_draft_value((current - 1 + delta) % regions + 1, advance=False)

    def draft_text(self) -> str | None:
        if self.draft is None or None in self.draft:
            return None
        return "".join(label(v) for v in self.draft)  # type: ignore[arg-type]

    # -- drawing -------------------------------------------------------------

    def value_style(self, value: int, bold: bool = False, background: str | None = None) -> Style:
        if self.palette_name == "mono":
            return style(None, background, bold=bold)
        colours = VALUE_COLOURS_CB if self.palette_name == "colourblind" else VALUE_COLOURS
        return style(colours[(value - 1) % len(colours)], background, bold=bold)

    def legend(self) -> list[Piece]:
        view = self.view
        if view is None:
            return []
        record = view.open_turn
        if view.phase == "layout" and self.draft is not None:
            return [("Your layout: digits or +/- set a cell, R random", style())]
        if record is None:
            return [("This turn: nothing probed yet", style(self.palette.label))]
        pieces: list[Piece] = [("This turn: ", style())]
        for probe in record.probes:
            pieces.append((label(probe.value), self.value_style(probe.value, bold=True)))
            pieces.append(("* " if probe.random else " ", style()))
        pieces.append((f"\nscores {record.score} so far", style()))
        return pieces

    def build_lines(self) -> list[list[Piece]]:
        view = self.view
        assert view is not None
        grid = view.grid
        blocks = [self.board_block(seat) for seat in self.board_order()]
        block_width = max(sum(len(t) for t, _ in line) for block in blocks for line in block)
        per_row = max(1, min(len(blocks), (self.room + 3) // (block_width + 3)))
        lines: list[list[Piece]] = []
        for start in range(0, len(blocks), per_row):
            group = blocks[start : start + per_row]
            for y in range(len(group[0])):
                line: list[Piece] = []
                for index, block in enumerate(group):
                    pieces = block[y]
                    used = sum(len(t) for t, _ in pieces)
                    line += pieces
                    if index + 1 < len(group):
                        line.append((" " * (block_width - used + 3), style()))
                lines.append(line)
            lines.append([])
        del grid
        return lines[:-1]

    def board_block(self, seat: int) -> list[list[Piece]]:
        view = self.view
        assert view is not None
        grid = view.grid
        palette, glyphs = self.palette, self.glyphs
        label_style = style(palette.label, dim=palette.label is None)
        own = seat == view.viewer
        active = seat == self.board_seat and self.interactive and view.viewer is not None
        values = self.draft if (own and self.draft is not None) else list(view.boards[seat]) if view.boards[seat] else None
        score = int(view.scores[seat])
        title = f"{view.players[seat]}{' (you)' if own else ''}: {score}"
        if not view.laid_out[seat]:
            title += "  (laying out)"
        width = 4 + grid.width * 3 + 3
        block: list[list[Piece]] = [[(title[:width].ljust(width), style(palette.seat(seat), bold=True, underline=active))]]
        header = "    " + "".join(f"{column_name(c):^3}" for c in range(grid.width))
        block.append([(header, label_style)])
        probed = view.probed
        for r in range(grid.height):
            number = grid.height - r
            line: list[Piece] = [(f"{number:>2}  ", label_style)]
            for c in range(grid.width):
                cell = r * grid.width + c
                value = values[cell] if values else None
                cursor_here = active and cell == self.cursor
                random_mark = cell in view.random_uncovered[seat]
                if value is None:
                    hidden_style = style(palette.empty, dim=palette.empty is None)
                    mark = "_" if own and self.draft is not None else glyphs.empty
                    text_style = hidden_style
                else:
                    mark = label(value)
                    dim_it = own and cell not in view.uncovered[seat] and self.draft is None
                    text_style = self.value_style(value, bold=not dim_it)
                    if own and cell in view.uncovered[seat]:
                        text_style = style(text_style.color.name if text_style.color else None, palette.highlight_bg, bold=True)
                if not own and cell in probed and value is None:
                    mark = glyphs.empty
                if cursor_here:
                    bracket = style(palette.warn, bold=True)
                    line += [(glyphs.cursor_left, bracket),
                             (mark, style(text_style.color.name if text_style.color else None, palette.cursor_bg,
                                          bold=True, reverse=palette.cursor_bg is None)),
                             (glyphs.cursor_right, bracket)]
                else:
                    line += [(" ", style()), (mark, text_style), ("*" if random_mark else " ", label_style)]
            line.append((f" {number}", label_style))
            block.append(line)
        block.append([(header, label_style)])
        return block
