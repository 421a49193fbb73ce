"""The game screen every game uses: a board, a side panel, the common keys, AI turns.

A game's screen subclass names its board widget and turns the cursor into a
move (``move_at_cursor``); everything else (status, move log, undo, help,
quit, palettes, AI players off the UI thread, privacy between hot-seat
players of hidden-information games) lives here once.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Spacing
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from ..ai import make_bot
from ..rules import RuleError, View, Viewer
from ..table import LocalTable
from ..untrusted import printable
from ..widgets.board import BoardWidget
from ..widgets.palette import next_palette, use_ascii_scrollbars
from ..widgets.panel import SidePanel, update_if_changed
from .dialogs import ConfirmScreen, HelpScreen, PrivacyScreen

#: The least time an AI move stays "thinking", so its moves can be followed.
AI_MIN_SECONDS = 0.35

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ASCII_SPINNER = "|/-\\"

#: Below this many columns the side panel moves under the board.
NARROW_WIDTH = 72


def title_line(title: str, match, ascii_only: bool = False) -> str:
    """The header: the game's title and who plays it."""
    players = "  vs  ".join(seat.describe() for seat in match.seats)
    separator = "  -  " if ascii_only else "  ·  "
    return printable(f"{title}{separator}{players}")  # names from a record or another player


class GameScreen(Screen):
    """Plays one table.  Subclasses set ``board_class`` and implement ``move_at_cursor``.

    ``board_class`` is a BoardWidget, or a widget grouping one BoardWidget per
    board that answers the same calls (show, redraw, cursor, legend).
    """

    board_class: ClassVar[type[Widget]] = BoardWidget
    #: Hot-seat games with hidden boards hide everything between human seats.
    hides_information: ClassVar[bool] = False

    BINDINGS = [
        Binding("left,h", "cursor('left')", "Left", show=False),
        Binding("right,l", "cursor('right')", "Right", show=False),
        Binding("up,k", "cursor('up')", "Up", show=False),
        Binding("down,j", "cursor('down')", "Down", show=False),
        Binding("enter,space", "act", "Act", key_display="Enter"),
        Binding("u", "undo", "Undo"),
        Binding("c", "palette", "Colours", show=False),
        Binding("question_mark", "help", "Rules & keys", key_display="?"),
        Binding("q", "quit_game", "Quit"),
    ]

    def __init__(self, table: LocalTable, *, ascii_only: bool = False, palette: str = "default") -> None:
        super().__init__()
        self.table = table
        self.ascii_only = ascii_only
        self.palette_name = palette
        self.view: View | None = None
        self.message = ""
        self.thinking: int | None = None
        self._generation = 0
        self._spin = 0
        self._bots: dict[int, Any] = {}
        self._shown_seat: Viewer = None
        self._privacy_open = False
        #: A hidden-information turn just ended: the keyboard passes to this seat on Enter.
        self._handover_to: int | None = None
        self._message_is_error = True

    # -- layout --------------------------------------------------------------

    def compose(self) -> ComposeResult:
        match = self.table.match
        yield Static(title_line(match.game.title, match, self.ascii_only), id="game-title", markup=False)
        with Horizontal(id="game-body"):
            with VerticalScroll(id="board-area"):
                yield self.board_class(ascii_only=self.ascii_only, palette=self.palette_name, id="board")
                yield Static("", id="cursor-line")
            yield SidePanel(id="side-panel")
        yield Static("", id="message")
        yield Footer()

    @property
    def board(self) -> Any:
        return self.query_one("#board")

    def tell_save_notice(self) -> None:
        """What the table has to say about saving (a record changed on disk, a failed save), as a toast."""
        take = getattr(self.table, "take_notice", None)  # network tables save on the server
        notice = take() if take is not None else ""
        if notice:
            self.notify(printable(notice), severity="warning", timeout=12, markup=False)

    def on_mount(self) -> None:
        self.tell_save_notice()
        if self.ascii_only:
            use_ascii_scrollbars(self)
        self.set_interval(0.12, self._tick)
        seat = self.table.viewing_seat()
        if self._private_hot_seat() and self.table.match.moves and not self.table.match.over and seat is not None:
            # A resumed hot-seat game with hidden boards: whoever sits here may not be that seat.
            self._handover_to = seat
            self.hand_over()
            return
        self.refresh_view()

    def on_resize(self) -> None:
        # Narrow terminals put the panel under the board; boards pick their spacing from the width.
        self.set_class(self.app.size.width < NARROW_WIDTH, "narrow")
        self.board.redraw()

    # -- drawing -------------------------------------------------------------

    def refresh_view(self) -> None:
        """Redraw from a fresh view of the seat the keyboard belongs to, then let an AI move."""
        self.tell_save_notice()
        seat = self.table.viewing_seat()
        if self._needs_privacy(seat):
            # The seat that just played sees its turn's result first; Enter then hides everything.
            self._handover_to = seat
            self.view = self.table.view(self._shown_seat)
            self.board.show(self.view)
            self.say(f"Your turn is over. Enter hides the boards for {self.table.names[seat]}.", error=False)
            return
        self._shown_seat = seat
        self.view = self.table.view(seat)
        self.board.show(self.view)
        self.update_panel()
        self.maybe_start_ai()

    def _private_hot_seat(self) -> bool:
        """Hidden boards and several humans at this keyboard: they must not see each other's."""
        return self.hides_information and len(self.table.local_humans()) > 1

    def _needs_privacy(self, seat: Viewer) -> bool:
        if seat is None or self._privacy_open or not self._private_hot_seat():
            return False
        return self._shown_seat is not None and seat != self._shown_seat

    def hand_over(self) -> None:
        """Hide every board until the next player says they alone are looking."""
        seat, self._handover_to = self._handover_to, None
        assert seat is not None
        result = self.view.last_action if self.view else ""
        self._shown_seat = seat
        self._privacy_open = True
        self.message = ""
        self.board.show(None)
        self.app.push_screen(PrivacyScreen(self.table.names[seat], result), self._privacy_done)

    def _privacy_done(self, _result: None) -> None:
        self._privacy_open = False
        seat = self._shown_seat
        self.view = self.table.view(seat)
        self.board.show(self.view)
        self.update_panel()
        self.maybe_start_ai()

    def status_line(self) -> str:
        """The view's status, or which AI is thinking (with a spinner)."""
        if self.thinking is not None:
            spinner = ASCII_SPINNER if self.ascii_only else SPINNER
            return f"{self.table.names[self.thinking]} is thinking {spinner[self._spin % len(spinner)]}"
        return self.view.status if self.view is not None else ""

    def update_panel(self) -> None:
        view = self.view
        if view is None:
            return
        self.query_one(SidePanel).show(view, self.status_line(), Text.assemble(*self.board.legend()))
        update_if_changed(self.query_one("#cursor-line", Static), self.board.cursor_detail())
        look = "bold red" if self._message_is_error else "bold"
        update_if_changed(self.query_one("#message", Static), Text(self.message, style=look) if self.message else "")

    def say(self, message: str, error: bool = True) -> None:
        self.message = message
        self._message_is_error = error
        self.update_panel()

    def _tick(self) -> None:
        if self.thinking is not None and self.view is not None:
            self._spin += 1
            # Only the status line turns: the log keeps any scrolling the player did meanwhile.
            update_if_changed(self.query_one("#status", Static), Text(self.status_line(), style="bold"))

    # -- moves ---------------------------------------------------------------

    def move_at_cursor(self, view: View) -> str | None:
        """The move the act key makes at the cursor, or None (with ``say``) if there is none."""
        raise NotImplementedError

    def action_cursor(self, direction: str) -> None:
        self.board.move_cursor(direction)
        self.update_panel()
        self.call_after_refresh(self.scroll_to_cursor)

    def scroll_to_cursor(self) -> None:
        """Big boards scroll: keep the cursor in sight."""
        region = self.board.cursor_region()
        if region is None:
            return
        board = self.board
        area = self.query_one("#board-area", VerticalScroll)
        area.scroll_to_region(
            region.translate(board.virtual_region.offset + board.content_offset),
            spacing=Spacing(1, 2, 1, 2),
            animate=False,
            immediate=True,
        )

    def action_act(self) -> None:
        self.submit(None)

    def submit(self, move: str | None) -> None:
        """Play ``move`` (default: the move at the cursor) for the seat at the keyboard."""
        view = self.view
        if view is None or self._privacy_open:
            return
        if self._handover_to is not None:
            self.hand_over()
            return
        if view.over:
            self.say("The game is over: u undoes, q quits")
            return
        seat = view.viewer
        if self.thinking is not None or seat is None or seat not in view.to_move:
            names = " and ".join(view.players[s] for s in view.to_move)
            self.say(f"It is {names}'s turn")
            return
        if move is None:
            move = self.move_at_cursor(view)
            if move is None:
                return
        try:
            self.table.play(seat, move)
        except RuleError as error:
            self.say(str(error))
            return
        self.message = ""
        self.refresh_view()

    def action_undo(self) -> None:
        if self._privacy_open or self._handover_to is not None:
            return
        generation, thinking = self._generation, self.thinking
        self._generation += 1  # an AI still thinking must not play into the undone position
        self.thinking = None
        if not self.table.undo():
            # Nothing changed: an AI that was thinking carries on and its move still counts.
            self._generation, self.thinking = generation, thinking
            self.say("Nothing to undo")
            return
        self.say("Undone", error=False)
        self.refresh_view()

    # -- AI ------------------------------------------------------------------

    def ai_min_seconds(self) -> float:
        """How long each AI move stays "thinking" at least (games of many small moves pace them slower)."""
        return AI_MIN_SECONDS

    def bot_for(self, seat: int) -> Any:
        if seat not in self._bots:
            match = self.table.match
            self._bots[seat] = make_bot(match.game.name, match.seats[seat].level or "", seed=match.bot_seed(seat))
        return self._bots[seat]

    def maybe_start_ai(self) -> None:
        if self.thinking is not None or self.table.match.over:
            return
        seat = self.table.ai_to_move()
        if seat is None:
            return
        self.thinking = seat
        self.update_panel()
        self.think(seat, self._generation, self.table.view(seat))

    @work(thread=True, exclusive=True, group="ai")
    def think(self, seat: int, generation: int, view: View) -> None:
        started = time.monotonic()
        try:
            move = self.bot_for(seat).choose(view)
        except Exception as error:  # a broken bot must not take the game down
            self._report(self._ai_failed, seat, generation, str(error))
            return
        rest = self.ai_min_seconds() - (time.monotonic() - started)
        if rest > 0:
            time.sleep(rest)
        if not get_current_worker().is_cancelled:
            self._report(self._ai_moved, seat, generation, move)

    def _report(self, callback, *args) -> None:
        with contextlib.suppress(RuntimeError):  # the app closed while the AI was thinking: nothing to tell
            self.app.call_from_thread(callback, *args)

    def _ai_moved(self, seat: int, generation: int, move: str) -> None:
        if generation != self._generation or not self.is_attached:
            return
        self.thinking = None
        try:
            self.table.play(seat, move)
        except RuleError as error:
            self.say(f"{self.table.names[seat]} (AI) tried {move}: {error}")
            return
        self.message = ""  # what was said before the AI moved (e.g. "It is its turn") no longer holds
        self.refresh_view()

    def _ai_failed(self, seat: int, generation: int, error: str) -> None:
        if generation != self._generation:
            return
        self.thinking = None
        self.say(f"{self.table.names[seat]} (AI) failed: {error}")

    # -- common keys ---------------------------------------------------------

    def action_palette(self) -> None:
        self.palette_name = next_palette(self.palette_name)
        self.board.set_palette(self.palette_name)
        self.update_panel()
        self.app.palette = self.palette_name
        self.notify(f"Colours: {self.palette_name}", timeout=1.5)

    def action_help(self) -> None:
        game = self.table.game
        self.app.push_screen(HelpScreen(game.rules_text(), game.keys_text()))

    def action_quit_game(self) -> None:
        path = self.table.save_path
        if path is None:
            detail = "This game is not saved: quitting loses it."
        elif self.table.match.over:
            detail = f"The game is saved in\n{path}\n\nReplay it with\ntermgames replay {path}"
        else:
            detail = f"The game is saved in\n{path}\n\nResume it with\ntermgames play --load {path}"
        self.app.push_screen(ConfirmScreen("Quit termgames?", detail), self._quit_answer)

    def _quit_answer(self, yes: bool | None) -> None:
        if yes:
            self._generation += 1
            self.app.exit()
