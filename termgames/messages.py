"""Messages the widgets post up to their screen (as Textual's own apps keep them, in one module).

Attributes go down (a screen calls ``board.show(view)``), messages go up: a
board never calls into its screen, it posts one of these and the screen
handles it (``on_cursor_moved``, ``on_move_chosen``, ``on_panel_changed``).
Every game screen (``GameScreen``) already handles all three; a new game's
board only posts them.
"""

from __future__ import annotations

from textual.message import Message


class CursorMoved(Message):
    """The player moved a board's cursor with the mouse (keys go through the screen already).

    The screen redraws the side panel and the line under the board, and keeps
    the cursor in sight.
    """


class MoveChosen(Message):
    """The player chose a move on the board itself (a click, say): the screen plays it for the seat at the keys."""

    def __init__(self, move: str) -> None:
        super().__init__()
        #: The move in the game's own notation, as ``termgames move`` takes it.
        self.move = move


class PanelChanged(Message):
    """Something the side panel shows from the board (its legend, the cursor's line) changed: redraw the panel."""
