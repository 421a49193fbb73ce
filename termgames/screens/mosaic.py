"""Mosaic's screen: the board of tiles, every seat's hand, the step asked in words, one step per Enter.

The board marks the legal choices of the step at hand (the Mac program's
outlines and circles); the cursor picks a position, an edge or a candidate,
``[``/``]`` or a digit the hand tile, Enter plays the step.  Tab jumps to
the next legal choice.  ``g`` draws the grid between tiles, ``r`` shows the
region under the cursor with its size and points.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from ..rules import View
from ..rules.base import possessive
from ..rules.mosaic import MosaicView
from ..rules.mosaic.notation import Edge, Pass, Place, Take
from ..rules.mosaic.tiles import pos_text, tile_text
from ..rules.mosaic.view import BUILDING, EDGE_KIND, LAST_PLACE_KIND, PLACE_KIND, REPLACE_KIND
from ..widgets.footer import Footer
from ..widgets.mosaic_board import MosaicBoard, MosaicHands, Picture
from ..widgets.panel import SidePanel
from .base import NARROW_WIDTH, GameBody, fit_side_panel, title_line
from .game import GameScreen

KEYS = """\
- **arrows / hjkl** move the cursor over positions; while an edge is asked for (Step SE) they step half a tile,
  so the cursor rests on the edges between tiles
- **Tab / Shift+Tab** jump to the next / previous legal choice (positions, edges, candidates)
- **[ ]** or **1-9** pick the hand tile to place (numbered under the hand; a dot: it has no legal position)
- **Enter / Space** play the step: place the hand tile at the cursor, select the edge, take the candidate
  (or pass, when passing is the only move)
- **r** highlights the region under the cursor with its tile count and points (again: the tile's other region, then off)
- **g** draws a grid line between tiles
- **u** undoes the step just made (against the computer, back to your last step)
- a **click** on the board moves the cursor there (while an edge is asked for, to the tile side nearest the click)

On the board: **o** outlines a legal position for the selected hand tile (under the cursor, the tile's
digits show where Enter would put them), or marks a candidate replacement;
**?** a position waiting for its replacement; **!** a hole that must be filled, or a mismatched tile (its
mismatched sides reversed); legal edges have their two facing digits underlined.
"""


def step_words(picture: Picture, selected: str | None) -> str:
    """The step being asked, in words, for the status line."""
    if picture.player is None or not picture.kind:
        return ""
    name = picture.players[picture.player]
    if picture.legal == [Pass().text()]:
        return f"{name} has no legal move: Enter passes"
    if picture.kind == PLACE_KIND:
        tile = f" {selected}" if selected else ""
        if picture.phase == BUILDING:
            return f"Building, Step SH/P: {name} places{tile or ' a hand tile'} next to the board"
        # Step SH/P of an alteration routine: the tiles taken out go back into the board.
        return f"Alteration, Step SH/P: {name} places{tile or ' a hand tile'} back into the board"
    if picture.kind == EDGE_KIND:
        return f"Step SE: {name} selects an edge to turn to {possessive(name, addressed=True)} colour"
    if picture.kind == REPLACE_KIND:
        if picture.subroutine == "mismatch" and picture.targets:
            where = pos_text(picture.targets[0])
            return f"Step R, mismatch: {name} chooses a replacement for the mismatched tile at {where}"
        if picture.targets:
            return f"Step R: {name} chooses a replacement for the tile that was at {pos_text(picture.targets[0])}"
        return f"Step R: {name} chooses a replacement tile"
    if picture.kind == LAST_PLACE_KIND:
        tile = f" {selected}" if selected else " a hand tile"
        holes = [pos_text(pos) for pos in sorted(picture.holes)]
        hole = f" (hole at {', '.join(holes)})" if holes else ""
        after = ", resolving the mismatch" if picture.subroutine == "mismatch" else ""
        return f"Step P: {name} places{tile} back into the board{hole}{after}"
    return f"{name} to move"


class MosaicScreen(GameScreen):
    board_class = MosaicBoard
    #: The board centres itself on the cursor.  Under 72 columns (NARROW_WIDTH) the compact layout puts
    #: the hands and then the panel under it: the mover's hand on one row (4 lines), the others' a line
    #: each, the panel what the board's least (its cursor's tile and a glimpse of its neighbours) leaves.
    MINIMUM_SIZE = (50, 20)

    DEFAULT_CSS = """
    MosaicScreen #mosaic-left { width: 1fr; height: 1fr; }
    MosaicScreen #cursor-line { width: 100%; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    HELP_NOTES = KEYS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "act", "Play", key_display="Enter"),
        Binding("tab", "jump(True)", "Legal", key_display="Tab"),
        Binding("shift+tab", "jump(False)", "Previous legal", show=False),
        Binding("right_square_bracket", "hand(1)", "Tile", key_display="[ ]"),
        Binding("left_square_bracket", "hand(-1)", "Previous hand tile", show=False),
        *(Binding(str(digit), f"pick({digit})", f"Hand tile {digit}", show=False) for digit in range(1, 10)),
        Binding("r", "region", "Region"),
        Binding("g", "grid", "Grid", show=False),  # a display option (the help lists it): the footer is full at 80
    ]

    def compose(self) -> ComposeResult:
        yield Static(title_line(self.table.game.title, self.table.seats, self.ascii_only), id="game-title",
                     markup=False)
        with GameBody(id="game-body"):
            with Vertical(id="mosaic-left"):
                yield MosaicBoard(ascii_only=self.ascii_only, palette=self.palette_name, id="board")
                yield Static("", id="cursor-line")
                yield MosaicHands(ascii_only=self.ascii_only, palette=self.palette_name, id="hands",
                                  interactive=False)
            yield SidePanel(id="side-panel")
        yield Static("", id="message")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Once the game is over nothing is legal and no hand tile is asked for: those keys leave the
        # footer, which then fits 80 columns beside the rematch keys (the region key stays: it scores).
        if action in ("jump", "hand", "pick") and self.is_mounted and self.view is not None and self.view.over:
            return False
        return super().check_action(action, parameters)

    @property
    def mosaic_board(self) -> MosaicBoard:
        return self.query_one("#board", MosaicBoard)

    @property
    def hands(self) -> MosaicHands:
        return self.query_one("#hands", MosaicHands)

    def scroll_to_cursor(self) -> None:
        """The board centres itself on the cursor: nothing to scroll."""

    def on_resize(self) -> None:
        compact = self.app.size.width < NARROW_WIDTH
        self.mosaic_board.compact = compact
        self.hands.set_compact(compact)
        self.hands.redraw()
        super().on_resize()

    def fit_panel(self) -> None:
        """Under the board (the compact layout) the cursor's line and the hands come before the panel."""
        fit_side_panel(self, self.mosaic_board, under=1 + self.hands.whole_lines(), wanted=self.PANEL_LINES_WANTED)

    # -- the panel -----------------------------------------------------------

    def status_line(self) -> str:
        board = self.mosaic_board
        picture = board.picture
        if self.table.thinking or picture is None or self.view is None or self.view.over:
            return super().status_line()
        selected = board.selected_tile()
        return step_words(picture, tile_text(selected) if selected else None) or super().status_line()

    def update_panel(self) -> None:
        super().update_panel()
        board = self.mosaic_board
        self.hands.show_hands(board.picture, board.hand_index)
        self.fit_panel()  # the hands' lines change with the mover

    def action_palette(self) -> None:
        super().action_palette()
        self.hands.set_palette(self.palette_name)

    # -- keys ------------------------------------------------------------------

    def action_cursor(self, direction: str) -> None:
        board = self.mosaic_board
        if board.highlight:
            board.set_region(frozenset(), "")
        super().action_cursor(direction)

    def action_jump(self, forward: bool) -> None:
        board = self.mosaic_board
        if not board.jump(forward):
            self.say("Nothing to choose on the board at this step", error=False)
            return
        self.message = ""
        self.update_panel()

    def mover_hand(self) -> tuple[Any, ...]:
        picture = self.mosaic_board.picture
        if picture is None or picture.player is None:
            return ()
        return picture.hands[picture.player]

    def action_hand(self, delta: int) -> None:
        board = self.mosaic_board
        picture = board.picture
        hand = self.mover_hand()
        if picture is None or not picture.placements or not hand:
            self.say("No hand tile is asked for at this step", error=False)
            return
        usable = [index for index, tile in enumerate(hand) if tile in picture.placements]
        if not usable:
            return
        current = board.hand_index if board.hand_index in usable else None
        if current is None:
            board.hand_index = usable[0]
        else:
            board.hand_index = usable[(usable.index(current) + delta) % len(usable)]
        self._after_hand_change()

    def action_pick(self, number: int) -> None:
        board = self.mosaic_board
        picture = board.picture
        hand = self.mover_hand()
        if picture is None or not picture.placements:
            self.say("No hand tile is asked for at this step", error=False)
            return
        if not 1 <= number <= len(hand):
            self.say(f"The hand has {len(hand)} tile{'s' if len(hand) != 1 else ''}")
            return
        tile = hand[number - 1]
        if tile not in picture.placements:
            self.say(f"{tile_text(tile)} has no legal position now: pick a numbered tile")
            return
        board.hand_index = number - 1
        self._after_hand_change()

    def _after_hand_change(self) -> None:
        board = self.mosaic_board
        tile = board.selected_tile()
        picture = board.picture
        if tile is not None and picture is not None:
            spots = picture.placements.get(tile, set())
            if board.cursor_position() not in spots and spots:
                board.spot = min((2 * r, 2 * c) for r, c in spots)
        self.message = ""
        board.redraw()
        self.update_panel()

    def action_grid(self) -> None:
        board = self.mosaic_board
        board.set_grid(not board.grid)
        self.notify(f"Grid {'on' if board.grid else 'off'}", timeout=1.0)

    def action_region(self) -> None:
        board = self.mosaic_board
        view = self.view
        pos = board.cursor_position()
        if view is None or pos is None or board.picture is None or pos not in board.picture.tiles:
            self.say("Put the cursor on a tile to see its regions", error=False)
            return
        regions = regions_at(view, pos)
        if not regions:
            return
        shown = [index for index, region in enumerate(regions) if region[0] == board.highlight]
        following = shown[0] + 1 if shown else 0
        if following >= len(regions):
            board.set_region(frozenset(), "")
        else:
            quarters, text = regions[following]
            board.set_region(quarters, text)
        self.message = ""
        self.update_panel()

    # -- moves -----------------------------------------------------------------

    def move_at_cursor(self, view: View) -> str | None:
        board = self.mosaic_board
        picture = board.picture
        if picture is None:
            return None
        if picture.legal == [Pass().text()]:
            return Pass().text()
        if picture.kind in (PLACE_KIND, LAST_PLACE_KIND):
            tile = board.selected_tile()
            pos = board.cursor_position()
            if tile is None:
                self.say("Pick a hand tile first: [ ] or its number")
                return None
            if pos is None:
                self.say("Put the cursor on a position (an o marks the legal ones)")
                return None
            if picture.tiles.get(pos) is not None:
                self.say(f"{pos_text(pos)} holds a tile: the o positions are free for {tile_text(tile)}")
                return None
            return Place(tile, pos).text()
        if picture.kind == EDGE_KIND:
            edge = board.cursor_edge()
            if edge is None:
                self.say("Put the cursor on an edge between two tiles (Tab jumps to the legal ones)")
                return None
            return Edge(*edge).text()
        if picture.kind == REPLACE_KIND:
            pos = board.cursor_position()
            if pos is None or pos not in picture.tiles:
                self.say("Put the cursor on a tile marked o: a candidate replacement")
                return None
            return Take(pos).text()
        return None


def regions_at(view: MosaicView, pos: tuple[int, int]) -> list[tuple[frozenset[tuple[int, int, int]], str]]:
    """The regions spanning the tile at ``pos``, biggest first: their quarters, and whose, how big, how much worth."""
    found = []
    for region in view.regions():
        if pos not in region.tiles:
            continue
        quarters = frozenset((row, col, quarter) for (row, col), quarter in region.quarters)
        count = len(region.tiles)
        tiles = f"{count} tile{'s' if count != 1 else ''}"
        text = f"region of {view.players[region.colour]}: {tiles}, {region.points} points"
        found.append((quarters, text))
    found.sort(key=lambda item: -len(item[0]))
    return found
