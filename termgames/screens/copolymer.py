"""Copolymer's screen: the honeycomb, hex cursor keys, a claim per Enter."""

from __future__ import annotations

from textual.binding import Binding

from ..rules.copolymer import CopolymerView
from ..widgets.copolymer_board import CopolymerBoard
from .game import GameScreen


class CopolymerScreen(GameScreen[CopolymerView]):
    board_class = CopolymerBoard

    BINDINGS = [
        Binding("enter,space", "act", "Claim", key_display="Enter"),
        Binding("a", "cursor('left')", "Left", show=False),
        Binding("d", "cursor('right')", "Right", show=False),
        Binding("w,home", "cursor('up_left')", "Up-left", show=False),
        Binding("e,pageup", "cursor('up_right')", "Up-right", show=False),
        Binding("z,end", "cursor('down_left')", "Down-left", show=False),
        Binding("x,pagedown", "cursor('down_right')", "Down-right", show=False),
    ]

    def move_at_cursor(self, view: CopolymerView) -> str | None:
        name = self.board.cursor_name()
        return name or None
