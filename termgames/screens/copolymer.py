"""Copolymer's screen: the honeycomb, hex cursor keys, a claim per Enter."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from ..rules.copolymer import CopolymerView
from ..widgets.copolymer_board import CopolymerBoard
from .game import GameScreen


class CopolymerScreen(GameScreen[CopolymerView]):
    board_class = CopolymerBoard

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "act", "Claim", key_display="Enter", tooltip="claim the cell under the cursor"),
        Binding("left,h,a", "cursor('left')", "Left", show=False, tooltip="move along the row"),
        Binding("right,l,d", "cursor('right')", "Right", show=False, tooltip="move along the row"),
        Binding("up,k", "cursor('up')", "Up", show=False, tooltip="move to the nearest cell of the row above or below"),
        Binding("down,j", "cursor('down')", "Down", show=False,
                tooltip="move to the nearest cell of the row above or below"),
        Binding("w,home", "cursor('up_left')", "Up-left", show=False, tooltip="hex: up-left (keypad 7)"),
        Binding("e,pageup", "cursor('up_right')", "Up-right", show=False, tooltip="hex: up-right (keypad 9)"),
        Binding("z,end", "cursor('down_left')", "Down-left", show=False, tooltip="hex: down-left (keypad 1)"),
        Binding("x,pagedown", "cursor('down_right')", "Down-right", show=False, tooltip="hex: down-right (keypad 3)"),
    ]
    HELP_NOTES = """\
Cells marked `!` would oblige you to claim again: they touch two or more of
your opponent's cells. The claims of the last turn are highlighted.
"""

    def move_at_cursor(self, view: CopolymerView) -> str | None:
        name = self.board.cursor_name()
        return name or None
