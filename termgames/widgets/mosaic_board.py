"""Mosaic's board and hands: tiles of four coloured triangles, drawn with the Line API.

A tile is a block of 5 x 3 characters.  Its four quarters (N, E, S, W) take
their seat's colour as background and each carries the seat's number (the
notation's own digit: tile ``1121`` reads 1, 1, 2, 1 clockwise from the
top), so colour is never the only signal; the four corners show the
diagonals between the quarters::

    ◥1◤      \\1/      (Unicode, the corner glyphs split in two colours)
    1 1      1 1      (ASCII and mono: slashes)
    ◢2◣      /2\\

The grid lines between tiles (``g``) are off by default, as in the Mac
program, so a region reads as one patch of colour.

The board draws only what the view says and what the legal moves name (read
with the rules' own notation, :func:`~termgames.rules.mosaic.notation.parse_move`:
``TILE@R,C``, ``edge R,C R,C``, ``take R,C``, ``pass``): the legal positions of the
selected hand tile are outlined with ``o`` in the middle, legal edges have
their two facing digits underlined, candidate replacements carry ``o`` in
their middle, holes ``!``, positions waiting for a replacement ``?``,
mismatched tiles ``!`` with the mismatched sides' digits reversed.  A replay's
better move (``suggest``) stands in double corners (ASCII ``#``) with ``*`` in the
middle, in reverse video: a placement shows its tile's digits there; an edge
has its two arrows and ``*`` in both its tiles.

The cursor lives on a doubled grid: ``(2 * row, 2 * col)`` is a position,
an odd coordinate the edge between two positions; while an edge is asked
for, the arrows step half a tile so the cursor can rest on edges.  When the
board outgrows the widget it is drawn centred on the cursor.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.style import Style
from textual.events import Click
from textual.geometry import Region

from ..rules.base import RuleError
from ..rules.mosaic.notation import Edge, Move, Pass, Place, Take, parse_move
from ..rules.mosaic.tiles import SIDE_NAMES, E, N, Pos, S, Tile, W, pos_text, tile_text
from ..rules.mosaic.view import EDGE_KIND, LAST_PLACE_KIND, PLACE_KIND, REPLACE_KIND, MosaicView
from ..rules.numbers import score_text
from .board import BoardWidget, Canvas, Piece
from .palette import Palette, style

#: An edge as its two positions, upper (or left) first: where the cursor rests between two tiles.
PosPair = tuple[Pos, Pos]
#: Maps a board position to the (x, line) of its block in the widget.
ScreenXY = Callable[[Pos], tuple[int, int]]

#: Tile block size in characters.
TILE_W, TILE_H = 5, 3

INK = "#101010"  # digits on coloured quarters


# --------------------------------------------------------------------------
# What the screen needs of a view, in one place
# --------------------------------------------------------------------------


@dataclass
class Picture:
    """The view reduced to what is drawn: tiles, hands, the step and its legal choices."""

    players: tuple[str, ...]
    tiles: dict[Pos, Tile]
    hands: tuple[tuple[Tile, ...], ...]
    #: The step's kind (the rules' PLACE_KIND, EDGE_KIND, REPLACE_KIND, LAST_PLACE_KIND), or "" when nobody
    #: is asked anything (over).
    kind: str
    player: int | None
    legal: list[str]
    #: Hand tile -> positions where the legal moves place it.
    placements: dict[Tile, set[Pos]] = field(default_factory=dict)
    edges: set[PosPair] = field(default_factory=set)
    candidates: set[Pos] = field(default_factory=set)
    holes: set[Pos] = field(default_factory=set)
    #: Positions waiting for a replacement, the one being asked for first.
    targets: list[Pos] = field(default_factory=list)
    #: (position, side) of each side that does not match its neighbour.
    mismatched_sides: set[tuple[Pos, int]] = field(default_factory=set)
    selected_edge: PosPair | None = None
    can_pass: bool = False
    #: "initiate", "mismatch" (a mismatch subroutine) or "".
    subroutine: str = ""
    #: The rules' phase: "building", "alteration" or "over" (Step SH/P comes in the first two).
    phase: str = ""
    #: Each seat's points.
    scores: tuple[float, ...] = ()

    @property
    def mismatched_tiles(self) -> set[Pos]:
        return {pos for pos, _side in self.mismatched_sides}


def read_legal(picture: Picture) -> None:
    """Fill the picture's legal placements, edges and candidates from the legal moves (the rules' notation)."""
    for text in picture.legal:
        move = parse_move(text, len(picture.players))
        if isinstance(move, Place):
            picture.placements.setdefault(move.tile, set()).add(move.pos)
        elif isinstance(move, Edge):
            picture.edges.add((move.first, move.second))
        elif isinstance(move, Take):
            picture.candidates.add(move.pos)
        elif isinstance(move, Pass):
            picture.can_pass = True


def picture_of(view: MosaicView) -> Picture:
    """Read a Mosaic view into a Picture."""
    step = view.step
    asked = not view.over and step.player is not None
    picture = Picture(
        players=tuple(view.players),
        tiles=dict(view.tiles),
        hands=tuple(view.hands),
        kind=step.kind if asked else "",
        player=step.player if asked else None,
        legal=list(view.legal_moves()) if asked else [],
        subroutine=step.subroutine,
        phase=step.phase,
        scores=tuple(view.scores),
    )
    read_legal(picture)
    picture.holes = set(view.holes)
    if step.replacing is not None:
        picture.targets = [step.replacing]
    if step.edge is not None:
        a, b = step.edge
        picture.selected_edge = (min(a, b), max(a, b))
        if step.kind == REPLACE_KIND:
            # The edge's other position waits for its own replacement after this one.
            picture.targets += [p for p in picture.selected_edge if p not in view.tiles and p not in picture.targets]
    picture.mismatched_sides = set(view.mismatches)
    return picture


# --------------------------------------------------------------------------
# Drawing helpers shared by the board and the hands
# --------------------------------------------------------------------------



def quarter_style(palette: Palette, seat: int, bold: bool = True) -> Style:
    colour = palette.seat(seat)
    if colour is None:
        return style(bold=bold)
    return style(INK, colour, bold=bold)


def draw_tile(canvas: Canvas, x: int, y: int, tile: Tile, palette: Palette, ascii_only: bool, width: int = TILE_W,
              height: int = TILE_H) -> None:
    """A tile as a ``width`` x ``height`` block (5 x 3 on the board, 3 x 3 in the hands)."""
    coloured = palette.seat(0) is not None
    middle = width // 2
    row_mid = height // 2
    for dy in range(height):
        for dx in range(width):
            if dy == 0 and 0 < dx < width - 1:
                quarter = N
            elif dy == height - 1 and 0 < dx < width - 1:
                quarter = S
            elif 0 < dy < height - 1:
                quarter = W if dx < middle else E if dx > middle else tile_majority(tile)
            else:
                continue  # corners below
            char = str(tile[quarter] + 1) if (dx, dy) in (
                (middle, 0), (middle, height - 1), (0, row_mid), (width - 1, row_mid)) else " "
            canvas.put(y + dy, x + dx, char, quarter_style(palette, tile[quarter]))
    corners = (
        (0, 0, N, W, "◥", "\\"),
        (width - 1, 0, N, E, "◤", "/"),
        (0, height - 1, S, W, "◢", "/"),
        (width - 1, height - 1, S, E, "◣", "\\"),
    )
    for dx, dy, vertical, horizontal, glyph, slash in corners:
        if coloured and not ascii_only:
            # The glyph's ink is the N (or S) quarter, its background the W (or E) one.
            look = style(palette.seat(tile[vertical]), palette.seat(tile[horizontal]))
            canvas.put(y + dy, x + dx, glyph, look)
        else:
            canvas.put(y + dy, x + dx, slash, style(palette.label, dim=palette.label is None))


def tile_majority(tile: Tile) -> int:
    """The colour of most quarters (the N quarter's on a tie): the middle of a tile takes it."""
    return max(tile, key=lambda seat: (tile.count(seat), seat == tile[N]))


# --------------------------------------------------------------------------
# The board
# --------------------------------------------------------------------------


class MosaicBoard(BoardWidget):
    """The board of one view, drawn in a window the size of the widget, centred on the cursor if it must."""

    DEFAULT_CSS = """
    MosaicBoard { width: 1fr; height: 1fr; padding: 0; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not self.interactive:
            self.styles.width = "auto"
            self.styles.height = "auto"
        self.picture: Picture | None = None
        #: The cursor on the doubled grid: even coordinates a position, one odd an edge.
        self.spot: tuple[int, int] = (0, 0)
        self.grid = False
        #: The screen's compact layout (a small terminal): no legend in the short panel under the board, the
        #: ``?`` help says what the marks mean and every quarter carries its seat's digit.
        self.compact = False
        #: The hand tile whose legal positions are outlined (index into the mover's hand).
        self.hand_index: int | None = None
        #: Quarters highlighted by ``r``: (row, col, quarter), and the line saying what they are.
        self.highlight: frozenset[tuple[int, int, int]] = frozenset()
        self.region_text = ""
        self._position_key: Any = None
        #: The analysis's better move (a replay), drawn over the board; None when there is none.
        self.suggested: Place | Edge | Take | None = None
        #: Where the last drawing put it (content coordinates), for scrolling a big board to it.
        self._suggestion_region: Region | None = None
        #: The last window origin (content x, y of the first drawn character), kept while the cursor is in sight.
        self._origin: tuple[int, int] | None = None
        #: How the last drawing maps widget cells to positions: shifts, first row and column, pitch.
        self._layout: tuple[int, int, int, int, int, int] | None = None

    # -- attributes down ---------------------------------------------------

    def show(self, view: Any) -> None:
        self.view = view
        self.picture = picture_of(view) if isinstance(view, MosaicView) else None
        key = None if self.picture is None else (view.position_key(), self.picture.kind)
        if key != self._position_key:
            self._position_key = key
            self.highlight, self.region_text = frozenset(), ""
            self.hand_index = self.default_hand_index()
            self.spot = self.default_spot()
        self.redraw()

    def selected_tile(self) -> Tile | None:
        picture = self.picture
        if picture is None or picture.player is None or self.hand_index is None:
            return None
        hand = picture.hands[picture.player] if picture.player < len(picture.hands) else ()
        return hand[self.hand_index] if 0 <= self.hand_index < len(hand) else None

    def default_hand_index(self) -> int | None:
        """The first hand tile with a legal position, when a hand tile is asked for."""
        picture = self.picture
        if picture is None or picture.player is None or not picture.placements:
            return None
        hand = picture.hands[picture.player]
        for index, tile in enumerate(hand):
            if tile in picture.placements:
                return index
        return None

    def choices(self) -> list[tuple[int, int]]:
        """The legal choices of the step at hand as cursor spots, in reading order."""
        picture = self.picture
        if picture is None:
            return []
        spots: list[tuple[int, int]] = []
        tile = self.selected_tile()
        if tile is not None:
            spots += [(2 * r, 2 * c) for r, c in picture.placements.get(tile, ())]
        spots += [(a[0] + b[0], a[1] + b[1]) for a, b in picture.edges]
        spots += [(2 * r, 2 * c) for r, c in picture.candidates]
        return sorted(set(spots))

    def default_spot(self) -> tuple[int, int]:
        """Where the cursor goes at a new step: the first legal choice, else near the middle of the board."""
        picture = self.picture
        if picture is None:
            return (0, 0)
        if picture.kind == REPLACE_KIND and picture.candidates:
            return min((2 * r, 2 * c) for r, c in picture.candidates)
        choices = self.choices()
        if choices:
            # Keep the cursor if it is already on a choice (hot-seat players expect it to stay).
            return self.spot if self.spot in choices else choices[0]
        if picture.tiles and (self.spot[0] // 2, self.spot[1] // 2) not in picture.tiles:
            rows = sorted(r for r, _ in picture.tiles)
            cols = sorted(c for _, c in picture.tiles)
            return (2 * rows[len(rows) // 2], 2 * cols[len(cols) // 2])
        return (self.spot[0] & ~1, self.spot[1] & ~1) if picture.kind != EDGE_KIND else self.spot

    def suggest(self, move: str | None) -> bool:
        """Mark the analysis's better move (``TILE@R,C``, ``edge R,C R,C``, ``take R,C``), or take it off with None;
        False for a pass (nothing to draw) or a text that is no move."""
        drawn: Place | Edge | Take | None = None
        if move is not None and self.picture is not None:
            try:
                parsed: Move = parse_move(move, len(self.picture.players))
            except RuleError:
                parsed = Pass()
            drawn = None if isinstance(parsed, Pass) else parsed
        if drawn != self.suggested:
            self.suggested = drawn
            self.redraw()
        return move is None or drawn is not None

    def suggested_positions(self) -> set[Pos]:
        move = self.suggested
        if isinstance(move, Edge):
            return {move.first, move.second}
        return set() if move is None else {move.pos}

    def set_grid(self, on: bool) -> None:
        self.grid = on
        self.redraw()

    def set_region(self, quarters: frozenset[tuple[int, int, int]], text: str) -> None:
        self.highlight, self.region_text = quarters, text
        self.redraw()

    # -- cursor ------------------------------------------------------------

    def extent(self) -> tuple[int, int, int, int]:
        """Rows and columns drawn: the board and one ring of positions around it."""
        picture = self.picture
        positions = set(picture.tiles) if picture else set()
        if picture is not None:
            positions |= set(picture.targets) | picture.holes | self.suggested_positions()
            for spots in picture.placements.values():
                positions |= spots
        if not positions:
            return (-1, 1, -1, 1)
        rows = [r for r, _ in positions]
        cols = [c for _, c in positions]
        # A ring of empty positions around the board only while tiles may be placed (small screens need the room).
        ring = 1 if picture is not None and (picture.placements or picture.kind in (PLACE_KIND, LAST_PLACE_KIND)) else 0
        return (min(rows) - ring, max(rows) + ring, min(cols) - ring, max(cols) + ring)

    def edge_mode(self) -> bool:
        return self.picture is not None and self.picture.kind == EDGE_KIND and bool(self.picture.edges)

    def move_cursor(self, direction: str) -> None:
        if self.picture is None:
            return
        dr, dc = {"left": (0, -1), "right": (0, 1), "up": (-1, 0), "down": (1, 0)}[direction]
        row, col = self.spot
        if self.edge_mode():
            # Half steps that never land on a corner: along an edge's own line, jump to the next edge.
            on_edge_line = (row % 2 == 1 and dr != 0) or (col % 2 == 1 and dc != 0)
            step = 1 if not (row % 2 or col % 2) or on_edge_line else 2
            row, col = row + dr * step, col + dc * step
        else:
            row, col = (row & ~1) + 2 * dr, (col & ~1) + 2 * dc
        top, bottom, left, right = self.extent()
        if 2 * top <= row <= 2 * bottom and 2 * left <= col <= 2 * right:
            self.spot = (row, col)
            self.redraw()

    def jump(self, forward: bool = True) -> bool:
        """Move the cursor to the next (previous) legal choice; False if there is none."""
        choices = self.choices()
        if not choices:
            return False
        if forward:
            later = [spot for spot in choices if spot > self.spot]
            self.spot = later[0] if later else choices[0]
        else:
            earlier = [spot for spot in choices if spot < self.spot]
            self.spot = earlier[-1] if earlier else choices[-1]
        self.redraw()
        return True

    def cursor_position(self) -> Pos | None:
        row, col = self.spot
        if row % 2 or col % 2:
            return None
        return (row // 2, col // 2)

    def cursor_edge(self) -> PosPair | None:
        row, col = self.spot
        if row % 2 == col % 2:
            return None
        if row % 2:
            return ((row // 2, col // 2), (row // 2 + 1, col // 2))
        return ((row // 2, col // 2), (row // 2, col // 2 + 1))

    def cursor_name(self) -> str:
        edge = self.cursor_edge()
        if edge is not None:
            return Edge(*edge).text()
        pos = self.cursor_position()
        return pos_text(pos) if pos is not None else ""

    def cursor_detail(self) -> str:
        picture = self.picture
        if picture is None or not self.interactive:
            return ""
        if self.region_text:
            return self.region_text
        edge = self.cursor_edge()
        if edge is not None:
            legal = edge in picture.edges
            return f"cursor: edge {pos_text(edge[0])} {pos_text(edge[1])}" + (" (legal)" if legal else "")
        pos = self.cursor_position()
        if pos is None:
            return ""
        tile = picture.tiles.get(pos)
        where = f"cursor {pos_text(pos)}"
        if tile is not None:
            text = f"{where}: tile {tile_text(tile)}"
            if pos in picture.candidates:
                text += ", a candidate"
            if pos in picture.mismatched_tiles:
                sides = "".join(SIDE_NAMES[s] for p, s in sorted(picture.mismatched_sides) if p == pos)
                text += f", mismatched {sides}"
            return text
        if pos in picture.targets:
            return f"{where}: waiting for a replacement"
        if pos in picture.holes:
            return f"{where}: a hole to fill"
        selected = self.selected_tile()
        if selected is not None and pos in picture.placements.get(selected, ()):
            return f"{where}: {tile_text(selected)} may go here"
        return f"{where}: empty"

    # -- geometry ----------------------------------------------------------

    def whole_lines(self) -> int:
        top, bottom, _left, _right = self.extent()
        gap = 1 if self.grid else 0
        return (bottom - top + 1) * self.pitch()[1] + gap

    def least_lines(self) -> int:
        # The cursor's tile and a line of the tiles above and under it: the board centres itself on the cursor, so
        # that much is enough to play in, and leaves a small terminal's panel the step asked (three lines).
        return min(self.whole_lines(), TILE_H + 2)

    def pitch(self) -> tuple[int, int]:
        """Characters from one tile to the next, across and down."""
        return (TILE_W + 1, TILE_H + 1) if self.grid else (TILE_W, TILE_H)

    def window(self) -> tuple[int, int]:
        if self.is_attached and self.size.area:
            return self.size.width, self.size.height
        return 48, 15

    def spot_at(self, x: int, y: int) -> tuple[int, int] | None:
        """The cursor spot drawn at (x, y): a position, or (while an edge is asked for) its nearest edge."""
        if self._layout is None:
            return None
        shift_x, shift_y, left, top, step_x, step_y = self._layout
        col, inside_x = divmod(x + shift_x, step_x)
        row, inside_y = divmod(y + shift_y, step_y)
        row, col = row + top, col + left
        if not self.edge_mode():
            return (2 * row, 2 * col)
        # The side of the tile nearest the click: each side's distance in tile-widths.
        sides = {
            (-1, 0): inside_y / TILE_H,
            (1, 0): (TILE_H - 1 - inside_y) / TILE_H,
            (0, -1): inside_x / TILE_W,
            (0, 1): (TILE_W - 1 - inside_x) / TILE_W,
        }
        dr, dc = min(sides, key=lambda step: sides[step])
        return (2 * row + dr, 2 * col + dc)

    def on_click(self, event: Click) -> None:
        """A click on the board moves the cursor there."""
        if self.picture is None or not self.interactive:
            return
        offset = event.get_content_offset(self)
        spot = None if offset is None else self.spot_at(offset.x, offset.y)
        if spot is not None:
            self.spot = spot
            self.redraw()
            if hasattr(self.screen, "update_panel"):
                self.screen.update_panel()

    def cursor_region(self) -> Region | None:
        return None  # the board keeps its cursor in sight itself

    # -- drawing -----------------------------------------------------------

    def build_lines(self) -> list[list[Piece]]:
        picture = self.picture
        if picture is None:
            return []
        palette = self.palette
        top, bottom, left, right = self.extent()
        step_x, step_y = self.pitch()
        gap = 1 if self.grid else 0
        # The whole board in content coordinates: position (r, c) at x0 + (c - left) * step_x.
        full_w = (right - left + 1) * step_x - gap + 2 * gap
        full_h = (bottom - top + 1) * step_y - gap + 2 * gap
        # A board without a cursor (replays) is drawn whole: its container scrolls.
        width, height = self.window() if self.interactive else (full_w + 2, full_h)

        def axis(full: int, room: int, at: int, kept: int | None) -> int:
            """The first content column (line) shown: centred if all fits, else kept or centred on ``at``."""
            if full <= room:
                return -(room - full) // 2
            if kept is not None and kept + 1 <= at and at + TILE_W + 1 <= kept + room and kept + room <= full + 2:
                return kept
            return max(-1, min(full - room + 1, at - room // 2))

        cursor_x = gap + (self.spot[1] / 2 - left) * step_x
        cursor_y = gap + (self.spot[0] / 2 - top) * step_y
        kept_x, kept_y = self._origin if self._origin is not None else (None, None)
        origin_x = axis(full_w, width, int(cursor_x + TILE_W // 2), kept_x if full_w > width else None)
        origin_y = axis(full_h, height, int(cursor_y + TILE_H // 2), kept_y if full_h > height else None)
        self._origin = (origin_x, origin_y)
        self._layout = (origin_x - gap, origin_y - gap, left, top, step_x, step_y)
        canvas = Canvas(width, height)

        def screen_xy(pos: Pos) -> tuple[int, int]:
            return (gap + (pos[1] - left) * step_x - origin_x, gap + (pos[0] - top) * step_y - origin_y)

        if self.grid:
            self.draw_grid(canvas, top, bottom, left, right, screen_xy)
        mark_look = style(palette.warn, bold=True)
        selected = self.selected_tile()
        legal_spots = picture.placements.get(selected, set()) if selected is not None else set()
        for row in range(top, bottom + 1):
            for col in range(left, right + 1):
                pos = (row, col)
                x, y = screen_xy(pos)
                if x + TILE_W < 0 or x >= width or y + TILE_H < 0 or y >= height:
                    continue
                tile = picture.tiles.get(pos)
                if tile is not None:
                    draw_tile(canvas, x, y, tile, palette, self.ascii_only)
                    if pos in picture.candidates:
                        canvas.put(y + 1, x + 2, "o" if self.ascii_only else "○", style(INK, palette.warn, bold=True)
                                   if palette.warn else style(bold=True, reverse=True))
                    elif pos in picture.mismatched_tiles:
                        canvas.put(y + 1, x + 2, "!", style(INK, palette.warn, bold=True)
                                   if palette.warn else style(bold=True, reverse=True))
                    for p, side in picture.mismatched_sides:
                        if p == pos:
                            sx, sy = side_cell(side)
                            canvas.restyle(y + sy, x + sx, style(reverse=True, underline=True))
                    continue
                mark = ""
                if pos in picture.targets:
                    mark = "?"
                elif pos in legal_spots:
                    mark = "o" if self.ascii_only else "○"
                elif pos in picture.holes:
                    mark = "!"
                if mark and selected is not None and pos in legal_spots and pos == self.cursor_position():
                    # A ghost of the selected hand tile where Enter would place it: its digits, no fill.
                    for quarter in range(4):
                        sx, sy = side_cell(quarter)
                        canvas.put(y + sy, x + sx, str(selected[quarter] + 1),
                                   style(palette.seat(selected[quarter]), bold=True))
                if mark:
                    self.draw_outline(canvas, x, y, mark_look, dashed=mark != "?")
                    # The position asked for now stands out; one waiting for its turn is dimmer.
                    look = mark_look if (mark != "?" or pos == picture.targets[0]) else style(palette.warn, dim=True)
                    canvas.put(y + 1, x + 2, mark, look)
        # Legal edges: the two facing digits underlined.
        for a, b in picture.edges:
            for pos, side in ((a, E if a[0] == b[0] else S), (b, W if a[0] == b[0] else N)):
                x, y = screen_xy(pos)
                sx, sy = side_cell(side)
                canvas.restyle(y + sy, x + sx, style(underline=True))
        if picture.selected_edge is not None:
            self.draw_edge_mark(canvas, picture.selected_edge, screen_xy, mark_look, "=")
        # The region highlighted by r: its quarters' digits bold and underlined, the rest of the board dim.
        if self.highlight:
            self.draw_region(canvas, picture, screen_xy)
        self.draw_suggestion(canvas, screen_xy)
        self.draw_cursor(canvas, screen_xy)
        return canvas.lines(trim="none")

    def draw_grid(self, canvas: Canvas, top: int, bottom: int, left: int, right: int, screen_xy: ScreenXY) -> None:
        look = style(self.palette.label, dim=self.palette.label is None)
        vertical, horizontal, cross = ("|", "-", "+") if self.ascii_only else ("│", "─", "┼")
        for row in range(top, bottom + 2):
            _x, y0 = screen_xy((row, left))
            for col in range(left, right + 1):
                x, _ = screen_xy((row, col))
                canvas.put(y0 - 1, x - 1, cross + horizontal * TILE_W, look)
            canvas.put(y0 - 1, screen_xy((row, right + 1))[0] - 1, cross, look)
            if row <= bottom:
                for col in range(left, right + 2):
                    x, y = screen_xy((row, col))
                    for dy in range(TILE_H):
                        canvas.put(y + dy, x - 1, vertical, look)

    def draw_outline(self, canvas: Canvas, x: int, y: int, look: Style, dashed: bool) -> None:
        if self.ascii_only:
            corners = ("+", "+", "+", "+")
        else:
            corners = ("┌", "┐", "└", "┘") if not dashed else ("╭", "╮", "╰", "╯")
        canvas.put(y, x, corners[0], look)
        canvas.put(y, x + TILE_W - 1, corners[1], look)
        canvas.put(y + TILE_H - 1, x, corners[2], look)
        canvas.put(y + TILE_H - 1, x + TILE_W - 1, corners[3], look)

    def draw_edge_mark(self, canvas: Canvas, edge: PosPair, screen_xy: ScreenXY, look: Style, char: str) -> None:
        a, b = edge
        x, y = screen_xy(a)
        if a[0] == b[0]:
            canvas.put(y + 1, x + TILE_W - 1, ">" if self.ascii_only else "▶", look)
            bx, by = screen_xy(b)
            canvas.put(by + 1, bx, "<" if self.ascii_only else "◀", look)
        else:
            canvas.put(y + TILE_H - 1, x + 2, "v" if self.ascii_only else "▼", look)
            bx, by = screen_xy(b)
            canvas.put(by, bx + 2, "^" if self.ascii_only else "▲", look)

    def draw_region(self, canvas: Canvas, picture: Picture, screen_xy: ScreenXY) -> None:
        for row, col, quarter in self.highlight:
            x, y = screen_xy((row, col))
            for dx, dy in quarter_cells(quarter):
                canvas.restyle(y + dy, x + dx, style(bold=True, underline=True))
        for pos in picture.tiles:
            x, y = screen_xy(pos)
            for quarter in range(4):
                if (pos[0], pos[1], quarter) not in self.highlight:
                    for dx, dy in quarter_cells(quarter):
                        canvas.restyle(y + dy, x + dx, style(dim=True))

    def suggestion_look(self) -> Style:
        """The better move's marks: reverse video in every palette (colour is never the only signal)."""
        return style(self.palette.warn, bold=True, reverse=True)

    def suggestion_region(self) -> Region | None:
        return self._suggestion_region if self.suggested is not None else None

    def draw_suggestion(self, canvas: Canvas, screen_xy: ScreenXY) -> None:
        move = self.suggested
        self._suggestion_region = None
        if move is None:
            return
        look = self.suggestion_look()
        self._suggestion_region = Region.from_union(
            [Region(*screen_xy(pos), TILE_W, TILE_H) for pos in self.suggested_positions()]
        )
        if isinstance(move, Edge):
            # Its arrows, and the legend's ``*`` in the middle of both its tiles (the step's own edge has arrows too).
            self.draw_edge_mark(canvas, (move.first, move.second), screen_xy, look, "=")
            for pos in (move.first, move.second):
                x, y = screen_xy(pos)
                canvas.put(y + 1, x + 2, "*", look)
            return
        x, y = screen_xy(move.pos)
        if isinstance(move, Place):
            # The tile's digits where it would go, each on its seat's colour, as the hands draw them.
            for quarter in range(4):
                sx, sy = side_cell(quarter)
                canvas.put(y + sy, x + sx, str(move.tile[quarter] + 1), quarter_style(self.palette, move.tile[quarter]))
        corners = ("#", "#", "#", "#") if self.ascii_only else ("╔", "╗", "╚", "╝")
        canvas.put(y, x, corners[0], look)
        canvas.put(y, x + TILE_W - 1, corners[1], look)
        canvas.put(y + TILE_H - 1, x, corners[2], look)
        canvas.put(y + TILE_H - 1, x + TILE_W - 1, corners[3], look)
        canvas.put(y + 1, x + 2, "*", look)

    def draw_cursor(self, canvas: Canvas, screen_xy: ScreenXY) -> None:
        if not self.interactive:
            return
        look = style(self.palette.warn, self.palette.cursor_bg, bold=True, reverse=self.palette.cursor_bg is None)
        edge = self.cursor_edge()
        if edge is not None:
            a, b = edge
            for end, side in ((a, E if a[0] == b[0] else S), (b, W if a[0] == b[0] else N)):
                x, y = screen_xy(end)
                sx, sy = side_cell(side)
                canvas.restyle(y + sy, x + sx, style(reverse=True, bold=True))
            x, y = screen_xy(a)
            if a[0] == b[0]:
                canvas.put(y, x + TILE_W - 1, "▼" if not self.ascii_only else "v", look)
                canvas.put(y + TILE_H - 1, x + TILE_W - 1, "▲" if not self.ascii_only else "^", look)
                self._cursor_box = (y, x + TILE_W - 1, 2)
            else:
                canvas.put(y + TILE_H - 1, x, "▶" if not self.ascii_only else ">", look)
                canvas.put(y + TILE_H - 1, x + TILE_W - 1, "◀" if not self.ascii_only else "<", look)
                self._cursor_box = (y + TILE_H - 1, x, TILE_W)
            return
        pos = self.cursor_position()
        if pos is None:
            return
        x, y = screen_xy(pos)
        corners = ("[", "]", "[", "]") if self.ascii_only else ("┏", "┓", "┗", "┛")
        canvas.put(y, x, corners[0], look)
        canvas.put(y, x + TILE_W - 1, corners[1], look)
        canvas.put(y + TILE_H - 1, x, corners[2], look)
        canvas.put(y + TILE_H - 1, x + TILE_W - 1, corners[3], look)
        self._cursor_box = (y, x, TILE_W)

    def legend(self) -> list[Piece]:
        picture = self.picture
        if picture is None or self.compact:
            return []
        palette = self.palette
        pieces: list[Piece] = []
        for seat, name in enumerate(picture.players):
            pieces.append((f" {seat + 1} ", quarter_style(palette, seat)))
            # Two seats a line: the side panel is narrow.
            pieces.append((f" {name[:9]:<10}" if seat % 2 == 0 else f" {name}\n", style()))
        if len(picture.players) % 2:
            pieces.append(("\n", style()))
        circle = "o" if self.ascii_only else "○"
        pieces.append((f"{circle} legal  ? to replace\n! hole, mismatch", style(palette.warn)))
        if self.suggested is not None:
            pieces.append(("\n", style()))
            pieces.append(("#*#" if self.ascii_only else "╔*╗", self.suggestion_look()))
            pieces.append((f" better: {self.suggested.text()}", style()))
        return pieces


def side_cell(side: int) -> tuple[int, int]:
    """Where a tile block shows the digit of its side ``side``."""
    return ((TILE_W // 2, 0), (TILE_W - 1, TILE_H // 2), (TILE_W // 2, TILE_H - 1), (0, TILE_H // 2))[side]


def quarter_cells(quarter: int) -> list[tuple[int, int]]:
    """The character cells of a 5 x 3 tile block that belong to ``quarter``."""
    if quarter == N:
        return [(1, 0), (2, 0), (3, 0)]
    if quarter == S:
        return [(1, 2), (2, 2), (3, 2)]
    if quarter == W:
        return [(0, 1), (1, 1)]
    return [(3, 1), (4, 1)]


# --------------------------------------------------------------------------
# The hands
# --------------------------------------------------------------------------


class MosaicHands(BoardWidget):
    """Every seat's hand (hands are public): the mover's tiles as 3 x 3 blocks, numbered for the digit keys; the
    others' as their notation, each digit on its colour.

    The selected hand tile stands in brackets; tiles the mover may select
    carry their number under them, the others a dot (the Mac program's small
    circles).
    """

    DEFAULT_CSS = """
    MosaicHands { width: 1fr; height: auto; max-height: 60%; padding: 0 1; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.picture: Picture | None = None
        self.hand_index: int | None = None
        #: Under the board in a small terminal (the screen's compact layout): the mover's hand first, on one
        #: row that slides to keep the selected tile in sight, and each other hand on one line.
        self.compact = False

    def set_compact(self, compact: bool) -> None:
        if compact != self.compact:
            self.compact = compact
            self.redraw()

    def show_hands(self, picture: Picture | None, hand_index: int | None) -> None:
        self.picture, self.hand_index = picture, hand_index
        self.view = picture
        self.redraw()

    def show(self, view: Any) -> None:  # the screen calls show_hands with the board's picture
        self.redraw()

    def build_lines(self) -> list[list[Piece]]:
        picture = self.picture
        if picture is None:
            return []
        palette = self.palette
        names = list(picture.players)
        if self.compact and len(picture.scores) == len(names):
            # The short panel under the hands has no room for the scores: each stands after its seat's name.
            names = [f"{name} ({score_text(score)})" for name, score in zip(names, picture.scores)]
        label = max(len(name) for name in names) + 1
        room = max(20, (self.size.width - 2 if self.is_attached and self.size.width else 46) - label)
        per_row = max(1, room // 4)
        seats = list(range(len(picture.players)))
        if self.compact and picture.player is not None:
            seats.sort(key=lambda seat: seat != picture.player)
        lines: list[list[Piece]] = []
        for seat in seats:
            name = names[seat]
            hand = picture.hands[seat] if seat < len(picture.hands) else ()
            mover = seat == picture.player
            name_look = style(palette.seat(seat), bold=True) if mover else style(palette.label)
            if not hand:
                lines.append([(f"{name:<{label}}", name_look), ("no tiles", style(palette.label, dim=True))])
                continue
            if not mover:
                # The others' hands in a line or two: each tile its notation, every digit on its colour.
                per_line = max(1, (room + 1) // 5)
                if self.compact and len(hand) > per_line:
                    per_line = max(1, (room - 3) // 5)  # room for the "+N" that says how many more
                for start in range(0, len(hand), per_line):
                    pieces: list[Piece] = [(f"{name if start == 0 else '':<{label}}", name_look)]
                    for tile in hand[start:start + per_line]:
                        pieces += [(str(seat_of + 1), quarter_style(palette, seat_of)) for seat_of in tile]
                        pieces.append((" ", style()))
                    if self.compact:
                        if len(hand) > per_line:
                            pieces.append((f"+{len(hand) - per_line}", style(palette.label, bold=True)))
                        lines.append(pieces)
                        break
                    lines.append(pieces)
                continue
            rows = [range(start, min(len(hand), start + per_row)) for start in range(0, len(hand), per_row)]
            if self.compact and len(hand) > per_row:
                rows = [self.sliding_row(len(hand), per_row - 1)]
            for indices in rows:
                numbered = mover and bool(picture.placements)
                canvas = Canvas(label + 4 * len(indices) + (3 if self.compact else 1), 4 if numbered else 3)
                if indices.start == 0 or self.compact:
                    canvas.put(1, 0, name, name_look)
                if self.compact and indices.start > 0:
                    canvas.put(1, label - 1, "<", style(palette.warn, bold=True))
                if self.compact and indices.stop < len(hand):
                    canvas.put(1, label + 4 * len(indices) + 1, ">", style(palette.warn, bold=True))
                for offset, index in enumerate(indices):
                    tile = hand[index]
                    x = label + 4 * offset + 1
                    draw_tile(canvas, x, 0, tile, palette, self.ascii_only, width=3, height=3)
                    if mover and index == self.hand_index:
                        bracket = style(palette.warn, bold=True)
                        canvas.put(1, x - 1, "[", bracket)
                        canvas.put(1, x + 3, "]", bracket)
                    if numbered:
                        usable = tile in picture.placements
                        text = str(index + 1) if usable and index < 9 else ("*" if usable else ".")
                        canvas.put(3, x + 1, text, style(palette.warn, bold=True) if usable else style(dim=True))
                lines += canvas.lines()
        return lines

    def sliding_row(self, count: int, shown: int) -> range:
        """The ``shown`` hand tiles of ``count`` drawn on the compact layout's one row: the selected one among
        them, the row's first tiles while it is near the start."""
        selected = self.hand_index or 0
        start = max(0, min(count - shown, selected - shown // 2))
        return range(start, start + shown)
